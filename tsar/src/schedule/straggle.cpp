// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/straggle.hpp"

#include <algorithm>

namespace tsar::core {

double straggle_ratio(std::span<const double> cpu_busy) {
  double most = 0.0, sum = 0.0;
  for (double b : cpu_busy) {
    most = std::max(most, b);
    sum += b;
  }
  if (cpu_busy.size() < 2 || !(sum > 0.0)) return 1.0;
  return most * static_cast<double>(cpu_busy.size()) / sum;
}

double smooth_straggle(double previous, double ratio) {
  const double r = std::clamp(ratio, 1.0, 3.0);
  return r >= previous ? r : 0.9 * previous + 0.1 * r;
}

double straggle_after_pass(double previous, std::span<const double> cpu_busy, std::int64_t pass) {
  return pass == 0 ? previous : smooth_straggle(previous, straggle_ratio(cpu_busy));
}

}  // namespace tsar::core
