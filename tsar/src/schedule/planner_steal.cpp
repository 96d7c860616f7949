// SPDX-License-Identifier: BSD-3-Clause
// Stealing across the accelerator boundary (planner.hpp): an accelerator whose own range is
// done takes over pieces of what remains of the cores' ranges, so a pass ends when its work
// ends, not when the slowest core ends the share planned for it. A split fixed before the pass
// cannot absorb a slow-down that starts after it was planned: in one k-means pass 7 of 15 cores
// ran 3-4x slower while the GPU, done with its rows, waited at the barrier
// (docs/results/tsar/pass-trace-kmeans/2026-11-26-h100-4955a59.txt).
#include <algorithm>
#include <cmath>
#include <limits>

#include "schedule/planner.hpp"

namespace tsar::core {

bool PassPlanner::plan_thieves(const SubPassPlan& plan) {
  std::fill(share_thief_.begin(), share_thief_.end(), 0);
  // Where the cores balance their share by stealing, and only once the planner can tell
  // whether a piece pays: the CPU side's time and the thief's are measured (cold, no steal).
  if (!accelerator_stealing_ || !steal_allowed_ || share_mode_ != ShareMode::kSteal ||
      !cpu_side_.measured())
    return false;
  // The owners' planned time per iteration (the CPU side's measured rate shared out among its
  // cores), the fastest one's: a piece then pays against whichever owner it comes from. A
  // team takes its range whole and is never stolen from (share_piece).
  double owner = std::numeric_limits<double>::infinity();
  for (const std::size_t w : cpu_workers_)
    if (cores(w) == 1 && plan.counts[w] > 0) owner = std::min(owner, times_[w]);
  if (!std::isfinite(owner)) return false;
  bool any = false;
  for (const std::size_t w : accelerators_) {
    // Its time is learned from its own range: one it has none of this sub-pass is not a thief.
    if (plan.counts[w] <= 0 || sitting_out_[w] || !estimators_[w].measured()) continue;
    const std::int64_t piece = steal_piece(w, owner);
    if (piece <= 0) continue;
    share_thief_[w] = 1;
    share_piece_[w] = piece;
    any = true;
  }
  return any;
}

std::int64_t PassPlanner::steal_piece(std::size_t w, double owner_tpi) const {
  // A piece of k iterations pays when the accelerator finishes it, copies included, before
  // its owner would:  fixed + k (t + move) < k owner_tpi, where
  //   t      its time per iteration, learned on its own ranges: its compute and the copies of
  //          its rows' data every pass, with its launch and wait spread over the range -- more
  //          than a piece's part that grows with k;
  //   move   copying in the piece's rows of persistent inputs, which its own range holds;
  //   fixed  what a piece costs whatever its size: as measured on the pieces it stole
  //          (learn_piece_cost), and until then a link latency for each of its copies and one
  //          for its launch and wait, and its halo rows (a boundary's copies);
  //   owner_tpi  the owner's planned time: an owner slowed since the plan makes it pay sooner.
  const double t = estimators_[w].estimate();
  const double gain = owner_tpi - (t + move_seconds_[w]);
  if (!(gain > 0.0) || !(t > 0.0)) return 0;
  const double linked =
      host_memory_[w] ? 0.0
                      : (range_copies_ + 1) * devices_[w]->link_latency() + boundary_seconds_[w];
  const double fixed = std::max(linked, piece_seconds_[w]);
  // As for the cores' pieces: none so short that handing it out costs more than it saves.
  const double least = std::max(fixed / gain, kMinSharePieceSeconds / t);
  return static_cast<std::int64_t>(std::floor(std::min(1e15, least))) + 1;
}

void PassPlanner::learn_piece_cost(std::size_t w, const WorkerSample& s) {
  // What a piece costs beyond its rows' time (t + move, as steal_piece counts it) is what its
  // launch, staging and wait cost, and no model of the device says how much: a GPU's OpenMP
  // target region for one row of GEMM took some 23 ms more than the row, while a link latency
  // said microseconds, and every pass with a stolen piece ran slower than those without
  // (docs/results/tsar/thief-piece-cost/2026-11-28-h100-7843084.txt). The median of the last
  // kPieceSamples passes' cost a piece: one pass's spike does not stop the stealing.
  const double rows =
      static_cast<double>(s.piece_iterations) * (estimators_[w].estimate() + move_seconds_[w]);
  const double each = std::max(0.0, s.piece_busy - rows) / static_cast<double>(s.pieces);
  auto& samples = piece_samples_[w];
  samples[static_cast<std::size_t>(piece_sampled_[w]++) % kPieceSamples] = each;
  const std::size_t count =
      std::min<std::size_t>(static_cast<std::size_t>(piece_sampled_[w]), kPieceSamples);
  std::array<double, kPieceSamples> sorted = samples;
  std::sort(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(count));
  piece_seconds_[w] = sorted[count / 2];
}

}  // namespace tsar::core
