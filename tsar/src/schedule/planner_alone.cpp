// SPDX-License-Identifier: BSD-3-Clause
// Passes too short to share: the leader runs them alone (planner.hpp).
//
// Sharing a pass among the cores costs a fixed time whatever its length: waking the workers,
// their reading of the plan, the barrier's arrivals. On a pass of a few microseconds --
// Gram-Schmidt's normalisation of one column, 2n such passes a run -- that cost is most of
// the pass, and the leader alone would be done before the others are awake. So a CPU-only
// region predicts both ways from what it measured:
//
//   shared:  what its shared passes cost beyond their longest worker's busy time
//            (share_cost_), plus n over the cores' summed rate;
//   alone:   what its alone passes cost beyond the leader's busy time (alone_cost_, 0 until
//            one ran), plus n times the leader's time per iteration;
//
// and runs the pass the way predicted to be faster by kAloneMargin, keeping its way
// otherwise. Both predictions come from the region's own passes, so a loop whose passes
// grow (or a leader that slows down) goes back to sharing at the pass where the prediction
// turns. Only whole-pass ratio plans of single cores decide: a sub-pass schedule learns its
// split from the sub-passes, and beside accelerators the split is the thing learned.
#include <algorithm>

#include "schedule/planner.hpp"

namespace tsar::core {

bool PassPlanner::may_run_alone(std::int64_t n, const SubPassPlan& plan) const {
  if (device_memory_ || any_accelerator() || !scheduler_->adapts() || plan.chunked ||
      plan.lo != 0 || plan.hi != n || n <= 0 || !scheduler_->last_sub_pass())
    return false;
  // The leader (worker 0) runs an alone pass: it must be a single active core among others.
  return cpu_workers_.size() >= 2 && cpu_workers_.front() == 0 && cores(0) == 1;
}

void PassPlanner::run_alone_if_cheaper(std::int64_t n, SubPassPlan& plan) {
  const bool was_alone = alone_;
  alone_ = false;
  costs_pass_ = may_run_alone(n, plan);
  if (!costs_pass_ || !share_cost_.measured()) return;
  double rate = 0.0;
  for (const std::size_t w : cpu_workers_) rate += 1.0 / times_[w];
  // The leader's own estimate, not the cores' pooled time: alone, it runs every iteration.
  const double leader = estimators_[0].estimate();
  if (!(rate > 0.0) || !(leader > 0.0) || !estimators_[0].measured()) return;
  const double count = static_cast<double>(n);
  const double shared = share_cost_.estimate() + count / rate;
  const double alone = (alone_cost_.measured() ? alone_cost_.estimate() : 0.0) + count * leader;
  // The way it ran last stays unless the other is clearly cheaper: each change moves the
  // leader's range and with it its time per iteration is learned again (forget_if_moved).
  alone_ =
      was_alone ? !(shared < (1.0 - kAloneMargin) * alone) : alone < (1.0 - kAloneMargin) * shared;
  if (!alone_) return;
  std::fill(plan.counts.begin(), plan.counts.end(), 0);
  plan.counts[0] = n;
}

void PassPlanner::learn_pass_costs(double seconds, std::span<const WorkerSample> totals) {
  // The first pass is start-up (cold caches, first touch): its costs say nothing.
  if (!costs_pass_ || passes_ == 0) return;
  if (alone_) {
    alone_cost_.add(std::max(kMinCostSample, seconds - totals[0].busy));
    return;
  }
  double longest = 0.0;
  int running = 0;
  for (const std::size_t w : cpu_workers_) {
    if (totals[w].iterations <= 0) continue;
    longest = std::max(longest, totals[w].busy);
    ++running;
  }
  if (running >= 2) share_cost_.add(std::max(kMinCostSample, seconds - longest));
}

}  // namespace tsar::core
