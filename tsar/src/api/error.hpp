#pragma once
// TSAR's internal error: a tsar_status with a message naming what was wrong. Thrown inside the
// library and turned into a status code plus tsar_last_error() at the C API boundary.

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

}  // namespace tsar::core
