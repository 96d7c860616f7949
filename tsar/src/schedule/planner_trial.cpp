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

std::int64_t PassPlanner::cpu_last_rows() const {
  std::int64_t rows = 0;
  for (const std::size_t w : cpu_workers_) rows += last_rows_[w];
  return rows;
}

std::string_view PassPlanner::unit_of(std::size_t w) const {
  return is_cpu(w) ? std::string_view(ParticipationTrial::kCpuUnit)
                   : std::string_view(device(w).description().key);
}

bool PassPlanner::trial_out(int worker) const {
  const auto lock = lock_trial();
  return active_[sz(worker)] && trial_->trial.out(unit_of(sz(worker)));
}

void PassPlanner::sit_out_trial() {
  // Passes of two units or more that the split adapts: the trial's schedule counts these.
  trial_pass_ = participation_trials_ && scheduler_->adapts() && any_accelerator() &&
                accelerators_.size() + (cpu_workers_.empty() ? 0 : 1) >= 2;
  if (!trial_pass_) return;
  const auto lock = lock_trial();
  ParticipationTrial& trial = trial_->trial;
  if (trial.choosing()) trial.choose(trial_outs(), trial_starved());
  if (trial.returning() && trial.candidate() == ParticipationTrial::kCpuUnit && !cpu_return_open_) {
    // The CPU side comes back measured afresh, at its cores' own rates: its estimate is what
    // kept it out, from passes that may no longer be what it costs. (A trial returns a unit
    // once: returning() ends with its decision, and only a new trial starts another.)
    cpu_side_before_ = cpu_side_;
    cpu_return_open_ = true;
    cpu_side_.reset();
  } else if (cpu_return_open_ && !trial.returning()) {
    // Lost, the CPU side is as it was at once, not after the passes a split takes to shrink the
    // share its fresh estimate gave it.
    cpu_return_open_ = false;
    if (trial.lost()) {
      cpu_side_ = cpu_side_before_;
      times_key_ = kStaleTimes;  // the estimate's version went back
    }
  }
  if (!trial.any_out()) return;
  const bool cpu_out = trial.out(ParticipationTrial::kCpuUnit);
  bool left = false;  // another unit must run the pass
  for (std::size_t w = 0; w < devices_.size(); ++w) {
    if (!active_[w]) continue;
    if (is_cpu(w) ? cpu_out : trial.out(unit_of(w)))
      sitting_out_[w] = 1;
    else
      left = true;
  }
  if (left) {
    if (trial.trying_out()) keep_idle_units_out(trial);
    return;
  }
  // Nobody would run the pass (the units left retired, say): every unit takes part again.
  std::fill(sitting_out_.begin(), sitting_out_.end(), 0);
  trial.forget_all();
}

void PassPlanner::keep_idle_units_out(ParticipationTrial& trial) {
  // A trial changes one thing: the candidate's rows go to the units that ran the passes it is
  // compared with, not to a unit those passes gave none. Re-split without one of two GPUs, an
  // idle core took rows of BiCGStab's loops and every pass waited for it: the trial measured
  // one GPU plus the core, not one GPU
  // (docs/results/tsar/trial-one-change/2026-11-27-h200x2-526ec76.txt). Rows of the last
  // baseline pass (last_rows_); the CPU devices count together, as one unit. If the trial's way
  // wins, they stay out with the candidate: the way kept is the way measured.
  const std::int64_t cpu_rows = cpu_last_rows();
  const auto rows = [&](std::size_t w) { return is_cpu(w) ? cpu_rows : last_rows_[w]; };
  bool ran = false;  // some unit besides the candidate ran the baseline: it takes the rows
  for (std::size_t w = 0; w < devices_.size() && !ran; ++w)
    ran = active_[w] && !sitting_out_[w] && rows(w) > 0;
  if (!ran) return;
  for (std::size_t w = 0; w < devices_.size(); ++w)
    if (active_[w] && !sitting_out_[w] && rows(w) <= 0) {
      sitting_out_[w] = 1;
      trial.also_out(unit_of(w));
    }
}

