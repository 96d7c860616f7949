// SPDX-License-Identifier: BSD-3-Clause
// The C API (tsar.h) over the C++ runtime: argument checks, the caller's worker, and every
// internal error turned into a status code plus tsar_last_error().

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "api/error.hpp"
#include "api/region_handle.hpp"
#include "devices/gpu_discovery.hpp"
#if TSAR_HAVE_CUDA
#include "devices/cuda_device.hpp"
#endif
#include "memory/data_environment.hpp"
#include "region/region.hpp"
#include "runtime/runtime.hpp"
#include "tsar/data.h"
#include "tsar/tsar.h"

tsar::core::Region& tsar::core::region_of(tsar_region* region) {
  return *static_cast<Region*>(region);
}

namespace {

using tsar::core::Error;
using tsar::core::fail;
using tsar::core::guarded;
using tsar::core::Region;

#define TSAR_REQUIRE(ptr, call)                                                                 \
  do {                                                                                          \
    if ((ptr) == nullptr) return fail(TSAR_ERR_NULL, std::string(call) + ": " #ptr " is NULL"); \
  } while (0)

Region* impl(tsar_region* region) { return static_cast<Region*>(region); }
const Region* impl(const tsar_region* region) { return static_cast<const Region*>(region); }

/// The calling thread's worker index in `region`, or -1 with the thread's last error set.
int worker_of(const tsar_region* region, const char* call) {
  if (region == nullptr) {
    fail(TSAR_ERR_NULL, std::string(call) + ": region is NULL");
    return -1;
  }
  std::string why;
  const int w = impl(region)->caller_worker(&why);
  if (w < 0) fail(TSAR_ERR_THREADS, std::string(call) + ": " + why);
  return w;
}

}  // namespace

extern "C" {

const char* tsar_version(void) { return TSAR_VERSION; }

int tsar_set_devices(const char* spec) {
  return guarded("tsar_set_devices", [&] {
    tsar::core::Runtime::select(spec == nullptr ? std::nullopt : std::optional<std::string>(spec));
  });
}

int tsar_set_gpu_cores(int policy) {
  if (policy != TSAR_GPU_CORES_RESERVE && policy != TSAR_GPU_CORES_SHARE)
    return fail(TSAR_ERR_INVALID, "tsar_set_gpu_cores: policy " + std::to_string(policy) +
                                      " is neither TSAR_GPU_CORES_RESERVE nor _SHARE");
  return guarded("tsar_set_gpu_cores", [&] {
    tsar::core::set_gpu_cores_policy(policy == TSAR_GPU_CORES_SHARE
                                         ? tsar::core::GpuCores::kShare
                                         : tsar::core::GpuCores::kReserve);
    tsar::core::Runtime::select(std::nullopt);
  });
}

int tsar_count_devices(unsigned kinds, int* count) {
  TSAR_REQUIRE(count, "tsar_count_devices");
  return guarded("tsar_count_devices", [&] {
    const unsigned mask = kinds == 0 ? static_cast<unsigned>(TSAR_DEVICE_ALL) : kinds;
    int n = 0;
    for (const auto& d : tsar::core::Runtime::current()->devices())
      if ((static_cast<unsigned>(d->kind()) & mask) != 0) ++n;
    *count = n;
  });
}

int tsar_init(tsar_region** region, const char* name, const char* schedule, unsigned device_kinds,
              const double* time_per_iteration, int num_times, int div) {
  TSAR_REQUIRE(region, "tsar_init");
  *region = nullptr;
  return guarded("tsar_init", [&] {
    const tsar::core::ScheduleSpec spec = tsar::core::resolve_schedule(schedule, div);
    *region = new Region(tsar::core::Runtime::current(), name ? name : "", spec, device_kinds,
                         time_per_iteration, num_times);
  });
}

int tsar_free(tsar_region* region) {
  if (region == nullptr) return TSAR_OK;
  if (impl(region)->in_pass()) return fail(TSAR_ERR_STATE, "tsar_free: the region is in a pass");
  return guarded("tsar_free", [&] { delete static_cast<Region*>(region); });
}

int tsar_num_devices(const tsar_region* region) {
  if (region == nullptr) {
    fail(TSAR_ERR_NULL, "tsar_num_devices: region is NULL");
    return 0;
  }
  return impl(region)->workers();
}

int tsar_get_device_info(const tsar_region* region, int device, tsar_device_info* info) {
  TSAR_REQUIRE(region, "tsar_get_device_info");
  TSAR_REQUIRE(info, "tsar_get_device_info");
  if (device < 0 || device >= impl(region)->workers())
    return fail(TSAR_ERR_INVALID, "tsar_get_device_info: device " + std::to_string(device) +
                                      " out of range (region has " +
                                      std::to_string(impl(region)->workers()) + ")");
  return guarded("tsar_get_device_info", [&] { *info = impl(region)->device_info(device); });
}

int tsar_set_time_per_iteration(tsar_region* region, int device, double seconds) {
  TSAR_REQUIRE(region, "tsar_set_time_per_iteration");
  return guarded("tsar_set_time_per_iteration",
                 [&] { impl(region)->set_time_per_iteration(device, seconds); });
}

int tsar_set_backoff(tsar_region* region, int passes) {
  TSAR_REQUIRE(region, "tsar_set_backoff");
  return guarded("tsar_set_backoff", [&] { impl(region)->set_backoff(passes); });
}

int tsar_get_schedule(const tsar_region* region, char* buf, size_t size) {
  TSAR_REQUIRE(region, "tsar_get_schedule");
  TSAR_REQUIRE(buf, "tsar_get_schedule");
  const std::string text = impl(region)->schedule().to_string();
  if (size < text.size() + 1)
    return fail(TSAR_ERR_INVALID, "tsar_get_schedule: buffer of " + std::to_string(size) +
                                      " bytes is too small (need " +
                                      std::to_string(text.size() + 1) + ")");
  std::memcpy(buf, text.c_str(), text.size() + 1);
  return TSAR_OK;
}

int tsar_next(tsar_region* region, int64_t n, int64_t* begin, int64_t* end) {
  const int w = worker_of(region, "tsar_next");
  if (w < 0) {
    if (begin != nullptr) *begin = 0;
    if (end != nullptr) *end = 0;
    return tsar_last_status();
  }
  try {
    return impl(region)->next(w, 0, n, begin, end);
  } catch (const std::exception& e) {  // planning ran out of memory: nothing was started
    if (begin != nullptr) *begin = 0;
    if (end != nullptr) *end = 0;
    return fail(TSAR_ERR_SYSTEM, std::string("tsar_next: ") + e.what());
  }
}

int tsar_next_range(tsar_region* region, int64_t first, int64_t end, int64_t* begin,
                    int64_t* end_out) {
  const int w = worker_of(region, "tsar_next_range");
  if (w < 0 || end < first) {
    if (begin != nullptr) *begin = first;
    if (end_out != nullptr) *end_out = first;
    return w < 0 ? tsar_last_status()
                 : fail(TSAR_ERR_INVALID, "tsar_next_range: end " + std::to_string(end) +
                                              " is before first " + std::to_string(first));
  }
  try {
    return impl(region)->next(w, first, end - first, begin, end_out);
  } catch (const std::exception& e) {  // planning ran out of memory: nothing was started
    if (begin != nullptr) *begin = first;
    if (end_out != nullptr) *end_out = first;
    return fail(TSAR_ERR_SYSTEM, std::string("tsar_next_range: ") + e.what());
  }
}

int tsar_loop(tsar_region* region) {
  const int w = worker_of(region, "tsar_loop");
  if (w < 0) return 0;
  int status = TSAR_OK;
  return impl(region)->loop(w, &status);
}

unsigned tsar_get_type(const tsar_region* region) {
  const int w = worker_of(region, "tsar_get_type");
  return w < 0 ? 0u : static_cast<unsigned>(impl(region)->device(w).kind());
}

int tsar_get_device(const tsar_region* region) {
  const int w = worker_of(region, "tsar_get_device");
  return w < 0 ? -1 : impl(region)->device(w).description().id;
}

int tsar_get_worker(const tsar_region* region) { return worker_of(region, "tsar_get_worker"); }

void* tsar_get_stream(const tsar_region* region) {
  const int w = worker_of(region, "tsar_get_stream");
  return w < 0 ? nullptr : impl(region)->device(w).launch_context().stream;
}

int tsar_cancel(tsar_region* region) {
  TSAR_REQUIRE(region, "tsar_cancel");
  return guarded("tsar_cancel", [&] { impl(region)->cancel(); });
}

int tsar_run(tsar_region* region, int64_t n, tsar_body_fn body, void* arg) {
  TSAR_REQUIRE(region, "tsar_run");
  TSAR_REQUIRE(body, "tsar_run");
  return guarded("tsar_run", [&] { impl(region)->run(0, n, body, arg); });
}

int tsar_run_range(tsar_region* region, int64_t first, int64_t end, tsar_body_fn body, void* arg) {
  TSAR_REQUIRE(region, "tsar_run_range");
  TSAR_REQUIRE(body, "tsar_run_range");
  if (end < first)
    return fail(TSAR_ERR_INVALID, "tsar_run_range: end " + std::to_string(end) +
                                      " is before first " + std::to_string(first));
  return guarded("tsar_run_range", [&] { impl(region)->run(first, end - first, body, arg); });
}

int tsar_reg_mem_desc(tsar_region* region, void* host, const tsar_mem_desc* desc) {
  TSAR_REQUIRE(region, "tsar_reg_mem");
  TSAR_REQUIRE(desc, "tsar_reg_mem");
  return guarded("tsar_reg_mem", [&] {
    impl(region)->memory().add(host, *desc, &impl(region)->registered_reductions());
  });
}

int tsar_reg_mem(tsar_region* region, void* host, size_t elem_size, size_t count, size_t halo,
                 int assoc, unsigned flags) {
  const tsar_mem_desc desc{elem_size, count, 1, 1, halo, assoc, flags};
  return tsar_reg_mem_desc(region, host, &desc);
}

int tsar_reg_mem_2d(tsar_region* region, void* host, size_t elem_size, size_t rows, size_t cols,
                    size_t row_stride, size_t halo, int assoc, unsigned flags) {
  const tsar_mem_desc desc{elem_size, rows, cols, row_stride, halo, assoc, flags};
  return tsar_reg_mem_desc(region, host, &desc);
}

int tsar_mem_layout_get(const tsar_region* region, const void* host, tsar_mem_layout* layout) {
  TSAR_REQUIRE(layout, "tsar_mem_layout_get");
  const int w = worker_of(region, "tsar_mem_layout_get");
  if (w < 0) return tsar_last_status();
  const tsar::core::Registration* reg = impl(region)->registered_memory().find(host);
  if (reg == nullptr)
    return fail(TSAR_ERR_UNKNOWN, "tsar_mem_layout_get: buffer is not registered with this region");
  return guarded("tsar_mem_layout_get", [&] {
    *layout = tsar::core::MemoryRegistry::view(*reg, impl(region)->device(w), w);
  });
}

void* tsar_mem(const tsar_region* region, const void* host) {
  tsar_mem_layout layout{};
  if (tsar_mem_layout_get(region, host, &layout) != TSAR_OK) return nullptr;
  if (layout.row_offset == 0 && layout.col_offset == 0) return layout.base;
  // An offset pointer, so the caller's element (r, c) is at [r * row_stride + c]. It may
  // point before the allocation (as the thesis's offset pointers do); it is only ever
  // indexed inside it. Computed on integers, since it leaves the allocation.
  const std::size_t elem = impl(region)->registered_memory().find(host)->desc.elem_size;
  const auto shift = static_cast<std::uintptr_t>(layout.row_offset) * layout.row_stride +
                     static_cast<std::uintptr_t>(layout.col_offset);
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(layout.base) - shift * elem);
}

int tsar_unreg_mem(tsar_region* region, const void* host) {
  TSAR_REQUIRE(region, "tsar_unreg_mem");
  return guarded("tsar_unreg_mem", [&] {
    impl(region)->write_back(host);  // resident rows reach the host before the copies go
    impl(region)->memory().remove(host);
  });
}

int tsar_retarget_mem(tsar_region* region, const void* old_host, void* new_host) {
  TSAR_REQUIRE(region, "tsar_retarget_mem");
  return guarded("tsar_retarget_mem", [&] {
    impl(region)->write_back(old_host);
    impl(region)->memory().retarget(old_host, new_host);
  });
}

int tsar_swap_mem(tsar_region* region, const void* a, const void* b) {
  TSAR_REQUIRE(region, "tsar_swap_mem");
  return guarded("tsar_swap_mem", [&] { impl(region)->memory().swap(a, b); });
}

int tsar_mem_invalidate(tsar_region* region, const void* host) {
  TSAR_REQUIRE(region, "tsar_mem_invalidate");
  return guarded("tsar_mem_invalidate", [&] { impl(region)->memory().invalidate(host); });
}

int tsar_mem_sync(tsar_region* region, const void* host) {
  TSAR_REQUIRE(region, "tsar_mem_sync");
  return guarded("tsar_mem_sync", [&] {
    if (impl(region)->registered_memory().find(host) == nullptr)
      throw Error(TSAR_ERR_UNKNOWN, "tsar_mem_sync: the buffer is not registered with this region");
    impl(region)->write_back(host);
  });
}

void* tsar_host_alloc(size_t bytes) {
  if (bytes == 0) return nullptr;
#if TSAR_HAVE_CUDA
  if (void* p = tsar::core::alloc_locked_host(bytes)) return p;
#endif
  constexpr std::size_t kAlign = 64;
  if (bytes > SIZE_MAX - kAlign) return nullptr;
  return std::aligned_alloc(kAlign, (bytes + kAlign - 1) / kAlign * kAlign);
}

void tsar_host_free(void* p) {
  if (p == nullptr) return;
#if TSAR_HAVE_CUDA
  if (tsar::core::free_locked_host(p)) return;
#endif
  std::free(p);
}

int tsar_data_attach(tsar_region* region, tsar_data* data) {
  TSAR_REQUIRE(region, "tsar_data_attach");
  TSAR_REQUIRE(data, "tsar_data_attach");
  if (impl(region)->in_pass())
    return fail(TSAR_ERR_STATE, "tsar_data_attach: the region is in a pass");
  return guarded("tsar_data_attach", [&] { impl(region)->memory().attach(data->env); });
}

int tsar_reg_reduction(tsar_region* region, void* result, const void* identity, size_t size,
                       tsar_combine_fn combine, void* ctx) {
  TSAR_REQUIRE(region, "tsar_reg_reduction");
  return guarded("tsar_reg_reduction", [&] {
    impl(region)->reductions().add(result, identity, size, combine, ctx,
                                   &impl(region)->registered_memory());
  });
}

void* tsar_reduction(const tsar_region* region, const void* result) {
  const int w = worker_of(region, "tsar_reduction");
  if (w < 0) return nullptr;
  const auto& reductions = impl(region)->registered_reductions();
  void* acc = reductions.accumulator(result, w);
  if (acc == nullptr) {
    fail(TSAR_ERR_UNKNOWN, "tsar_reduction: result is not a registered reduction");
    return nullptr;
  }
  const auto& device = impl(region)->device(w).description();
  if (device.host_memory) return acc;
  acc = reductions.device_accumulator(result, w);
  if (acc == nullptr)
    fail(TSAR_ERR_STATE, "tsar_reduction: " + device.key +
                             " has no accumulator yet: ask for it after tsar_next gave the "
                             "worker a range");
  return acc;
}

int tsar_unreg_reduction(tsar_region* region, const void* result) {
  TSAR_REQUIRE(region, "tsar_unreg_reduction");
  return guarded("tsar_unreg_reduction", [&] { impl(region)->reductions().remove(result); });
}

int64_t tsar_num_passes(const tsar_region* region) {
  if (region == nullptr) {
    fail(TSAR_ERR_NULL, "tsar_num_passes: region is NULL");
    return -1;
  }
  return impl(region)->passes();
}

int tsar_get_pass_stats(const tsar_region* region, int64_t pass, tsar_pass_stats* stats,
                        tsar_device_stats* devices, int capacity) {
  TSAR_REQUIRE(region, "tsar_get_pass_stats");
  return guarded("tsar_get_pass_stats",
                 [&] { impl(region)->pass_stats(pass, stats, devices, capacity); });
}

int tsar_write_trace(const tsar_region* region, const char* path) {
  TSAR_REQUIRE(region, "tsar_write_trace");
  TSAR_REQUIRE(path, "tsar_write_trace");
  return guarded("tsar_write_trace", [&] { impl(region)->write_trace(path); });
}

}  // extern "C"
