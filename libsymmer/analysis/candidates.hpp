// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Internal: the move sets metrics consider (every swap of two ranks on different cores and
// every move of a rank to a free core) and how a priced candidate becomes a Proposal.

#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "symmer/analysis/metric.hpp"

namespace symmer::analysis::detail {

/// A model's gain for a move set on one window (share of run time).
using GainFunction = std::function<double(const WindowSample&, std::span<const Move>)>;

/// Every swap between two ranks with known, different cores, every move of a rank to a free
/// core, then group moves: the busiest ranks in turn, each to the most capable free place of
/// its size left when that beats its own, every prefix of two or more. `involves` (if set)
/// keeps only sets that move at least one of those ranks (groups: only those ranks).
std::vector<std::vector<Move>> candidate_moves(const MetricContext& context,
                                               std::span<const int> involves = {});

/// What a metric's figures rest on: the timing of MPI calls (the moved ranks' calls in the span
/// count toward confidence; time they spent silent covers nothing), or time on their cores
/// (capability: a rank that makes no call still computes, and its silent time is evidence).
enum class Basis { kCalls, kTime };

/// Prices each candidate with `gain` on the evidence span and on its two halves, keeps those
/// with positive gain, and returns at most `limit` proposals, best first (by gain less 1% of
/// run time for each rank moved beyond the first: of equal gains, the one moving fewer ranks).
/// Confidence is the least coverage of a moved rank (coverage(), counting silent time on the
/// time basis), times count_confidence(least calls of a moved rank, 1) on the calls basis,
/// times the split-half agreement, times `extra_confidence`. `evidence` fills each proposal's
/// evidence (it may add to the fields set here: gain_halves and coverage).
std::vector<Proposal> price_candidates(
    const MetricContext& context, std::string_view metric,
    const std::vector<std::vector<Move>>& candidates, const GainFunction& gain,
    double extra_confidence, const std::function<nlohmann::json(std::span<const Move>)>& evidence,
    std::size_t limit = 8, Basis basis = Basis::kCalls);

}  // namespace symmer::analysis::detail
