// SPDX-License-Identifier: BSD-3-Clause
// Compute demand and critical path (see compute_model.hpp).
#include "symmer/analysis/compute_model.hpp"

#include <algorithm>
#include <limits>

namespace symmer::analysis {
namespace {

// Ranks bound to one core split its capability.
std::map<int, int> occupancy(const std::map<int, int>& cores) {
  std::map<int, int> count;
  for (const auto& [rank, core] : cores)
    if (core >= 0) ++count[core];
  return count;
}

double effective(double capability, const std::map<int, int>& occ, int core) {
  const auto it = occ.find(core);
  const int sharers = it == occ.end() ? 1 : std::max(1, it->second);
  return std::max(ComputeModel::kMinCapability, capability / sharers);
}

// The capability of place `to` for a rank now on `from`: readings that differ by no more than
// their resolution may be of equal cores and count as equal; of a larger difference only the
// excess counts. Noise in the figures then predicts neither gain nor loss.
double capability_from(const WindowSample& w, int from, int to) {
  const double now = w.capability(from);
  const double there = w.capability(to);
  const double r = w.capability_resolution;
  if (there > now + r) return there - r;
  if (there < now - r) return there + r;
  return now;
}

// Ranks that exchange messages in the window advance together: each waits for the others'
// data every iteration, however many calls its own path through an iteration makes (a sender
// that posts, waits and receives a token makes more than one whose receiver was ready). Groups
// that exchange nothing may not: independent pairs compute all through a window alike, and per
// call the slow pair shows. So a rank's figures are scaled by its group's calls, not its own:
// every group to the mean calls of the ranks with calls, and lockstep jobs keep their window
// figures. Returns, per local rank, what its window seconds are multiplied by (0: a rank
// without calls, inside one long call, has no figures).
std::map<int, double> progress_scales(const WindowSample& w) {
  std::map<int, int> group;  // local rank -> representative (union-find)
  for (const auto& r : w.ranks) group[r.local_rank] = r.local_rank;
  const auto find = [&](int x) {
    while (group[x] != x) x = group[x] = group[group[x]];
    return x;
  };
  const auto join = [&](int a, int b) {
    if (group.count(a) == 0 || group.count(b) == 0) return;  // a peer gone
    group[find(a)] = find(b);
  };
  for (const auto& r : w.ranks) {
    for (const auto& [peer, bytes] : r.bytes_to_local)
      if (bytes > 0) join(r.local_rank, peer);
    for (const auto& [peer, ns] : r.late_sender_wait_local)
      if (ns > 0) join(r.local_rank, peer);
  }
  std::map<int, std::pair<double, int>> calls;  // representative -> calls, ranks with calls
  double total = 0.0;
  int with_calls = 0;
  for (const auto& r : w.ranks) {
    if (r.calls == 0) continue;
    auto& [sum, n] = calls[find(r.local_rank)];
    sum += static_cast<double>(r.calls);
    ++n;
    total += static_cast<double>(r.calls);
    ++with_calls;
  }
  std::map<int, double> scales;
  for (const auto& r : w.ranks) {
    if (r.calls == 0) {
      scales[r.local_rank] = 0.0;
      continue;
    }
    const auto& [sum, n] = calls[find(r.local_rank)];
    scales[r.local_rank] = (total / with_calls) / (sum / n);
  }
  return scales;
}

}  // namespace

ComputeModel::ComputeModel(const WindowSample& window)
    : window_(window), scales_(progress_scales(window)) {
  for (const auto& r : window.ranks) current_[r.local_rank] = r.core;
  const auto occ = occupancy(current_);
  for (const auto& r : window.ranks)
    demand_[r.local_rank] =
        per_progress(r, r.compute_ns) * effective(window.capability(r.core), occ, r.core);
}

double ComputeModel::per_progress(const RankWindow& r, std::uint64_t ns) const {
  const auto it = scales_.find(r.local_rank);
  return static_cast<double>(ns) * 1e-9 * (it == scales_.end() ? 0.0 : it->second);
}

double ComputeModel::demand(int local_rank) const {
  const auto it = demand_.find(local_rank);
  return it == demand_.end() ? 0.0 : it->second;
}

std::map<int, double> ComputeModel::compute_times(const std::map<int, int>& cores) const {
  std::map<int, int> mapping = current_;
  for (const auto& [rank, core] : cores) mapping[rank] = core;
  const auto occ = occupancy(mapping);
  std::map<int, double> times;
  for (const auto& [rank, d] : demand_) {
    const int core = mapping[rank];
    times[rank] = d / effective(capability_from(window_, current_.at(rank), core), occ, core);
  }
  return times;
}

double ComputeModel::critical_path(const std::map<int, int>& cores) const {
  double cp = 0.0;
  for (const auto& [rank, t] : compute_times(cores)) cp = std::max(cp, t);
  return cp;
}

double ComputeModel::critical_path() const {
  double cp = 0.0;
  for (const auto& r : window_.ranks) cp = std::max(cp, per_progress(r, r.compute_ns));
  return cp;
}

double ComputeModel::comm_floor() const {
  if (window_.ranks.empty()) return 0.0;
  double floor = std::numeric_limits<double>::max();
  for (const auto& r : window_.ranks)
    if (r.calls > 0) floor = std::min(floor, per_progress(r, r.idle_ns));
  return floor == std::numeric_limits<double>::max() ? 0.0 : floor;
}

double ComputeModel::gain(const std::map<int, int>& cores) const {
  // Compare model against model, so a mapping that changes nothing predicts exactly zero.
  const double before = critical_path(current_);
  const double total = before + comm_floor();
  if (total <= 0.0) return 0.0;
  return (before - critical_path(cores)) / total;
}

}  // namespace symmer::analysis
