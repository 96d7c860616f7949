// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/participation_trial.hpp"

#include <algorithm>

namespace tsar::core {
namespace {

double median(std::vector<double>& v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace

ParticipationTrial::ParticipationTrial() {
  baseline_.reserve(kBaselinePasses);
  trial_.reserve(kTrialPasses);
}

void ParticipationTrial::choose(int candidate) {
  candidate_ = candidate;
  if (candidate != kNone) return;
  phase_ = Phase::kHolding;  // nothing to try: held as if the trial had cost nothing
  count_ = 0;
  held_seconds_ = 0.0;
  trial_cost_ = 0.0;
  reverted_ = false;
}

bool ParticipationTrial::out() const {
  if (candidate_ == kNone) return false;
  return phase_ == Phase::kTrial ? !decided_out_ : decided_out_;
}

void ParticipationTrial::record(double seconds, std::int64_t n) {
  const bool timed = n > 0 && seconds > 0.0;
  const double tpi = timed ? seconds / static_cast<double>(n) : 0.0;
  const auto excess = [&] {
    return timed ? std::max(0.0, seconds - baseline_median_ * static_cast<double>(n)) : 0.0;
  };
  switch (phase_) {
    case Phase::kWarmup:
      if (++count_ >= kWarmupPasses) {
        phase_ = Phase::kBaseline;
        count_ = 0;
      }
      return;
    case Phase::kBaseline:
      if (timed) baseline_.push_back(tpi);
      if (++count_ < kBaselinePasses) return;
      count_ = 0;
      if (baseline_.empty()) return;  // nothing timed: measure again
      phase_ = Phase::kTrial;
      baseline_fastest_ = *std::min_element(baseline_.begin(), baseline_.end());
      baseline_median_ = median(baseline_);
      baseline_.clear();
      trial_.clear();
      trial_cost_ = 0.0;
      return;
    case Phase::kTrial:
      if (candidate_ == kNone) {  // nobody was named: nothing was tried
        choose(kNone);
        return;
      }
      trial_cost_ += excess();
      if (count_++ > 0 && timed) trial_.push_back(tpi);  // the first pass pays the move
      if (trial_.size() == 1 && trial_.front() > (1.0 + kMargin) * baseline_median_) {
        decide(false);
      } else if (static_cast<int>(trial_.size()) >= kTrialPasses || count_ > kTrialPasses + 1) {
        decide(static_cast<int>(trial_.size()) >= kTrialPasses && wins());
      }
      return;
    case Phase::kHolding:
      if (reverted_) trial_cost_ += excess();
      reverted_ = false;
      held_seconds_ += timed ? seconds : 0.0;
      if (++count_ >= kHoldPasses && held_seconds_ * kTrialShare >= trial_cost_) {
        phase_ = Phase::kBaseline;
        count_ = 0;
      }
      return;
  }
}

bool ParticipationTrial::wins() {
  // Faster by the margin in median, and every compared pass faster than every baseline pass:
  // two ways that run alike order their kBaselinePasses + kTrialPasses passes so with a
  // chance of 1 in C(6, 3) = 20, so noise alone rarely switches (under 20% jitter on every
  // device, medians of three alone took a wrong way within 300 passes).
  if (*std::max_element(trial_.begin(), trial_.end()) >= baseline_fastest_) return false;
  return median(trial_) < (1.0 - kMargin) * baseline_median_;
}

void ParticipationTrial::decide(bool switch_way) {
  if (switch_way) decided_out_ = !decided_out_;
  // The next pass runs as decided: where that is not the trial's way, it moves rows back.
  reverted_ = !switch_way;
  if (!decided_out_) candidate_ = kNone;  // a later trial chooses again
  phase_ = Phase::kHolding;
  count_ = 0;
  held_seconds_ = 0.0;
}

void ParticipationTrial::forget() {
  candidate_ = kNone;
  decided_out_ = false;
  if (phase_ != Phase::kTrial) return;
  phase_ = Phase::kHolding;
  count_ = 0;
  held_seconds_ = 0.0;
  reverted_ = false;
}

}  // namespace tsar::core
