// SPDX-License-Identifier: BSD-3-Clause
#include "api/error.hpp"

namespace tsar::core {
namespace {
thread_local int last_status = TSAR_OK;
thread_local std::string last_message;
}  // namespace

void set_last_error(int status, const std::string& message) {
  last_status = status;
  last_message = message;
}

void clear_last_error() {
  if (last_status != TSAR_OK) {
    last_status = TSAR_OK;
    last_message.clear();
  }
}

}  // namespace tsar::core

extern "C" {

const char* tsar_status_string(int status) {
  switch (status) {
    case TSAR_OK:
      return "success";
    case TSAR_ERR_NULL:
      return "null pointer argument";
    case TSAR_ERR_INVALID:
      return "invalid argument";
    case TSAR_ERR_SCHEDULE:
      return "bad schedule";
    case TSAR_ERR_DEVICES:
      return "bad or missing devices";
    case TSAR_ERR_REGISTERED:
      return "already registered";
    case TSAR_ERR_UNKNOWN:
      return "not registered";
    case TSAR_ERR_THREADS:
      return "caller is not a worker of the region";
    case TSAR_ERR_STATE:
      return "not allowed in the region's current state";
    case TSAR_ERR_CANCELED:
      return "pass canceled";
    case TSAR_ERR_IO:
      return "file could not be read or written";
    case TSAR_ERR_SYSTEM:
      return "system error";
    case TSAR_ERR_UNSUPPORTED:
      return "unsupported by this device kind or build";
    default:
      return "unknown status code";
  }
}

const char* tsar_last_error(void) { return tsar::core::last_message.c_str(); }

int tsar_last_status(void) { return tsar::core::last_status; }

}  // extern "C"
