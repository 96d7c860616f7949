// SPDX-License-Identifier: BSD-3-Clause
// Participation trials (planner.hpp, participation_trial.hpp): which unit of a pass to try
// without -- an accelerator, or the CPU devices together, as the split sees them -- and
// keeping it out of the split while the pass runs faster without it.
#include <algorithm>

#include "schedule/planner.hpp"

namespace tsar::core {

bool PassPlanner::trial_out(int worker) const {
  if (!trial_.out()) return false;
  const std::size_t w = sz(worker);
  return trial_.candidate() == cpu_unit() ? active_[w] && is_cpu(w) : trial_.candidate() == worker;
}

void PassPlanner::sit_out_trial() {
  // Passes of two units or more that the split adapts: the trial's schedule counts these.
  trial_pass_ = participation_trials_ && scheduler_->adapts() && any_accelerator() &&
                accelerators_.size() + (cpu_workers_.empty() ? 0 : 1) >= 2;
  if (!trial_pass_) return;
  if (trial_.choosing()) trial_.choose(trial_candidate());
  if (!trial_.out()) return;
  const int c = trial_.candidate();
  if (c == cpu_unit()) {
    for (const std::size_t w : cpu_workers_) sitting_out_[w] = 1;
  } else {
    sitting_out_[sz(c)] = 1;
  }
  // Another unit must run the pass (a retirement since may have left the candidate alone).
  for (std::size_t w = 0; w < devices_.size(); ++w)
    if (active_[w] && !sitting_out_[w]) return;
  for (const std::size_t w : cpu_workers_) sitting_out_[w] = 0;
  if (c != cpu_unit()) sitting_out_[sz(c)] = 0;
  trial_.forget();
}

int PassPlanner::trial_candidate() const {
  // The unit that ran the fewest rows of the last pass: the one whose rows the others take
  // over most cheaply, and the same in every region a data environment's split is shared by.
  std::int64_t cpu_rows = 0;
  for (const std::size_t w : cpu_workers_) cpu_rows += last_rows_[w];
  int units = cpu_rows > 0 ? 1 : 0;
  int fewest = cpu_rows > 0 ? cpu_unit() : ParticipationTrial::kNone;
  std::int64_t least = cpu_rows > 0 ? cpu_rows : 0;
  for (const std::size_t w : accelerators_) {
    if (last_rows_[w] <= 0) continue;
    ++units;
    if (fewest == ParticipationTrial::kNone || last_rows_[w] < least) {
      fewest = static_cast<int>(w);
      least = last_rows_[w];
    }
  }
  return units >= 2 ? fewest : ParticipationTrial::kNone;
}

void PassPlanner::record_trial(bool learn, double seconds, std::span<const WorkerSample> totals) {
  for (std::size_t w = 0; w < devices_.size(); ++w) last_rows_[w] = totals[w].iterations;
  if (trial_pass_ && learn && !pass_chunked_) trial_.record(seconds, n_);
}

void PassPlanner::forget_trial_of(std::size_t w) {
  if (trial_.candidate() == static_cast<int>(w)) trial_.forget();
}

}  // namespace tsar::core
