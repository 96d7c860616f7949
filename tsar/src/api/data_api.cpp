// SPDX-License-Identifier: BSD-3-Clause
// The data-environment C API (tsar/data.h) over memory/data_environment; tsar_data_attach,
// which needs the region, is with the region calls in c_api.cpp.
#include <memory>
#include <string>

#include "api/error.hpp"
#include "memory/data_environment.hpp"
#include "tsar/data.h"

namespace {

using tsar::core::fail;
using tsar::core::guarded;

using tsar::core::DataEnvironment;

int require(const void* p, const char* what, const char* call) {
  return p != nullptr ? TSAR_OK : fail(TSAR_ERR_NULL, std::string(call) + ": " + what + " is NULL");
}

int update_host(tsar_data* data, const void* host, std::size_t first, std::size_t count,
                const char* call) {
  if (const int s = require(data, "data", call)) return s;
  return guarded(call, [&] { data->env->update_host(host, first, count); });
}

int update_device(tsar_data* data, const void* host, std::size_t first, std::size_t count,
                  const char* call) {
  if (const int s = require(data, "data", call)) return s;
  return guarded(call, [&] { data->env->update_device(host, first, count); });
}

}  // namespace

extern "C" {

int tsar_data_create(tsar_data** data) {
  if (const int s = require(data, "data", "tsar_data_create")) return s;
  *data = nullptr;
  return guarded("tsar_data_create",
                 [&] { *data = new tsar_data{std::make_shared<tsar::core::DataEnvironment>()}; });
}

int tsar_data_free(tsar_data* data) {
  if (data == nullptr) return TSAR_OK;
  const int status = guarded(
      "tsar_data_free", [&] { data->env->update_host(nullptr, 0, DataEnvironment::kAllRows); });
  if (status == TSAR_ERR_STATE) return status;
  delete data;
  return status;
}

int tsar_data_map(tsar_data* data, void* host, const tsar_mem_desc* desc) {
  if (const int s = require(data, "data", "tsar_data_map")) return s;
  if (const int s = require(desc, "desc", "tsar_data_map")) return s;
  return guarded("tsar_data_map", [&] { data->env->map(host, *desc); });
}

int tsar_data_unmap(tsar_data* data, const void* host) {
  if (const int s = require(data, "data", "tsar_data_unmap")) return s;
  return guarded("tsar_data_unmap", [&] { data->env->unmap(host); });
}

int tsar_data_update_host(tsar_data* data, const void* host) {
  return update_host(data, host, 0, DataEnvironment::kAllRows, "tsar_data_update_host");
}

int tsar_data_update_host_rows(tsar_data* data, const void* host, size_t first_row,
                               size_t num_rows) {
  if (const int s = require(host, "host", "tsar_data_update_host_rows")) return s;
  return update_host(data, host, first_row, num_rows, "tsar_data_update_host_rows");
}

int tsar_data_update_device(tsar_data* data, const void* host) {
  return update_device(data, host, 0, DataEnvironment::kAllRows, "tsar_data_update_device");
}

int tsar_data_update_device_rows(tsar_data* data, const void* host, size_t first_row,
                                 size_t num_rows) {
  if (const int s = require(host, "host", "tsar_data_update_device_rows")) return s;
  return update_device(data, host, first_row, num_rows, "tsar_data_update_device_rows");
}

int tsar_data_get_stats(const tsar_data* data, const void* host, tsar_data_stats* stats) {
  if (const int s = require(data, "data", "tsar_data_get_stats")) return s;
  if (const int s = require(stats, "stats", "tsar_data_get_stats")) return s;
  return guarded("tsar_data_get_stats", [&] {
    const tsar::core::DataTraffic t = data->env->traffic(host);
    *stats = {t.to_device, t.from_device, t.device_rows, t.copies};
  });
}

}  // extern "C"
