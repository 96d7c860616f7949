// SPDX-License-Identifier: BSD-3-Clause
// Out-of-sync communication metric (see outofsync_metric.hpp).
#include "symmer/analysis/outofsync_metric.hpp"

#include <algorithm>
#include <cmath>

#include "candidates.hpp"

namespace symmer::analysis {
namespace {

struct SyncPair {
  int sender = -1;  // local ranks
  int waiter = -1;
  double share = 0.0;  // out-of-sync time / window
};

// Local (sender, waiter) pairs whose out-of-sync time is at least `min_share` of the window.
std::vector<SyncPair> sync_pairs(const WindowSample& w, double min_share) {
  std::vector<SyncPair> pairs;
  const double d = static_cast<double>(w.duration_ns);
  if (d <= 0.0) return pairs;
  for (const auto& waiter : w.ranks)
    for (const auto& [peer, wait_ns] : waiter.late_sender_wait_local) {
      const RankWindow* sender = w.find_local(peer);
      if (sender == nullptr) continue;  // gone
      const double share = static_cast<double>(std::min(wait_ns, sender->outofsync_compute_ns)) / d;
      if (share >= min_share && share > 0.0)
        pairs.push_back({sender->local_rank, waiter.local_rank, share});
    }
  return pairs;
}

double mismatch(const WindowSample& w, int core_a, int core_b) {
  return std::max(0.0, std::abs(w.capability(core_a) - w.capability(core_b)) -
                           OutOfSyncMetric::kCapabilityTolerance);
}

int core_in(const std::map<int, int>& cores, int local_rank) {
  const auto it = cores.find(local_rank);
  return it == cores.end() ? -1 : it->second;
}

double model_gain(const WindowSample& w, std::span<const Move> moves) {
  const auto after = cores_after(w, moves);
  double gain = 0.0;
  for (const auto& p : sync_pairs(w, 0.0)) {
    const RankWindow* s = w.find_local(p.sender);
    const RankWindow* r = w.find_local(p.waiter);
    const double before = mismatch(w, s->core, r->core);
    if (before <= 0.0) continue;  // not a capability problem: no mapping fixes it
    const double now = mismatch(w, core_in(after, p.sender), core_in(after, p.waiter));
    gain += p.share * (before - now) / before;
  }
  return gain;
}

}  // namespace

MetricResult OutOfSyncMetric::evaluate(const MetricContext& context) const {
  const WindowSample& w = context.evidence;
  MetricResult result;
  const auto pairs = sync_pairs(w, kSymptomShare);
  nlohmann::json seen = nlohmann::json::array();
  std::vector<int> involved;
  double severity = 0.0;
  for (const auto& p : pairs) {
    const RankWindow* s = w.find_local(p.sender);
    const RankWindow* r = w.find_local(p.waiter);
    const double m = mismatch(w, s->core, r->core);
    severity = std::max(severity, p.share);
    seen.push_back({{"sender", p.sender},
                    {"waiter", p.waiter},
                    {"share", p.share},
                    {"sender_capability", w.capability(s->core)},
                    {"waiter_capability", w.capability(r->core)},
                    {"capability_caused", m > 0.0}});
    if (m > 0.0) {
      involved.push_back(p.sender);
      involved.push_back(p.waiter);
    }
  }
  // Waits on peers of other nodes: the symptom is real but the remedy lies there.
  nlohmann::json remote = nlohmann::json::array();
  const double d = std::max(static_cast<double>(w.duration_ns), 1.0);
  for (const auto& r : w.ranks)
    for (const auto& [node, ns] : r.late_sender_wait_node)
      if (static_cast<double>(ns) / d >= kSymptomShare)
        remote.push_back({{"waiter", r.local_rank},
                          {"remote_node", node},
                          {"share", static_cast<double>(ns) / d}});

  result.symptom.present = !pairs.empty();
  result.symptom.severity = severity;
  result.symptom.evidence = {{"pairs", seen}, {"remote_waits", remote}};
  if (involved.empty()) return result;

  const auto candidates = detail::candidate_moves(context, involved);
  result.proposals = detail::price_candidates(context, name(), candidates, model_gain, 1.0,
                                              [&](std::span<const Move>) {
                                                return nlohmann::json{{"pairs", seen}};
                                              });
  return result;
}

double OutOfSyncMetric::predict(const MetricContext& context, std::span<const Move> moves) const {
  return model_gain(context.evidence, moves);
}

}  // namespace symmer::analysis
