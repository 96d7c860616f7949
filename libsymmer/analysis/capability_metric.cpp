// SPDX-License-Identifier: BSD-3-Clause
// Capability metric (see capability_metric.hpp).
#include "symmer/analysis/capability_metric.hpp"

#include <algorithm>

#include "candidates.hpp"
#include "symmer/analysis/compute_model.hpp"
#include "symmer/segment/report.hpp"

namespace symmer::analysis {
namespace {

// Share of the window the rank computed (what a faster core would shorten). Silent time counts:
// a rank in a phase without MPI calls computes (or waits in one long call, where a move costs
// it nothing).
double busy_of_window(const WindowSample& w, const RankWindow& r) {
  if (w.duration_ns == 0) return 0.0;
  return std::min(
      1.0, static_cast<double>(r.compute_ns + r.silent_ns) / static_cast<double>(w.duration_ns));
}

double effective(const WindowSample& w, int place) {
  return std::max(ComputeModel::kMinCapability, w.capability(place));
}

bool degraded_rank(const WindowSample& w, const RankWindow& r) {
  return r.core >= 0 && busy_of_window(w, r) >= CapabilityMetric::kComputeBound &&
         w.capability(r.core) < CapabilityMetric::kDegraded;
}

double model_gain(const WindowSample& w, std::span<const Move> moves) {
  std::size_t degraded = 0;
  for (const auto& r : w.ranks) degraded += degraded_rank(w, r) ? 1 : 0;
  std::size_t helped = 0;
  double saved_sum = 0.0, worst = 0.0;
  for (const auto& m : moves) {
    const RankWindow* r = w.find_local(m.local_rank);
    if (r == nullptr || m.from_core < 0 || m.to_core < 0) continue;
    const double saved =
        busy_of_window(w, *r) * (1.0 - effective(w, m.from_core) / effective(w, m.to_core));
    if (saved > 0.0) {
      saved_sum += saved;
      ++helped;
    }
    worst = std::min(worst, saved);
  }
  return saved_sum / static_cast<double>(std::max<std::size_t>({1, degraded, helped})) + worst;
}

}  // namespace

MetricResult CapabilityMetric::evaluate(const MetricContext& context) const {
  const WindowSample& w = context.evidence;
  MetricResult result;
  if (w.core_capability.empty() || w.duration_ns == 0) return result;  // capability unknown
  std::vector<int> degraded;
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& r : w.ranks) {
    if (!degraded_rank(w, r)) continue;
    const double share = busy_of_window(w, r);
    const double capability = w.capability(r.core);
    degraded.push_back(r.local_rank);
    result.symptom.severity = std::max(result.symptom.severity, share * (1.0 - capability));
    ranks.push_back({{"rank", r.local_rank},
                     {"place", r.core},
                     {"capability", capability},
                     {"busy_of_window", share},
                     {"compute_share", segment::compute_share(r.idle_ns, r.compute_ns)}});
  }
  result.symptom.present = !degraded.empty();
  // The best a free place offers, so a "no better core" says what there was.
  double best_free = -1.0;
  for (int f : context.free_cores) best_free = std::max(best_free, w.capability(f));
  result.symptom.evidence = {{"ranks", ranks},
                             {"best_free_capability",
                              best_free >= 0 ? nlohmann::json(best_free) : nlohmann::json()}};
  if (degraded.empty()) return result;

  // Only moves to free places clearly better than the rank's own: one degraded rank, or
  // several at once.
  const auto contains = [](const auto& list, int x) {
    return std::find(list.begin(), list.end(), x) != list.end();
  };
  const auto remedy = [&](const Move& m) {
    return contains(degraded, m.local_rank) && contains(context.free_cores, m.to_core) &&
           w.capability(m.to_core) >= w.capability(m.from_core) + kBetterBy;
  };
  std::vector<std::vector<Move>> candidates;
  for (auto& moves : detail::candidate_moves(context, degraded))
    if (std::all_of(moves.begin(), moves.end(), remedy)) candidates.push_back(std::move(moves));
  result.proposals = detail::price_candidates(
      context, name(), candidates, model_gain, 1.0,
      [&](std::span<const Move> moves) {
        return nlohmann::json{{"ranks", ranks},
                              {"target_capability", w.capability(moves.front().to_core)}};
      },
      8, detail::Basis::kTime);
  return result;
}

double CapabilityMetric::predict(const MetricContext& context, std::span<const Move> moves) const {
  return model_gain(context.evidence, moves);
}

}  // namespace symmer::analysis
