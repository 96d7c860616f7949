// SPDX-License-Identifier: BSD-3-Clause
// tsar/error.hpp - the exception the C++ API (tsar.hpp) throws for a failed TSAR call.
#ifndef TSAR_ERROR_HPP
#define TSAR_ERROR_HPP

#include <stdexcept>
#include <string>

#include "tsar/status.h"

namespace tsar {

/// A TSAR call failed. status() is its tsar_status, what() names what was wrong.
class Error : public std::runtime_error {
 public:
  Error(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const noexcept { return status_; }

 private:
  int status_;
};

namespace detail {
inline void check(int status) {
  if (status != TSAR_OK) throw Error(status, tsar_last_error());
}
}  // namespace detail

}  // namespace tsar

#endif  // TSAR_ERROR_HPP
