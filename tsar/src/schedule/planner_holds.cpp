// SPDX-License-Identifier: BSD-3-Clause
// The pass planner's holds: when a split may move, and which samples a moved split makes
// worthless (planner.hpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "schedule/cpu_split_hold.hpp"
#include "schedule/planner.hpp"
#include "schedule/split_hysteresis.hpp"

namespace tsar::core {

void PassPlanner::link_costs(const CopyCosts& copies) {
  // The link is calibrated only once something would be charged to it.
  const double per_iteration = copies.moved_bytes_per_iteration;
  const bool resident = copies.resident.size() == devices_.size();
  const bool charged = per_iteration > 0.0 || copies.boundary_copies > 0;
  // Only active devices with their own memory have a link to charge: the others' zeros are
  // written again once the groups changed.
  if (links_epoch_ != groups_epoch_) {
    std::fill(move_seconds_.begin(), move_seconds_.end(), 0.0);
    std::fill(boundary_seconds_.begin(), boundary_seconds_.end(), 0.0);
    std::fill(held_.begin(), held_.end(), 0);
    links_epoch_ = groups_epoch_;
  }
  for (const std::size_t w : linked_) {
    Device& d = *devices_[w];
    move_seconds_[w] = charged ? per_iteration * d.link_seconds_per_byte() : 0.0;
    boundary_seconds_[w] = charged ? copies.boundary_copies * d.link_latency() +
                                         copies.boundary_bytes * d.link_seconds_per_byte()
                                   : 0.0;
    held_[w] = resident && move_seconds_[w] > 0.0 ? copies.resident[w] : 0;
  }
}

void PassPlanner::drop_host_side_that_cannot_pay(std::int64_t n, SubPassPlan& plan) {
  // The split balances the devices' compute times; each boundary between a host-memory
  // device's range and an accelerator's costs the accelerator its halo copies every pass on
  // top (split_hysteresis.hpp). Where the accelerators alone, split among themselves, finish
  // sooner than the split with those copies counted, the host-memory devices' rows cannot
  // pay: the pass is the accelerators'. Judged once the host side is measured (until then
  // probe_unmeasured gives it its row), by the same prediction the hysteresis moves data on.
  bool host_rows = false, accelerator = false;
  for (std::size_t w = 0; w < devices_.size(); ++w) {
    if (!active_[w]) continue;
    if (host_memory_[w]) {
      if (plan.counts[w] == 0) continue;
      if (!measured(w)) return;
      host_rows = true;
    } else {
      accelerator = accelerator || (boundary_seconds_[w] > 0.0 && std::isfinite(times_[w]));
    }
  }
  if (!host_rows || !accelerator) return;
  for (std::size_t w = 0; w < devices_.size(); ++w)
    alone_times_[w] =
        active_[w] && !host_memory_[w] ? times_[w] : std::numeric_limits<double>::infinity();
  split_iterations(n, alone_times_, alone_counts_, plan.scratch);
  const SplitCosts costs{times_, move_seconds_, pooled_, {}, kPaybackPasses, boundary_seconds_};
  if (predicted_pass_seconds(alone_counts_, costs) <= predicted_pass_seconds(plan.counts, costs))
    std::copy(alone_counts_.begin(), alone_counts_.end(), plan.counts.begin());
}

double PassPlanner::estimates_scatter(std::span<const std::int64_t> proposed) const {
  // The gain of a new split rests on the times of the devices with rows in it or in the last
  // one: the CPU devices' as the CPU side's where it is planned as one (current_times).
  double scatter = 0.0;
  for (std::size_t w = 0; w < devices_.size(); ++w) {
    if (!active_[w] || (proposed[w] <= 0 && last_split_[w] <= 0)) continue;
    const bool side = is_cpu(w) && cpu_side_.measured() && any_accelerator();
    scatter = std::max(scatter, side ? cpu_side_.scatter() : estimators_[w].scatter());
  }
  return scatter;
}

bool PassPlanner::rests_on_priors(std::span<const std::int64_t> counts) const {
  for (std::size_t w = 0; w < devices_.size(); ++w)
    if (active_[w] && counts[w] > 0 && !measured(w)) return true;
  return false;
}

void PassPlanner::hold_split(std::int64_t n, const CopyCosts& copies, SubPassPlan& plan) {
  // A whole-pass ratio split of devices with their own memory keeps its boundaries unless
  // moving them pays (split_hysteresis.hpp): a resident stencil's rows stay where they are
  // instead of following every pass's noise.
  std::fill(migration_seconds_.begin(), migration_seconds_.end(), 0.0);
  settling_ = false;
  if (!copying_ || plan.chunked || plan.lo != 0 || plan.hi != n) {
    last_split_n_ = -1;
    return;
  }
  // The CPU devices' (and the inactive's) inputs change with cpu_epoch_ only.
  const auto settled = [&](std::size_t w) {
    settled_[w] = estimators_[w].samples() >= kSettledSamples ? 1 : 0;
  };
  if (holds_epoch_ != cpu_epoch_) {
    for (std::size_t w = 0; w < devices_.size(); ++w) {
      pooled_[w] = balance_cpu_ && is_cpu(w) && active_[w] ? 1 : 0;
      settled(w);
    }
    holds_epoch_ = cpu_epoch_;
  } else {
    for (const std::size_t w : accelerators_) settled(w);
  }
  if (scheduler_->adapts()) drop_host_side_that_cannot_pay(n, plan);
  bool known = last_split_n_ == n && last_split_.size() == plan.counts.size();
  // A data environment's rows where another region's pass left them: the split that moves
  // nothing is theirs, and any other moves rows every pass (that region moves them back), so
  // it must pay within the pass -- always where no region follows this one's split
  // (CopyCosts::follows_only): found only from the rows' places, a move was charged as
  // lasting while they lay where this region's last split left them and as recurring once
  // found moved back, and BiCGStab's t.t alternated between the two, copying t out of the GPU
  // every other pass (docs/results/tsar/moved-back-rows/2026-11-27-h200-97f08a0.txt). Static
  // schedules keep the split they were given.
  const bool produced =
      scheduler_->adapts() && copies.resident.size() == plan.counts.size() &&
      (copies.follows_only ||
       !(known && std::equal(last_split_.begin(), last_split_.end(), copies.resident.begin())));
  if (produced) {
    last_split_.assign(copies.resident.begin(), copies.resident.end());
    known = true;
  }
  if (!known) last_split_.assign(plan.counts.size(), 0);  // the devices hold none of it yet
  if (!std::equal(last_split_.begin(), last_split_.end(), plan.counts.begin())) {
    const bool costly =
        std::any_of(move_seconds_.begin(), move_seconds_.end(), [](double s) { return s > 0.0; });
    if (costly) {
      const SplitCosts costs{times_, move_seconds_, pooled_, settled_,
                             produced ? 1.0 : payback_passes(passes_ - split_since_),
                             boundary_seconds_,
                             // The noise floor keeps a split measured times chose from
                             // following their noise. One the priors chose has no such claim:
                             // held by the scatter of the cold first samples, k-means' cores
                             // kept the share the peak rates gave them
                             // (docs/results/tsar/prior-split-hold/).
                             split_on_priors_ ? 0.0 : estimates_scatter(plan.counts)};
      // A unit back from sitting out (a trial that lost, or one that brings it back) takes its
      // share at once: its passes out were measured against the way with it, and the trial's
      // budget counts its rows' move there and back. Held to the predicted gain, cores a trial
      // took out whose cold first passes still widened their scatter got no rows again, and
      // were never measured again (Planner.CoresATrialTookOutTakeTheirShareAgainWhenItEnds).
      if (known && !unit_returns()) {
        settling_ = !times_settled(last_split_, costs);
        keep_split_unless_it_pays(last_split_, plan.counts, costs, plan.scratch);
      }
      if (move_seconds(last_split_, plan.counts, costs) > 0.0) {
        split_since_ = passes_;
        split_on_priors_ = rests_on_priors(plan.counts);
      }
      entering_iterations(last_split_, plan.counts, entering_);
      for (std::size_t w = 0; w < devices_.size(); ++w)
        migration_seconds_[w] = static_cast<double>(entering_[w]) * move_seconds_[w];
    }
  }
  last_split_.assign(plan.counts.begin(), plan.counts.end());
  last_split_n_ = n;
}

void PassPlanner::hold_cpu_ranges(std::int64_t n, SubPassPlan& plan) {
  // Regions of CPU devices alone (next to accelerators, hold_split decides where rows go):
  // the cores keep their rows while their split stays near balance (cpu_split_hold.hpp).
  if (!balance_cpu_ || plan.chunked || plan.lo != 0 || plan.hi != n) {
    cpu_split_n_ = -1;
    return;
  }
  if (cpu_split_n_ == n) {
    for (std::size_t w = 0; w < devices_.size(); ++w)
      cpu_pooled_[w] = active_[w] && is_cpu(w) ? 1 : 0;
    // The region's first pass is start-up (first touch, cold caches, the other loops' rows
    // in other cores' caches): its spread is not the cores' speeds, and a split learned from
    // it was then held. The second pass keeps the first's split whatever it measured; the
    // estimators' lower median lets the warm samples decide from the third.
    const double band = passes_ == 1 ? std::numeric_limits<double>::infinity() : kCpuHoldBand;
    hold_cpu_split(cpu_split_, plan.counts, times_, cpu_pooled_, band);
  }
  cpu_split_.assign(plan.counts.begin(), plan.counts.end());
  cpu_split_n_ = n;
}

bool PassPlanner::unit_returns() const {
  for (std::size_t w = 0; w < devices_.size(); ++w)
    if (active_[w] && sat_out_[w] && !sitting_out_[w]) return true;
  return false;
}

bool PassPlanner::copy_dominated(std::size_t w, double busy) {
  // A sample mostly made of copying in the rows a changed split just gave the device (its
  // first range's, cold) describes the link, not the device's steady pass. Learned, it makes
  // the device look slow, its rows move away, and its next sample is again mostly copies:
  // the split oscillates and moves tens of MB per pass. Never two samples in a row, so a
  // device whose every split differs still learns.
  const bool skip = !skipped_[w] && migration_seconds_[w] > kMigrationShare * busy;
  skipped_[w] = skip ? 1 : 0;
  return skip;
}

}  // namespace tsar::core