const std::vector<std::string>& PassPlanner::trial_outs() const {
  // Every unit that ran rows of the last pass but the one that ran the most, fewest rows
  // first: the others take its rows over the more cheaply the fewer they are. The CPU devices
  // together are a unit: what their taking part costs beside the rows they run -- planning
  // sixteen devices instead of one, the accelerator's worker woken instead of driven by the
  // leader, rows moving as their noisy share moves -- no time per iteration shows. A short loop
  // on one GPU (23-26 us alone) ran at 50-54 us a pass with the cores taking a fifth of its
  // rows (docs/results/tsar/cuda-pass-cost/2026-11-27-h200-996c59e.txt).
  // Kept buffers: a prediction asks for these between trials, in passes that allocate nothing.
  std::vector<std::pair<std::int64_t, std::string_view>>& ran = outs_ranked_;
  ran.clear();
  if (const std::int64_t cpu_rows = cpu_last_rows(); cpu_rows > 0)
    ran.emplace_back(cpu_rows, ParticipationTrial::kCpuUnit);
  for (const std::size_t w : accelerators_)
    if (last_rows_[w] > 0) ran.emplace_back(last_rows_[w], unit_of(w));
  for (std::size_t i = 1; i < ran.size(); ++i)  // stable, and no buffer (std::stable_sort's)
    for (std::size_t j = i; j > 0 && ran[j].first < ran[j - 1].first; --j)
      std::swap(ran[j], ran[j - 1]);
  outs_.resize(ran.empty() ? 0 : ran.size() - 1);
  for (std::size_t i = 0; i < outs_.size(); ++i) outs_[i].assign(ran[i].second);
  return outs_;
}

std::string_view PassPlanner::trial_starved() const {
  // CPU devices the split gives nothing are measured no more, and the estimate that starved
  // them stands, though it may come from a start-up long gone: passes that every worker began
  // milliseconds late, charged to the few rows the CPU side had, left OpenMP-offloaded
  // residual all on the GPU, 4x slower than with the cores
  // (docs/results/tsar/starved-cores/2026-11-27-h100-910a112.txt). So they are tried back in,
  // as a unit kept out is: within the trials' budget, less often each time that changed
  // nothing.
  if (cpu_workers_.empty() || !cpu_side_.measured() || cpu_last_rows() > 0) return {};
  bool ran = false;
  for (const std::size_t w : accelerators_) ran = ran || last_rows_[w] > 0;
  return ran ? std::string_view(ParticipationTrial::kCpuUnit) : std::string_view();
}

ParticipationTrial::Cost PassPlanner::trial_expected_cost(double seconds) const {
  // What the trial it would start now costs where the split's own times are right: the
  // candidate's rows moving out of its memory into the others' (the dearest link of theirs)
  // and back, and the passes it runs without the candidate -- the move's and one compared,
  // after which a trial that loses ends -- at the others' rate. On two GPUs that share GEMM's
  // rows evenly those two passes take twice as long, and in a run of 8 passes a trial cost a
  // fifth of the run
  // (docs/results/archive/tsar/participation-trials/2026-11-26-h200x2-f36d27a.txt). A trial
  // bringing a unit back in: the last trial's measured cost stands.
  const ParticipationTrial::Choice next = trial_->trial.next(trial_outs(), trial_starved());
  if (next.unit.empty() || next.back_in) return {0.0, 0.0};
  std::int64_t rows = 0;
  double out = 0.0, in = 0.0, rate = 0.0, mine = 0.0;
  for (std::size_t w = 0; w < devices_.size(); ++w) {
    if (!active_[w] || last_rows_[w] <= 0) continue;
    const double r = times_[w] > 0.0 && std::isfinite(times_[w]) ? 1.0 / times_[w] : 0.0;
    rate += r;
    if (unit_of(w) == next.unit) {
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
  trial_decided_ = false;
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
  const std::uint64_t decided = trial.decisions();
  trial.record(trial_slot_, seconds, n_, steady,
               predict ? trial_expected_cost(seconds) : ParticipationTrial::kUnchanged,
               host_written_);
  if (trial.decisions() != decided) {  // a few times a run: the copy is for TSAR_TRACE
    trial_decided_ = true;
    trial_decision_ = trial.last_decision();
  }
}

void PassPlanner::forget_trial_of(std::size_t w) {
  const auto lock = lock_trial();
  trial_->trial.forget(unit_of(w));
}

}  // namespace tsar::core
