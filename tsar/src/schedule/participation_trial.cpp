// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/participation_trial.hpp"

#include <algorithm>
#include <array>

#include "schedule/rank_test.hpp"
#include "schedule/upper_median.hpp"

namespace tsar::core {

int ParticipationTrial::join() {
  slots_.emplace_back();
  slots_.back().baseline.reserve(kBaselinePasses);
  rounds_.reserve(kTrialPasses);
  baseline_rounds_.reserve(kBaselinePasses);
  median_scratch_.reserve(kBaselinePasses);
  return static_cast<int>(slots_.size()) - 1;
}

namespace {
/// rank_test_critical(m, n, kAlpha) for the rounds a trial can have, computed once: a
/// trial asks on every compared pass, and the exact distribution takes a table to build.
int critical_u(std::size_t m, std::size_t n) {
  using Trial = ParticipationTrial;
  static const auto table = [] {
    std::array<std::array<int, Trial::kBaselinePasses + 1>, Trial::kTrialPasses + 1> t{};
    for (int i = 0; i <= Trial::kTrialPasses; ++i)
      for (int j = 0; j <= Trial::kBaselinePasses; ++j)
        t[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] =
            rank_test_critical(i, j, Trial::kAlpha);
    return t;
  }();
  return table[std::min(m, table.size() - 1)][std::min(n, table[0].size() - 1)];
}

bool contains(const std::vector<std::string>& units, std::string_view unit) {
  return std::find(units.begin(), units.end(), unit) != units.end();
}
void erase(std::vector<std::string>& units, std::string_view unit) {
  const auto it = std::find(units.begin(), units.end(), unit);
  if (it != units.end()) units.erase(it);
}
}  // namespace

ParticipationTrial::Choice ParticipationTrial::next(const std::vector<std::string>& outs,
                                                    std::string_view starved) const {
  // A unit kept out comes back every other trial; a starved one only where nothing can be
  // tried out (it runs nothing either way, and the units that run are what a trial can speed).
  const bool kept = !kept_.empty();
  if (!outs.empty() && !(back_in_next_ && kept)) return {outs.front(), false};
  if (kept) return {kept_.front(), true};
  if (!starved.empty()) return {std::string(starved), true};
  return {};
}

void ParticipationTrial::choose(const std::vector<std::string>& outs, std::string_view starved) {
  Choice c = next(outs, starved);
  candidate_ = std::move(c.unit);
  back_in_ = c.back_in;
  chosen_ = true;
  with_.clear();
  if (candidate_.empty()) hold();  // nothing to try: held as if the trial had cost nothing
}

bool ParticipationTrial::out(std::string_view unit) const {
  if (phase_ == Phase::kTrial && !candidate_.empty() && unit == candidate_) return !back_in_;
  return contains(kept_, unit);
}

bool ParticipationTrial::kept_out(std::string_view unit) const { return contains(kept_, unit); }

bool ParticipationTrial::returning_default() const {
  return back_in_ && contains(taken_out_, candidate_);
}

void ParticipationTrial::also_out(std::string_view unit) {
  if (trying_out() && unit != candidate_ && !contains(with_, unit)) with_.emplace_back(unit);
}

void ParticipationTrial::note_prediction(Slot& slot, Cost expected) {
  if (expected.moves < 0.0) return;
  slot.expected = expected;
  slot.predicted = true;
  double moves = 0.0, passes = 0.0;
  for (const Slot& s : slots_) {
    moves = std::max(moves, s.expected.moves);
    passes += s.expected.passes;
  }
  expected_ = moves + passes;
}

void ParticipationTrial::record(int at, double seconds, std::int64_t n, bool steady, Cost expected,
                                bool host_written) {
  Slot& slot = slots_[static_cast<std::size_t>(at)];
  // A pass that copied in again rows the program wrote costs what the program's update costs,
  // whichever way runs: it is neither compared nor charged. BiCGStab's benchmark restores its
  // vectors every 10 steps, the loops that read them first then run several times their
  // steady pass, and a trial whose first compared round fell on such a step lost on it
  // (docs/results/tsar/trial-host-writes/). Where the program writes before every pass, that is
  // what every pass costs, and passes are compared as usual.
  const bool refreshed = host_written && !slot.written_before;
  slot.written_before = host_written;
  const bool timed = n > 0 && seconds > 0.0 && !refreshed;
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
      note_prediction(slot, expected);
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
      held_seconds_ += timed ? seconds : 0.0;
      note_prediction(slot, expected);
      slot.iterations += timed ? n : 0;
      if (timed && steady && static_cast<int>(slot.baseline.size()) < kBaselinePasses)
        slot.baseline.push_back(tpi);
      // Every region measured, or some did and the others run rarely (or never steadily).
      int complete = 0;
      for (const Slot& s : slots_)
        complete += s.recorded && static_cast<int>(s.baseline.size()) >= kBaselinePasses ? 1 : 0;
      if (complete == regions || (complete > 0 && count_ >= 4 * kBaselinePasses * regions)) {
        // The baseline's last rows name the candidate, and the hold may have predicted
        // another: on two GPUs it predicted GEMM's cores out, on a few rows, the baseline then
        // gave them none, and the trial took a GPU out, doubling two passes of a short run
        // (docs/results/tsar/trial-host-writes/). Not paid for, the hold goes on.
        if (budget_met()) {
          start_trial();
        } else {
          phase_ = Phase::kHolding;
          count_ = hold_passes();  // the passes were held; the budget is what it waits for
        }
      }
      return;
    }
    case Phase::kTrial:
      if (!chosen_) {  // nobody was named: nothing was tried
        choose({});
        return;
      }
      ++count_;
      trial_cost_ += excess();
      bool compared = false;
      if (!slot.seen) {
        slot.seen = true;  // its first pass this way pays the move
      } else if (timed && steady && slot.median > 0.0) {
        slot.ratios.push_back(tpi / slot.median);
        compared = true;
      }
      if (!first_round_checked_ && whole_rounds() >= 1) {
        first_round_checked_ = true;
        if (!returning_default() && round_ratio(true, 0) > 1.0 + kMargin) {
          decide(false, "first round slower");
          return;
        }
      }
      if (whole_rounds() >= static_cast<std::size_t>(kTrialPasses)) {
        const bool won = wins();
        decide(won, won ? "faster" : "not faster");
      } else if (count_ > (kTrialPasses + kUnsteadyPasses + 1) * regions) {
        decide(false, "too few steady passes");
      } else if (compared && cannot_win()) {
        decide(false, "cannot win");
      }
      return;
  }
}

