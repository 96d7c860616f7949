// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/cpu_split_hold.hpp"

#include <cmath>

namespace tsar::core {

bool hold_cpu_split(std::span<const std::int64_t> previous, std::span<std::int64_t> proposed,
                    std::span<const double> tpi, std::span<const unsigned char> pooled,
                    double band) {
  const std::size_t n = proposed.size();
  if (previous.size() != n || tpi.size() != n || pooled.size() != n) return false;
  double iterations = 0.0, rate = 0.0;
  int members = 0;
  for (std::size_t j = 0; j < n; ++j) {
    if (!pooled[j]) {
      if (previous[j] != proposed[j]) return false;  // the cores' total moved
      continue;
    }
    if (!(tpi[j] > 0.0) || !std::isfinite(tpi[j])) return false;
    iterations += static_cast<double>(previous[j]);
    rate += 1.0 / tpi[j];
    ++members;
  }
  if (members < 2) return false;
  const double limit = (1.0 + band) * iterations / rate;
  for (std::size_t j = 0; j < n; ++j)
    if (pooled[j] && static_cast<double>(previous[j]) * tpi[j] > limit) return false;
  for (std::size_t j = 0; j < n; ++j)
    if (pooled[j]) proposed[j] = previous[j];
  return true;
}

}  // namespace tsar::core
