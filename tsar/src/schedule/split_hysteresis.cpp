// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/split_hysteresis.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tsar::core {
namespace {

bool usable(double p) { return p > 0.0 && std::isfinite(p); }

}  // namespace

double payback_passes(std::int64_t passes) {
  return std::max(kPaybackPasses, 0.5 * static_cast<double>(passes));
}

bool times_settled(std::span<const std::int64_t> previous, const SplitCosts& costs) {
  // A device joining the split (none of `previous`) is not judged by its times: it would
  // never get the iterations that measure it.
  for (std::size_t j = 0; j < previous.size() && j < costs.settled.size(); ++j)
    if (previous[j] > 0 && costs.move_seconds[j] > 0.0 && !costs.settled[j]) return false;
  return true;
}

double predicted_pass_seconds(std::span<const std::int64_t> counts, const SplitCosts& costs) {
  double slowest = 0.0, pooled_count = 0.0, pooled_rate = 0.0;
  const std::int64_t total = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  std::int64_t at = 0;  // where device j's range begins
  for (std::size_t j = 0; j < counts.size(); at += counts[j], ++j) {
    if (counts[j] <= 0 || !usable(costs.tpi[j])) continue;
    const auto c = static_cast<double>(counts[j]);
    if (j < costs.pooled.size() && costs.pooled[j]) {
      pooled_count += c;
      pooled_rate += 1.0 / costs.tpi[j];
    } else {
      const int neighbours = (at > 0 ? 1 : 0) + (at + counts[j] < total ? 1 : 0);
      const double boundary = j < costs.boundary.size() ? costs.boundary[j] : 0.0;
      slowest = std::max(slowest, c * costs.tpi[j] + neighbours * boundary);
    }
  }
  return pooled_rate > 0.0 ? std::max(slowest, pooled_count / pooled_rate) : slowest;
}

double move_seconds(std::span<const std::int64_t> previous, std::span<const std::int64_t> proposed,
                    const SplitCosts& costs) {
  double seconds = 0.0;
  std::int64_t a = 0, b = 0;  // where each split's range of device j begins
  for (std::size_t j = 0; j < previous.size(); ++j) {
    const std::int64_t a_end = a + previous[j], b_end = b + proposed[j];
    const std::int64_t overlap = std::max<std::int64_t>(0, std::min(a_end, b_end) - std::max(a, b));
    const std::int64_t changed = previous[j] + proposed[j] - 2 * overlap;
    seconds += static_cast<double>(changed) * costs.move_seconds[j];
    a = a_end;
    b = b_end;
  }
  return seconds;
}

void entering_iterations(std::span<const std::int64_t> previous, std::span<const std::int64_t> next,
                         std::span<std::int64_t> out) {
  std::int64_t a = 0, b = 0;
  for (std::size_t j = 0; j < next.size(); ++j) {
    const std::int64_t a_end = a + previous[j], b_end = b + next[j];
    out[j] = next[j] - std::max<std::int64_t>(0, std::min(a_end, b_end) - std::max(a, b));
    a = a_end;
    b = b_end;
  }
}

bool keep_split_unless_it_pays(std::span<const std::int64_t> previous,
                               std::span<std::int64_t> proposed, const SplitCosts& costs,
                               SplitScratch& scratch) {
  const std::size_t n = proposed.size();
  if (previous.size() != n || costs.tpi.size() != n || costs.move_seconds.size() != n) return false;
  if (std::accumulate(previous.begin(), previous.end(), std::int64_t{0}) !=
      std::accumulate(proposed.begin(), proposed.end(), std::int64_t{0}))
    return false;
  for (std::size_t j = 0; j < n; ++j)
    if (previous[j] > 0 && !usable(costs.tpi[j])) return false;  // a device left the split
  const double cost = move_seconds(previous, proposed, costs);
  if (!(cost > 0.0)) return false;  // nothing travels: re-splitting is free
  const double before = predicted_pass_seconds(previous, costs);
  const double gain = before - predicted_pass_seconds(proposed, costs);
  if (times_settled(previous, costs) && gain > std::max(kNoiseFraction, costs.noise) * before &&
      gain * costs.payback > cost)
    return false;

  std::copy(previous.begin(), previous.end(), proposed.begin());
  // Runs of consecutive devices that move nothing re-split their part among themselves.
  for (std::size_t s = 0; s < n;) {
    if (costs.move_seconds[s] > 0.0) {
      ++s;
      continue;
    }
    std::size_t e = s;
    std::int64_t total = 0;
    while (e < n && !(costs.move_seconds[e] > 0.0)) total += previous[e++];
    if (total > 0)
      split_iterations(total, costs.tpi.subspan(s, e - s), proposed.subspan(s, e - s), scratch);
    s = e;
  }
  return true;
}

}  // namespace tsar::core