void ParticipationTrial::start_trial() {
  phase_ = Phase::kTrial;
  count_ = 0;
  chosen_ = false;
  first_round_checked_ = false;
  trial_cost_ = 0.0;
  for (Slot& s : slots_) {
    s.seen = false;
    s.median = 0.0;
    s.ratios.clear();
    if (static_cast<int>(s.baseline.size()) < kBaselinePasses) continue;
    // On a copy: round j of the baseline is the j-th pass of every region.
    median_scratch_.assign(s.baseline.begin(), s.baseline.end());
    s.median = upper_median(median_scratch_);
    s.weight = s.median * static_cast<double>(s.iterations);
  }
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
  // Every baseline pass predicts as well: its rows are the ones the candidate is chosen by.
  if (phase_ == Phase::kBaseline) return true;
  if (!holding()) return false;
  const int passes = hold_passes();
  if (count_ + 1 < passes) return false;
  return budget_met() || (count_ + 1 - passes) % passes < recording_;
}

double ParticipationTrial::round_ratio(bool trial, std::size_t k) const {
  double sum = 0.0, weights = 0.0;
  for (const Slot& s : slots_) {
    if (s.ratios.empty()) continue;  // the same regions on both sides
    const std::vector<double>& v = trial ? s.ratios : s.baseline;
    if (k >= v.size()) continue;
    sum += s.weight * (trial ? v[k] : v[k] / s.median);
    weights += s.weight;
  }
  return weights > 0.0 ? sum / weights : -1.0;
}

void ParticipationTrial::take_rounds(std::size_t trial_rounds) {
  rounds_.clear();
  for (std::size_t k = 0; k < trial_rounds; ++k)
    if (const double r = round_ratio(true, k); r >= 0.0) rounds_.push_back(r);
  baseline_rounds_.clear();
  for (std::size_t j = 0; j < static_cast<std::size_t>(kBaselinePasses); ++j)
    if (const double b = round_ratio(false, j); b >= 0.0) baseline_rounds_.push_back(b);
}

