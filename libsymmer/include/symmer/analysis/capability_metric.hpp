// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Capability (docs/architecture.md symptom 4, beyond the thesis): a compute-bound rank on a
// degraded place (cores whose capability interrupts, steal or foreign processes took) runs
// slower even when no peer waits for it: a job of one rank, independent ranks, the last stage
// of a pipeline. The remedy moves it to a free place of its size in the job's domain that
// offers more capability.
//
// Model: each rank's own compute time, as if it ran alone. Moving rank r from capability a to
// b saves it compute_share_r * (1 - a / b) of the run. A move set's gain is the mean saving over
// the job's degraded ranks (or over the ranks it helps, if more), less the largest loss of a
// moved rank: the job ends with its last rank, so fixing one of two degraded ranks is half the
// remedy, and a set that moves both is preferred (ranks that wait for each other are the
// idleness metric's to price).

#include "symmer/analysis/metric.hpp"

namespace symmer::analysis {

class CapabilityMetric final : public Metric {
 public:
  /// A rank computing at least this share of the window is compute-bound.
  static constexpr double kComputeBound = 0.5;
  /// A place whose capability is below this is degraded.
  static constexpr double kDegraded = 0.85;
  /// A target must offer at least this much more capability than the rank's place (noise in
  /// the /proc figures must not move ranks between equal cores).
  static constexpr double kBetterBy = 0.1;

  std::string_view name() const override { return "capability"; }
  MetricResult evaluate(const MetricContext& context) const override;
  double predict(const MetricContext& context, std::span<const Move> moves) const override;
};

}  // namespace symmer::analysis
