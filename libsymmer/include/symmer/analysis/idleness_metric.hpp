// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Communication idleness (thesis 3.2.2 symptom 1, 3.3.1): ranks with a high compute share on
// a low-capability core make their peers idle. The remedy puts compute demand on capability:
// swap the busiest rank with an idle one on a better core, or move it to a free better core.
// Gains come from the ComputeModel (critical compute path before and after).

#include "symmer/analysis/metric.hpp"

namespace symmer::analysis {

class IdlenessMetric final : public Metric {
 public:
  /// The symptom is reported when ranks leave at least this share of the critical path
  /// unused on average (1 - mean compute / max compute).
  static constexpr double kSymptomSeverity = 0.10;

  std::string_view name() const override { return "idleness"; }
  MetricResult evaluate(const MetricContext& context) const override;
  double predict(const MetricContext& context, std::span<const Move> moves) const override;
};

}  // namespace symmer::analysis
