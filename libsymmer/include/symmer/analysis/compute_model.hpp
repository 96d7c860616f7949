// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The compute model behind the idleness metric and whole assignments.
//
// A rank's compute demand is its compute time times its core's effective capability
// (capability-seconds: what it would need on a core of its own with nothing else on it). On
// another core it computes demand / capability, where ranks bound to one core split it. The
// job advances at the pace of its slowest rank (ranks meet at every exchange), so the time a
// window takes is its critical compute path plus the unavoidable communication time, taken as
// the least idle time of any rank.
//
// Capabilities are readings of /proc tick counts (WindowSample::capability_resolution): a rank's
// place and a target whose readings differ by no more than the resolution count as equal, and of
// a larger difference only the excess counts. A rank's own imbalance on equal cores then
// predicts no gain from moving it, however the ticks fell.

#include <cstdint>
#include <map>
#include <vector>

#include "symmer/analysis/window_sample.hpp"

namespace symmer::analysis {

class ComputeModel {
 public:
  /// Capability below this is treated as this (a core never computes at zero speed).
  static constexpr double kMinCapability = 0.05;

  explicit ComputeModel(const WindowSample& window);

  /// Compute demand of local rank `local_rank` in capability-seconds (0 if unknown).
  double demand(int local_rank) const;
  /// Predicted compute time (s) of every rank under `cores` (local rank -> core); ranks not
  /// in the map keep their current core.
  std::map<int, double> compute_times(const std::map<int, int>& cores) const;
  /// Predicted critical compute path (s) under `cores`.
  double critical_path(const std::map<int, int>& cores) const;
  /// Critical compute path (s) of the current mapping (the largest measured compute time).
  double critical_path() const;
  /// Unavoidable communication time (s): the least idle time of any rank.
  double comm_floor() const;
  /// Share of run time saved by going from the current mapping to `cores` (negative: lost).
  double gain(const std::map<int, int>& cores) const;

 private:
  /// Seconds `ns` of rank r's window, per unit of progress (compute_model.cpp).
  double per_progress(const RankWindow& r, std::uint64_t ns) const;

  const WindowSample& window_;
  std::map<int, double> scales_;  ///< per local rank: window seconds to progress
  std::map<int, double> demand_;
  std::map<int, int> current_;
};

}  // namespace symmer::analysis
