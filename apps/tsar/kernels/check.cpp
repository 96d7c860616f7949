// SPDX-License-Identifier: BSD-3-Clause
#include "check.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace tsar::kernels {

Check compare(const char* what, const double* result, const double* reference, std::size_t n,
              double tolerance) {
  Check c;
  c.tolerance = tolerance;
  double scale = 1.0;
  for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(reference[i]));
  double worst = 0.0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool finite = std::isfinite(result[i]) && std::isfinite(reference[i]);
    const double d = finite ? std::fabs(result[i] - reference[i]) : INFINITY;
    if (d > worst) {
      worst = d;
      at = i;
    }
  }
  c.error = worst / scale;
  c.ok = c.error <= tolerance;
  if (n > 0)
    c.detail = std::string(what) + "[" + std::to_string(at) + "] = " + std::to_string(result[at]) +
               ", reference " + std::to_string(reference[at]);
  return c;
}

Check compare_to_value(const char* what, const double* result, std::size_t n, double value,
                       double tolerance) {
  double worst = 0.0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::isfinite(result[i]) ? std::fabs(result[i] - value) : INFINITY;
    if (d > worst) {
      worst = d;
      at = i;
    }
  }
  Check c;
  c.tolerance = tolerance;
  c.error = worst / std::max(1.0, std::fabs(value));
  c.ok = c.error <= tolerance;
  if (n > 0)
    c.detail = std::string(what) + "[" + std::to_string(at) + "] = " + std::to_string(result[at]) +
               ", reference " + std::to_string(value);
  return c;
}

Check compare_exact(const char* what, const int* result, const int* reference, std::size_t n) {
  Check c;
  std::size_t differ = 0, first = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (result[i] != reference[i]) {
      if (differ++ == 0) first = i;
    }
  }
  c.error = n > 0 ? static_cast<double>(differ) / static_cast<double>(n) : 0.0;
  c.ok = differ == 0;
  if (!c.ok)
    c.detail = std::string(what) + ": " + std::to_string(differ) + " of " + std::to_string(n) +
               " differ, first at " + std::to_string(first) + " (" + std::to_string(result[first]) +
               ", reference " + std::to_string(reference[first]) + ")";
  return c;
}

Check worse(const Check& a, const Check& b) {
  if (!a.ok) return a;
  if (!b.ok) return b;
  return a.error / std::max(a.tolerance, 1e-300) >= b.error / std::max(b.tolerance, 1e-300) ? a : b;
}

std::vector<double> uniform(std::size_t n, std::uint64_t seed, double lo, double hi) {
  Lcg g(seed);
  std::vector<double> v(n);
  for (auto& x : v) x = lo + (hi - lo) * g.next();
  return v;
}

}  // namespace tsar::kernels
