// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// TSAR's internal error: a tsar_status with a message naming what was wrong. Thrown inside the
// library and turned into a status code plus tsar_last_error() at the C API boundary.

#include <new>
#include <stdexcept>
#include <string>

#include "tsar/tsar.h"

namespace tsar::core {

class Error : public std::runtime_error {
 public:
  Error(tsar_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  tsar_status status() const { return status_; }

 private:
  tsar_status status_;
};

/// Records a failure as the calling thread's last error (tsar_last_error/tsar_last_status).
void set_last_error(int status, const std::string& message);
/// Marks the calling thread's last call as successful (used by calls that return no status).
void clear_last_error();

/// C API helper: records a failure as the thread's last error and returns its status.
inline int fail(int status, const std::string& message) {
  set_last_error(status, message);
  return status;
}

/// C API helper: runs f; a thrown Error (or any exception) becomes the status and the
/// thread's last error, prefixed with the name of the call.
template <class F>
int guarded(const char* call, F&& f) {
  try {
    f();
    return TSAR_OK;
  } catch (const Error& e) {
    return fail(e.status(), std::string(call) + ": " + e.what());
  } catch (const std::bad_alloc&) {
    return fail(TSAR_ERR_SYSTEM, std::string(call) + ": out of memory");
  } catch (const std::exception& e) {
    return fail(TSAR_ERR_SYSTEM, std::string(call) + ": " + e.what());
  }
}

}  // namespace tsar::core
