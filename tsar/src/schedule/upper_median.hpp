// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The median the probes and the planner compare samples by: the middle sample, of an even
// count the larger of the two in the middle, found without sorting them all.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace tsar::core {

/// The element at v.size() / 2 in sorted order. Reorders `v`, which must not be empty.
inline double upper_median(std::vector<double>& v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace tsar::core
