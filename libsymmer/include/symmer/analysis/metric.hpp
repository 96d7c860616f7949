// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The metric plug-in interface. A metric looks at the evidence (a few consecutive windows),
// says whether its symptom is present, and proposes moves that would relieve it, each with a
// predicted gain and a confidence. It can also price any move set by its own model, so the
// planner can check that a move one metric wants does not cost more than it gains under the
// others (thesis 3.3: metrics are pluggable and prioritised).

#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "symmer/analysis/move.hpp"
#include "symmer/analysis/proposal.hpp"
#include "symmer/analysis/window_sample.hpp"

namespace symmer::topology {
class NodeModel;
}

namespace symmer::analysis {

/// What a metric sees at each evaluation.
struct MetricContext {
  const topology::NodeModel& node;
  /// The evidence span: the recent windows since the mapping last changed, as one window.
  const WindowSample& evidence;
  /// The older and newer halves of the span (nullptr when the span is a single window):
  /// a gain that shows in both halves alike is one to trust.
  const WindowSample* first_half = nullptr;
  const WindowSample* second_half = nullptr;
  /// Free places (keys) of the job's domain inside the allowed cores: targets for plain moves.
  std::vector<int> free_cores;
};

/// Whether a metric's symptom shows in the evidence, and how badly.
struct Symptom {
  bool present = false;
  double severity = 0.0;    ///< share of run time the symptom costs, by the metric's model
  nlohmann::json evidence;  ///< the figures that show it
};

struct MetricResult {
  Symptom symptom;
  std::vector<Proposal> proposals;  ///< best predicted gain first; may be empty
};

class Metric {
 public:
  virtual ~Metric() = default;
  /// Stable name used in configuration and logs: "idleness", "outofsync", "locality".
  virtual std::string_view name() const = 0;
  /// Looks for the symptom and proposes remedies (gain > 0 only, best first).
  virtual MetricResult evaluate(const MetricContext& context) const = 0;
  /// Predicted share of run time saved by `moves` under this metric's model over the
  /// evidence span; negative when the moves would make its symptom worse.
  virtual double predict(const MetricContext& context, std::span<const Move> moves) const = 0;
};

/// The metric called `name`, or nullptr for an unknown name.
std::unique_ptr<Metric> make_metric(std::string_view name);

/// Names make_metric() knows, in the default priority order.
std::span<const std::string_view> metric_names();

}  // namespace symmer::analysis
