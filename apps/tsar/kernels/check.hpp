// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Comparing a kernel's result with its reference, and deterministic input data.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernel.hpp"

namespace tsar::kernels {

/// Compares n values: error = max |result - reference| / max(max |reference|, 1); ok when it
/// is at most `tolerance` and every value is finite. `what` names the array in the detail.
Check compare(const char* what, const double* result, const double* reference, std::size_t n,
              double tolerance);
/// Like compare, against one value for all n (STREAM's own check).
Check compare_to_value(const char* what, const double* result, std::size_t n, double value,
                       double tolerance);
/// Like compare for integers: ok when all are equal (error = share of differing values).
Check compare_exact(const char* what, const int* result, const int* reference, std::size_t n);
/// The worse of two checks (the first failing one, else the larger error).
Check worse(const Check& a, const Check& b);

/// A small deterministic generator (64-bit LCG): the same inputs on every machine.
class Lcg {
 public:
  explicit Lcg(std::uint64_t seed)
      : state_(seed * 6364136223846793005ULL + 1442695040888963407ULL) {}
  /// Uniform in [0, 1).
  double next() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state_ >> 11) * 0x1.0p-53;
  }

 private:
  std::uint64_t state_;
};

/// n values uniform in [lo, hi) from `seed`.
std::vector<double> uniform(std::size_t n, std::uint64_t seed, double lo = 0.0, double hi = 1.0);

}  // namespace tsar::kernels
