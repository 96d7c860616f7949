// SPDX-License-Identifier: BSD-3-Clause
// Communication idleness metric (see idleness_metric.hpp).
#include "symmer/analysis/idleness_metric.hpp"

#include <algorithm>

#include "candidates.hpp"
#include "symmer/analysis/compute_model.hpp"
#include "symmer/segment/report.hpp"

namespace symmer::analysis {
namespace {

double model_gain(const WindowSample& w, std::span<const Move> moves) {
  const ComputeModel model(w);
  return model.gain(cores_after(w, moves));
}

nlohmann::json rank_figures(const WindowSample& w) {
  const ComputeModel model(w);
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& r : w.ranks)
    ranks.push_back({{"rank", r.local_rank},
                     {"core", r.core},
                     {"capability", w.capability(r.core)},
                     {"compute_share", segment::compute_share(r.idle_ns, r.compute_ns)},
                     {"idle_share", segment::idle_share(r.idle_ns, r.compute_ns)},
                     {"compute_s", static_cast<double>(r.compute_ns) * 1e-9},
                     {"demand_s", model.demand(r.local_rank)}});
  return ranks;
}

}  // namespace

MetricResult IdlenessMetric::evaluate(const MetricContext& context) const {
  const WindowSample& w = context.evidence;
  MetricResult result;
  if (w.ranks.size() < 2 || w.duration_ns == 0) return result;

  const ComputeModel model(w);
  const double cp = model.critical_path();
  double mean = 0.0;
  for (const auto& r : w.ranks) mean += static_cast<double>(r.compute_ns) * 1e-9;
  mean /= static_cast<double>(w.ranks.size());
  const double severity = cp > 0.0 ? 1.0 - mean / cp : 0.0;
  result.symptom.present = severity >= kSymptomSeverity;
  result.symptom.severity = severity;
  result.symptom.evidence = {{"critical_path_s", cp},
                             {"mean_compute_s", mean},
                             {"comm_floor_s", model.comm_floor()},
                             {"capability_resolution", w.capability_resolution},
                             {"ranks", rank_figures(w)}};
  if (!result.symptom.present) return result;

  const auto candidates = detail::candidate_moves(context);
  result.proposals = detail::price_candidates(
      context, name(), candidates, model_gain, 1.0, [&](std::span<const Move> moves) {
        return nlohmann::json{{"critical_path_s", cp},
                              {"critical_path_after_s", model.critical_path(cores_after(w, moves))},
                              {"ranks", rank_figures(w)}};
      });
  return result;
}

double IdlenessMetric::predict(const MetricContext& context, std::span<const Move> moves) const {
  return model_gain(context.evidence, moves);
}

}  // namespace symmer::analysis