double ParticipationTrial::bar() const {
  // Back to the default way (every unit its share) where that is no slower: header.
  return returning_default() ? 1.0 : 1.0 - kMargin;
}

bool ParticipationTrial::wins() {
  // One round -- the k-th compared pass of each region, a time step's loops -- is one sample
  // of the step's ratio, and so is each baseline round. The trial's way wins where its median
  // round is under bar() and, but for a return to the default way, its rounds lie below the
  // baseline's by a one-sided rank test at kAlpha. Where the two ways run alike, rounds are
  // exchangeable and the test switches with a chance of at most kAlpha, whatever the number of
  // loops. Summing each loop's slowest pass instead asks every loop's worst pass at once to
  // beat its best, which a step that gains seldom shows
  // (docs/results/tsar/trials-compose/2026-11-27-h200x2-a3b1fcb.txt, its traced trials).
  take_rounds(static_cast<std::size_t>(kTrialPasses));
  if (rounds_.empty()) return false;
  if (!returning_default()) {
    const int critical = critical_u(rounds_.size(), baseline_rounds_.size());
    if (pairs_not_below(rounds_, baseline_rounds_) > critical) return false;
  }
  return upper_median(rounds_) < bar();
}

std::size_t ParticipationTrial::whole_rounds() const {
  std::size_t done = static_cast<std::size_t>(kTrialPasses);
  for (const Slot& s : slots_)
    if (s.median > 0.0) done = std::min(done, s.ratios.size());
  return done;
}

bool ParticipationTrial::cannot_win() {
  // The rounds to come can only add to U and to the rounds at or over the bar: once either
  // loses with every round to come faster than all before, the trial ends. A trial that
  // clearly loses then costs about as many passes as one of three rounds a side did. Only
  // whole rounds count: a round some region has yet to run is weighed without it.
  take_rounds(whole_rounds());
  const auto over =
      std::count_if(rounds_.begin(), rounds_.end(), [&](double r) { return r >= bar(); });
  if (over >= kTrialPasses - kTrialPasses / 2) return true;  // upper_median(...) >= bar()
  if (returning_default()) return false;
  return pairs_not_below(rounds_, baseline_rounds_) >
         critical_u(static_cast<std::size_t>(kTrialPasses), baseline_rounds_.size());
}

void ParticipationTrial::decide(bool switch_way, const char* why) {
  // What TSAR_TRACE tells of it: the rounds in the order they ran (wins() reorders its copy).
  take_rounds(whole_rounds());
  last_ = {candidate_,
           back_in_,
           switch_way,
           why,
           rounds_,
           baseline_rounds_,
           pairs_not_below(rounds_, baseline_rounds_),
           critical_u(rounds_.size(), baseline_rounds_.size())};
  ++decisions_;
  if (back_in_) {
    // Back in for good, or kept out (a starved unit too), next to come back last.
    erase(kept_, candidate_);
    if (switch_way)
      erase(taken_out_, candidate_);
    else
      kept_.push_back(candidate_);
  } else if (switch_way) {
    // First to come back: a way that won on noise is undone by the next trial.
    kept_.insert(kept_.begin(), candidate_);
    taken_out_.push_back(candidate_);
    for (const std::string& u : with_)
      if (!contains(kept_, u)) kept_.push_back(u);
  }
  back_in_next_ = !back_in_;
  losses_ = switch_way ? 0 : std::min(losses_ + 1, kMaxLosses);
  // The next pass of each region runs as decided: where that is not the trial's way, it moves
  // rows back.
  for (Slot& s : slots_) s.reverted = !switch_way;
  candidate_.clear();
  back_in_ = false;
  with_.clear();
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

void ParticipationTrial::forget(std::string_view unit) {
  erase(kept_, unit);
  erase(taken_out_, unit);
  erase(with_, unit);
  if (candidate_.empty() || candidate_ != unit) return;
  candidate_.clear();
  back_in_ = false;
  if (phase_ == Phase::kTrial) hold();
}

void ParticipationTrial::forget_all() {
  kept_.clear();
  taken_out_.clear();
  with_.clear();
  candidate_.clear();
  back_in_ = false;
  if (phase_ == Phase::kTrial) hold();
}

}  // namespace tsar::core
