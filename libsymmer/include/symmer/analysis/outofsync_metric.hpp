// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Out-of-sync communication (thesis 3.2.2 symptom 2, 3.3.1): a rank computes while its sends
// are still incomplete, and its peer waits for that data through the whole compute phase.
// It happens when the two sit on cores of different effective capability; the remedy puts
// communicating peers on cores of similar capability.
//
// Model: for each local pair (sender S, waiter W) the out-of-sync time is
//   e = min(W's late-sender wait on S, S's out-of-sync compute) / window,
// and the share of it a mapping removes is the share of the capability mismatch
// max(0, |cap S - cap W| - kCapabilityTolerance) it removes. Peers on other nodes cannot be
// moved from here; their waits are reported as evidence only.

#include "symmer/analysis/metric.hpp"

namespace symmer::analysis {

class OutOfSyncMetric final : public Metric {
 public:
  /// A pair shows the symptom when out-of-sync time is at least this share of the window.
  static constexpr double kSymptomShare = 0.05;
  /// Capability differences below this do not desynchronise peers.
  static constexpr double kCapabilityTolerance = 0.05;

  std::string_view name() const override { return "outofsync"; }
  MetricResult evaluate(const MetricContext& context) const override;
  double predict(const MetricContext& context, std::span<const Move> moves) const override;
};

}  // namespace symmer::analysis
