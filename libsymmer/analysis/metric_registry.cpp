// SPDX-License-Identifier: BSD-3-Clause
// Metric names -> implementations (see metric.hpp).
#include <array>

#include "symmer/analysis/capability_metric.hpp"
#include "symmer/analysis/idleness_metric.hpp"
#include "symmer/analysis/locality_metric.hpp"
#include "symmer/analysis/metric.hpp"
#include "symmer/analysis/outofsync_metric.hpp"

namespace symmer::analysis {

std::unique_ptr<Metric> make_metric(std::string_view name) {
  if (name == "idleness") return std::make_unique<IdlenessMetric>();
  if (name == "outofsync") return std::make_unique<OutOfSyncMetric>();
  if (name == "locality") return std::make_unique<LocalityMetric>();
  if (name == "capability") return std::make_unique<CapabilityMetric>();
  return nullptr;
}

std::span<const std::string_view> metric_names() {
  static constexpr std::array<std::string_view, 4> kNames = {"idleness", "outofsync", "locality",
                                                             "capability"};
  return kNames;
}

}  // namespace symmer::analysis
