// SPDX-License-Identifier: BSD-3-Clause
// Candidate enumeration and pricing shared by the metrics (see candidates.hpp).
#include "candidates.hpp"

#include <algorithm>
#include <limits>

#include "symmer/analysis/confidence.hpp"

namespace symmer::analysis::detail {
namespace {

// Share of run time each rank moved beyond the first must add to rank a proposal higher.
constexpr double kExtraRankGain = 0.01;

}  // namespace

std::vector<std::vector<Move>> candidate_moves(const MetricContext& context,
                                               std::span<const int> involves) {
  const auto& ranks = context.evidence.ranks;
  const auto wanted = [&](int local) {
    return involves.empty() || std::find(involves.begin(), involves.end(), local) != involves.end();
  };
  // Ranks exchange places of equal size, or move to a free place of their size.
  const auto size = [&](int key) { return context.evidence.place_cores(key).size(); };
  std::vector<std::vector<Move>> out;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const auto& a = ranks[i];
    if (a.core < 0) continue;
    for (std::size_t j = i + 1; j < ranks.size(); ++j) {
      const auto& b = ranks[j];
      if (b.core < 0 || b.core == a.core || size(a.core) != size(b.core)) continue;
      if (!wanted(a.local_rank) && !wanted(b.local_rank)) continue;
      out.push_back({{a.local_rank, a.core, b.core}, {b.local_rank, b.core, a.core}});
    }
    if (!wanted(a.local_rank)) continue;
    for (int f : context.free_cores)
      if (size(f) == size(a.core)) out.push_back({{a.local_rank, a.core, f}});
  }
  // Several slow ranks at once: where ranks wait for each other, moving one of two slow ranks
  // gains nothing while the other still holds the job back. The busiest ranks, in turn, each
  // to the most capable free place of its size left, if better than its own; every prefix of
  // two or more such moves is a candidate.
  std::vector<const RankWindow*> busiest;
  for (const auto& r : ranks)
    if (r.core >= 0 && wanted(r.local_rank)) busiest.push_back(&r);
  std::stable_sort(busiest.begin(), busiest.end(), [](const RankWindow* a, const RankWindow* b) {
    return a->compute_ns + a->silent_ns > b->compute_ns + b->silent_ns;
  });
  std::vector<int> free(context.free_cores.begin(), context.free_cores.end());
  std::stable_sort(free.begin(), free.end(), [&](int a, int b) {
    return context.evidence.capability(a) > context.evidence.capability(b);
  });
  std::vector<Move> group;
  for (const RankWindow* r : busiest) {
    const auto f = std::find_if(free.begin(), free.end(), [&](int c) {
      return size(c) == size(r->core) &&
             context.evidence.capability(c) > context.evidence.capability(r->core);
    });
    if (f == free.end()) continue;
    group.push_back({r->local_rank, r->core, *f});
    free.erase(f);
    if (group.size() >= 2) out.push_back(group);
  }
  return out;
}

std::vector<Proposal> price_candidates(
    const MetricContext& context, std::string_view metric,
    const std::vector<std::vector<Move>>& candidates, const GainFunction& gain,
    double extra_confidence, const std::function<nlohmann::json(std::span<const Move>)>& evidence,
    std::size_t limit, Basis basis) {
  const WindowSample& w = context.evidence;

  std::vector<Proposal> out;
  for (const auto& moves : candidates) {
    const double g = gain(w, moves);
    if (!(g > 0.0)) continue;
    // How much of the span the moved ranks' figures cover. Only theirs: a rank that finished
    // its share and waits in a long final call (its time shows only when the call returns)
    // says nothing about these moves, and must not silence every proposal.
    double least_coverage = moves.empty() ? 0.0 : 1.0;
    for (const auto& m : moves)
      if (const RankWindow* r = w.find_local(m.local_rank))
        least_coverage = std::min(least_coverage, coverage(*r, w, basis == Basis::kTime));
    std::optional<double> g1;
    std::optional<double> g2;
    if (context.first_half != nullptr && context.second_half != nullptr) {
      g1 = gain(*context.first_half, moves);
      g2 = gain(*context.second_half, moves);
    }
    double least_calls = std::numeric_limits<double>::max();
    for (const auto& m : moves)
      if (const RankWindow* r = w.find_local(m.local_rank))
        least_calls = std::min(least_calls, static_cast<double>(r->calls));
    if (moves.empty()) least_calls = 0;

    Proposal p;
    p.metric = std::string(metric);
    p.moves = moves;
    p.gain = g;
    p.gain_s = g * w.duration_s();
    const double calls_confidence =
        basis == Basis::kTime ? 1.0 : count_confidence(least_calls, 1.0);
    p.confidence =
        least_coverage * calls_confidence * split_half_agreement(g1, g2) * extra_confidence;
    p.evidence = evidence(moves);
    p.evidence["coverage"] = least_coverage;
    if (g1 && g2) p.evidence["gain_halves"] = {*g1, *g2};
    out.push_back(std::move(p));
  }
  // Best first; every rank moved beyond the first must buy kExtraRankGain more. A swap puts
  // a rank on the core the other left: where a free core offers the same predicted gain
  // (the model prices compute only), the single move leaves nobody on the bad core, takes
  // one re-bind instead of a staged handshake, and disturbs one rank instead of two.
  const auto rank_key = [](const Proposal& p) {
    const double extra = p.moves.empty() ? 0.0 : static_cast<double>(p.moves.size() - 1);
    return p.gain - kExtraRankGain * extra;
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const Proposal& a, const Proposal& b) { return rank_key(a) > rank_key(b); });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace symmer::analysis::detail
