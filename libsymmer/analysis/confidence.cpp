// SPDX-License-Identifier: BSD-3-Clause
// Confidence rules shared by the metrics (see confidence.hpp).
#include "symmer/analysis/confidence.hpp"

#include <algorithm>

#include "symmer/analysis/window_sample.hpp"

namespace symmer::analysis {

double split_half_agreement(std::optional<double> first, std::optional<double> second) {
  if (!first || !second) return 0.5;
  if (*first <= 0.0 || *second <= 0.0) return 0.0;
  return std::min(*first, *second) / std::max(*first, *second);
}

double count_confidence(double n, double half_point) {
  if (n <= 0.0) return 0.0;
  return n / (n + half_point);
}

double coverage(const RankWindow& rank, const WindowSample& window, bool with_silent) {
  if (window.duration_ns == 0) return 0.0;
  const double covered =
      static_cast<double>(rank.idle_ns + rank.compute_ns + (with_silent ? rank.silent_ns : 0));
  return std::clamp(covered / static_cast<double>(window.duration_ns), 0.0, 1.0);
}

}  // namespace symmer::analysis
