// SPDX-License-Identifier: BSD-3-Clause
// Metric names -> implementations (see metric.hpp).
#include <array>

#include "symmer/analysis/idleness_metric.hpp"
#include "symmer/analysis/locality_metric.hpp"
#include "symmer/analysis/metric.hpp"
#include "symmer/analysis/outofsync_metric.hpp"

namespace symmer::analysis {

std::unique_ptr<Metric> make_metric(std::string_view name) {
  if (name == "idleness") return std::make_unique<IdlenessMetric>();
  if (name == "outofsync") return std::make_unique<OutOfSyncMetric>();
  if (name == "locality") return std::make_unique<LocalityMetric>();
  return nullptr;
}

std::span<const std::string_view> metric_names() {
  static constexpr std::array<std::string_view, 3> kNames = {"idleness", "outofsync", "locality"};
  return kNames;
}

}  // namespace symmer::analysis
