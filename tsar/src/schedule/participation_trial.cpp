// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/participation_trial.hpp"

#include <algorithm>

#include "schedule/upper_median.hpp"

namespace tsar::core {

int ParticipationTrial::join() {
  slots_.emplace_back();
  slots_.back().baseline.reserve(kBaselinePasses);
  return static_cast<int>(slots_.size()) - 1;
}

void ParticipationTrial::choose(const std::string& candidate, bool starved, bool keep_out) {
  candidate_ = candidate;
  chosen_ = true;
  decided_out_ = starved && !candidate.empty();
  leave_to_split_ = decided_out_ && !keep_out;
  if (candidate.empty()) hold();  // nothing to try: held as if the trial had cost nothing
}

bool ParticipationTrial::out() const {
  if (candidate_.empty()) return false;
  return phase_ == Phase::kTrial ? !decided_out_ : decided_out_;
}

void ParticipationTrial::record(int at, double seconds, std::int64_t n, bool steady,
                                Cost expected) {
  Slot& slot = slots_[static_cast<std::size_t>(at)];
  const bool timed = n > 0 && seconds > 0.0;
  const double tpi = timed ? seconds / static_cast<double>(n) : 0.0;
  const auto excess = [&] {
    return timed && slot.median > 0.0
               ? std::max(0.0, seconds - slot.median * static_cast<double>(n))
               : 0.0;
  };
  // Regions attached to the environment that never run a pass the trial decides (one
  // device, CPU alone) are not waited for.
  if (!slot.recorded) {
    slot.recorded = true;
    ++recording_;
  }
  const int regions = recording_;
  switch (phase_) {
    case Phase::kWarmup:
    case Phase::kHolding:
      if (slot.reverted) trial_cost_ += excess();
      slot.reverted = false;
      held_seconds_ += timed ? seconds : 0.0;
      ++count_;
      if (expected.moves >= 0.0) {
        slot.expected = expected;
        slot.predicted = true;
        double moves = 0.0, passes = 0.0;
        for (const Slot& s : slots_) {
          moves = std::max(moves, s.expected.moves);
          passes += s.expected.passes;
        }
        expected_ = moves + passes;
      }
      if (paid()) {
        phase_ = Phase::kBaseline;
        count_ = 0;
        for (Slot& s : slots_) {
          s.baseline.clear();
          s.iterations = 0;
        }
      }
      return;
    case Phase::kBaseline: {
      ++count_;
      slot.iterations += timed ? n : 0;
      if (timed && steady && static_cast<int>(slot.baseline.size()) < kBaselinePasses)
        slot.baseline.push_back(tpi);
      // Every region measured, or some did and the others run rarely (or never steadily).
      int complete = 0;
      for (const Slot& s : slots_)
        complete += s.recorded && static_cast<int>(s.baseline.size()) >= kBaselinePasses ? 1 : 0;
      if (complete == regions || (complete > 0 && count_ >= 4 * kBaselinePasses * regions))
        start_trial();
      return;
    }
    case Phase::kTrial:
      if (!chosen_ && !decided_out_) {  // nobody was named: nothing was tried
        choose("");
        return;
      }
      ++count_;
      trial_cost_ += excess();
      if (!slot.seen) {
        slot.seen = true;  // its first pass this way pays the move
      } else if (timed && steady && slot.median > 0.0) {
        slot.ratios.push_back(tpi / slot.median);
        ++compared_;
      }
      if (!first_round_checked_ && compared_ >= compared_slots_) {
        first_round_checked_ = true;
        if (step_ratio([](Slot& s) { return s.ratios.front(); }) > 1.0 + kMargin) {
          decide(false);
          return;
        }
      }
      if (compared_ >= kTrialPasses * compared_slots_) {
        decide(wins());
      } else if (count_ > (kTrialPasses + kUnsteadyPasses + 1) * regions) {
        decide(false);  // too few steady passes to tell
      }
      return;
  }
}

void ParticipationTrial::start_trial() {
  phase_ = Phase::kTrial;
  count_ = 0;
  chosen_ = false;
  first_round_checked_ = false;
  compared_slots_ = 0;
  compared_ = 0;
  trial_cost_ = 0.0;
  for (Slot& s : slots_) {
    s.seen = false;
    s.median = 0.0;
    s.ratios.clear();
    if (static_cast<int>(s.baseline.size()) < kBaselinePasses) continue;
    const double fastest = *std::min_element(s.baseline.begin(), s.baseline.end());
    s.median = upper_median(s.baseline);
    s.fastest = fastest / s.median;
    s.weight = s.median * static_cast<double>(s.iterations);
    ++compared_slots_;
  }
}

template <typename Pick>
double ParticipationTrial::step_ratio(Pick pick) {
  double sum = 0.0, weights = 0.0;
  for (Slot& s : slots_) {
    if (s.ratios.empty()) continue;
    sum += s.weight * pick(s);
    weights += s.weight;
  }
  return weights > 0.0 ? sum / weights : 1.0;
}

int ParticipationTrial::hold_passes() const {
  return (phase_ == Phase::kWarmup ? kWarmupPasses : kHoldPasses * back_off()) * recording_;
}

bool ParticipationTrial::budget_met() const {
  return held_seconds_ * kTrialShare >= std::max(trial_cost_, expected_) * back_off();
}

bool ParticipationTrial::paid() const {
  // The next trial is paid for by the passes run since the last (or since the start): at least
  // what the last one cost, and what each region's planner predicts it costs that region.
  if (count_ < hold_passes() || !budget_met()) return false;
  for (const Slot& s : slots_)
    if (s.recorded && !s.predicted) return false;
  return true;
}

bool ParticipationTrial::needs_prediction() const {
  // Once the hold would be over by what is known, every region predicts again (the split may
  // have changed since): a higher prediction holds on, and it is asked for again when the
  // passes have paid for it. Past its passes the hold also asks once every hold_passes(), each
  // region once: a prediction made while the split was still settling (the candidate still
  // holding half the rows, say) would otherwise hold a trial of a split that now moves a few
  // rows for as long as moving half of them costs -- on two GPUs residual's split left 12 of
  // 1024 rows on one GPU and no trial started in 260 passes
  // (docs/results/tsar/participation-trials/2026-11-26-h200x2-b3b63a1.txt).
  if (!holding()) return false;
  const int passes = hold_passes();
  if (count_ + 1 < passes) return false;
  return budget_met() || (count_ + 1 - passes) % passes < recording_;
}

bool ParticipationTrial::wins() {
  const double slowest =
      step_ratio([](Slot& s) { return *std::max_element(s.ratios.begin(), s.ratios.end()); });
  if (slowest >= step_ratio([](Slot& s) { return s.fastest; })) return false;
  return step_ratio([](Slot& s) { return upper_median(s.ratios); }) < 1.0 - kMargin;
}

void ParticipationTrial::decide(bool switch_way) {
  if (switch_way) decided_out_ = !decided_out_;
  // A starved unit that lost and is not kept out is left to the split, and the trial is free
  // for the other units.
  if (leave_to_split_) decided_out_ = false;
  leave_to_split_ = false;
  losses_ = switch_way ? 0 : std::min(losses_ + 1, kMaxLosses);
  // The next pass of each region runs as decided: where that is not the trial's way, it moves
  // rows back.
  for (Slot& s : slots_) s.reverted = !switch_way;
  if (!decided_out_) candidate_.clear();  // a later trial chooses again
  phase_ = Phase::kHolding;
  count_ = 0;
  held_seconds_ = 0.0;
  for (Slot& s : slots_) s.predicted = false;
}

void ParticipationTrial::hold() {
  phase_ = Phase::kHolding;
  count_ = 0;
  held_seconds_ = 0.0;
  trial_cost_ = 0.0;
  for (Slot& s : slots_) {
    s.reverted = false;
    s.predicted = false;
  }
}

void ParticipationTrial::forget(const std::string& unit) {
  if (candidate_.empty() || candidate_ != unit) return;
  candidate_.clear();
  decided_out_ = false;
  if (phase_ == Phase::kTrial) hold();
}

}  // namespace tsar::core
