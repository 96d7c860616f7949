// SPDX-License-Identifier: BSD-3-Clause
// Participation trials (planner.hpp, participation_trial.hpp): which unit of a pass to try
// without -- an accelerator, or the CPU devices together -- and keeping it out of the split while
// the passes run faster without it.
#include <algorithm>
#include <cmath>

#include "schedule/planner.hpp"

namespace tsar::core {

void PassPlanner::share_trial(std::shared_ptr<SharedTrial> trial) {
  if (trial == trial_ || trial == nullptr) return;
  std::lock_guard lock(trial->mutex);
  trial_slot_ = trial->trial.join();
  trial_ = std::move(trial);
  trial_shared_ = true;
}

std::unique_lock<std::mutex> PassPlanner::lock_trial() const {
  // A region's own trial is only ever touched by its planner's thread.
  return trial_shared_ ? std::unique_lock(trial_->mutex) : std::unique_lock<std::mutex>();
}

bool PassPlanner::trial_out(int worker) const {
  const auto lock = lock_trial();
  return trial_->trial.out() && in_unit(sz(worker), Unit(trial_->trial.candidate()));
}

bool PassPlanner::in_unit(std::size_t w, const Unit& u) const {
  if (!active_[w]) return false;
  return u.cpu ? is_cpu(w) : !is_cpu(w) && device(w).description().key == u.key;
}

void PassPlanner::sit_out_trial() {
  // Passes of two units or more that the split adapts: the trial's schedule counts these.
  trial_pass_ = participation_trials_ && scheduler_->adapts() && any_accelerator() &&
                accelerators_.size() + (cpu_workers_.empty() ? 0 : 1) >= 2;
  if (!trial_pass_) return;
  const auto lock = lock_trial();
  ParticipationTrial& trial = trial_->trial;
  if (trial.choosing()) {
    // A starved CPU side that loses is kept out -- no waking, no planning of its devices --
    // unless that would hold the trial from the accelerators: one unit is out at a time, and
    // on two GPUs no trial took a GPU out of short loops any more
    // (docs/results/tsar/starved-cores-trial/2026-11-27-h200x2-4748ff4.txt).
    bool starved = false;
    const std::string unit = trial_candidate(&starved);
    trial.choose(unit, starved, accelerators_.size() == 1);
  }
  if (trial.returning() && trial.candidate() == ParticipationTrial::kCpuUnit && !cpu_return_open_) {
    // The CPU side comes back measured afresh, at its cores' own rates: its estimate is what
    // kept it out, from passes that may no longer be what it costs. (A trial returns a unit
    // once: returning() ends with its decision, and only a new trial starts another.)
    cpu_side_before_ = cpu_side_;
    cpu_return_open_ = true;
    cpu_side_.reset();
  } else if (cpu_return_open_ && !trial.returning()) {
    // Lost and left to the split, the CPU side is as it was at once, not after the passes a
    // split takes to shrink the share its fresh estimate gave it.
    cpu_return_open_ = false;
    if (trial.lost() && !trial.decided_out()) {
      cpu_side_ = cpu_side_before_;
      times_key_ = kStaleTimes;  // the estimate's version went back
    }
  }
  if (!trial.out()) return;
  const std::string& unit = trial.candidate();
  const Unit u(unit);
  bool left = false;  // another unit must run the pass
  for (std::size_t w = 0; w < devices_.size(); ++w) {
    if (in_unit(w, u))
      sitting_out_[w] = 1;
    else
      left = left || (active_[w] && !sitting_out_[w]);
  }
  if (left) {
    keep_idle_units_out(u);
    return;
  }
  for (std::size_t w = 0; w < devices_.size(); ++w)
    if (in_unit(w, u)) sitting_out_[w] = 0;
  trial.forget(unit);
}

void PassPlanner::keep_idle_units_out(const Unit& out) {
  // A trial changes one thing: the candidate's rows go to the units that ran the passes it is
  // compared with, not to a unit those passes gave none. Re-split without one of two GPUs, an
  // idle core took rows of BiCGStab's loops and every pass waited for it: the trial measured
  // one GPU plus the core, not one GPU
  // (docs/results/tsar/trial-one-change/2026-11-27-h200x2-526ec76.txt). Rows of the last
  // baseline pass (last_rows_); the CPU devices count together, as one unit.
  std::int64_t cpu_rows = 0;
  for (const std::size_t w : cpu_workers_) cpu_rows += last_rows_[w];
  const auto rows = [&](std::size_t w) { return is_cpu(w) ? cpu_rows : last_rows_[w]; };
  bool ran = false;  // some unit besides the candidate ran the baseline: it takes the rows
  for (std::size_t w = 0; w < devices_.size() && !ran; ++w)
    ran = active_[w] && !sitting_out_[w] && rows(w) > 0;
  if (!ran) return;
  for (std::size_t w = 0; w < devices_.size(); ++w)
    if (active_[w] && !in_unit(w, out) && rows(w) <= 0) sitting_out_[w] = 1;
}

std::string PassPlanner::trial_candidate(bool* starved) const {
  // The unit that ran the fewest rows of the last pass, where another unit ran as many: the one
  // whose rows the others take over most cheaply. The CPU devices together are a unit: what
  // their taking part costs beside the rows they run -- planning sixteen devices instead of one,
  // the accelerator's worker woken instead of driven by the leader, rows moving as their noisy
  // share moves -- no time per iteration shows. A short loop on one GPU (23-26 us alone) ran at
  // 50-54 us a pass with the cores taking a fifth of its rows
  // (docs/results/tsar/cuda-pass-cost/2026-11-27-h200-996c59e.txt).
  std::int64_t cpu_rows = 0;
  for (const std::size_t w : cpu_workers_) cpu_rows += last_rows_[w];
  std::string fewest = cpu_rows > 0 ? ParticipationTrial::kCpuUnit : "";
  std::int64_t least = cpu_rows, most = 0;
  for (const std::size_t w : accelerators_) {
    const std::int64_t rows = last_rows_[w];
    if (rows <= 0) continue;
    if (fewest.empty() || rows < least) {
      most = std::max(most, least);
      fewest = device(w).description().key;
      least = rows;
    } else {
      most = std::max(most, rows);
    }
  }
  // CPU devices the split gives nothing are measured no more, and the estimate that starved
  // them stands, though it may come from a start-up long gone: passes that every worker began
  // milliseconds late, charged to the few rows the CPU side had, left OpenMP-offloaded
  // residual all on the GPU, 4x slower than with the cores
  // (docs/results/tsar/starved-cores/2026-11-27-h100-910a112.txt). So they are tried back in,
  // as a unit that sat out is: within the trials' budget, less often each time that changed
  // nothing.
  // Where a unit can be tried out, that trial comes first: only one unit is out at a time.
  // With no CPU rows, `fewest` names an accelerator that ran the pass, if any did.
  if (most >= least && !fewest.empty()) return fewest;
  if (cpu_rows == 0 && !cpu_workers_.empty() && cpu_side_.measured() && !fewest.empty()) {
    if (starved != nullptr) *starved = true;
    return ParticipationTrial::kCpuUnit;
  }
  return std::string();
}

ParticipationTrial::Cost PassPlanner::trial_expected_cost(double seconds) const {
  // What the trial it would start now costs where the split's own times are right: the
  // candidate's rows moving out of its memory into the others' (the dearest link of theirs)
  // and back, and the passes it runs without the candidate -- the move's and one compared,
  // after which a trial that loses ends -- at the others' rate. On two GPUs that share GEMM's
  // rows evenly those two passes take twice as long, and in a run of 8 passes a trial cost a
  // fifth of the run
  // (docs/results/archive/tsar/participation-trials/2026-11-26-h200x2-f36d27a.txt). One that sits
  // out already: the last trial's measured cost stands.
  if (trial_->trial.decided_out()) return {0.0, 0.0};
  const std::string unit = trial_candidate();
  if (unit.empty()) return {0.0, 0.0};
  const Unit u(unit);
  std::int64_t rows = 0;
  double out = 0.0, in = 0.0, rate = 0.0, mine = 0.0;
  for (std::size_t w = 0; w < devices_.size(); ++w) {
    if (!active_[w] || last_rows_[w] <= 0) continue;
    const double r = times_[w] > 0.0 && std::isfinite(times_[w]) ? 1.0 / times_[w] : 0.0;
    rate += r;
    if (in_unit(w, u)) {
      rows += last_rows_[w];
      out = std::max(out, move_seconds_[w]);
      mine += r;
    } else {
      in = std::max(in, move_seconds_[w]);
    }
  }
  const double slower = rate > mine ? 2.0 * seconds * mine / (rate - mine) : 0.0;
  return {2.0 * static_cast<double>(rows) * (out + in), slower};
}

void PassPlanner::record_trial(bool learn, double seconds, std::span<const WorkerSample> totals) {
  if (!trial_pass_ || !learn || pass_chunked_) return;
  // Rows a changed split moved into a device's memory (hold_split's migration) make the pass
  // say what moving costs, not what the way does.
  bool steady = true;
  for (const std::size_t w : linked_) steady = steady && migration_seconds_[w] == 0.0;
  const auto lock = lock_trial();
  ParticipationTrial& trial = trial_->trial;
  // The rows the candidate is chosen from, and a prediction, only where the trial needs them:
  // both walk the workers.
  const bool predict = trial.needs_prediction();
  if (predict || trial.needs_rows())
    for (std::size_t w = 0; w < devices_.size(); ++w) last_rows_[w] = totals[w].iterations;
  trial.record(trial_slot_, seconds, n_, steady,
               predict ? trial_expected_cost(seconds) : ParticipationTrial::kUnchanged);
}

void PassPlanner::forget_trial_of(std::size_t w) {
  const auto lock = lock_trial();
  if (in_unit(w, Unit(trial_->trial.candidate()))) trial_->trial.forget(trial_->trial.candidate());
}

}  // namespace tsar::core
