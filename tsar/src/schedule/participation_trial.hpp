// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Whether a pass runs faster without one of its devices, decided by trying it.
//
// Why. The split gives every device a share that finishes with the others' by each one's time
// per iteration. It does not see what a device costs the pass beyond its share: the halo rows
// each boundary between two memories copies, the launch and synchronisation of one more
// participant, the rows the data environment's other loops then fetch from it. Where those
// outweigh what its share saves, the pass is faster without it and no per-iteration estimate
// says so (a short loop split over two GPUs: docs/results/tsar/two-gpu-short-loops/; the
// cores' share of BiCGStab's loops beside one GPU). So the passes are measured, as ShareProbe
// measures how cores share a pass.
//
// A trial, in order:
//   1. Hold: at least kWarmupPasses passes a region before the first trial, kHoldPasses before
//      the next, and until the passes held since the last trial paid 1 / kTrialShare times
//      what the next is expected to cost: the last trial's cost beyond its baseline, and each
//      region's planner's prediction (moving the candidate's rows there and back by the link,
//      its passes at the others' rate). A data environment's regions move shared rows once
//      (the largest prediction) and each runs its own passes (summed). Each trial in a row that
//      changed nothing doubles the hold and the budget, up to 2^kMaxLosses. The budget is
//      checked again once the baseline is taken, whose last rows name the candidate
//      (docs/results/tsar/trial-host-writes/). Trials cost at most about kTrialShare of a run
//      however costly a move (a Jacobi grid moved between two GPUs costs more than a short run
//      gains: docs/results/archive/tsar/participation-trials/).
//   2. Baseline: kBaselinePasses steady passes as decided -- passes that moved no rows between
//      memories and did not copy in again rows the program wrote; a split still settling, or
//      the program's own update, is not what the decided way costs.
//   3. Candidate (choose): either a unit to try out -- every unit that ran rows but the one
//      that ran the most (an accelerator by its key, or kCpuUnit for the CPU devices
//      together), fewest rows first -- or a unit a decision keeps out, brought back in (the
//      last kept out first). Trials alternate between the two where both exist: a decision
//      taken on noise is undone by the next (Planner.AcceleratorsThatHelpAreNotKeptOutUnderJitter).
//      A unit the split starves (no rows, by an estimate it can no longer correct) is tried
//      back in only when nothing can be tried out (docs/results/tsar/trials-compose/). While a
//      unit is tried out the units that ran no baseline rows sit out too (also_out), so the
//      trial changes one thing.
//   4. The other way: its first pass a region pays the move and is not compared, nor is any
//      pass that moved rows; up to kTrialPasses steady passes a region are compared, within
//      kTrialPasses + kUnsteadyPasses.
//   5. Decision. Each pass is compared with its region's baseline median (time per
//      iteration), and the regions' ratios are weighed by their share of the time step (the
//      baseline median times the iterations run meanwhile): a step gains what its loops gain
//      together (docs/results/tsar/two-gpu-halos/). A round is the k-th compared pass of every
//      region; it counts once every region with a baseline has run it, so a step is not judged
//      by its light loops alone (ParticipationTrial.AStepIsNotJudgedByTheLoopsThatRanFirst).
//      The trial ends
//        - "first round slower": its first round is slower than 1 + kMargin (a unit that helps
//          costs one slow pass beside the move); not for a unit a trial took out, coming back;
//        - "cannot win": the rounds to come could not make it win
//          (docs/results/archive/tsar/trial-rank-test/);
//        - "faster" / "not faster" after kTrialPasses rounds: the other way is taken when its
//          median round is under 1 - kMargin and its rounds lie below the baseline's by a
//          one-sided rank test at kAlpha (schedule/rank_test.hpp). Staying is the safe side:
//          two ways that run alike switch with a chance of at most kAlpha, however many loops
//          the step has. Five rounds a side find a 10% gain under 8% noise about half the time,
//          three a third, at the same chance of switching on noise
//          (ParticipationTrial.FiveRoundsASideFindAGainThreeMiss;
//          docs/results/tsar/trial-decisions-two-gpus/);
//        - "too few steady passes": the rounds did not come within the passes allowed.
//      The way that gives every unit its share is the default: bringing back a unit a trial
//      took out needs only a median round under 1. Held to kMargin, a unit taken out on noise
//      stayed out where the two ways run within kMargin of each other
//      (Planner.CoresThatHelpAreNotKeptOutUnderJitter). A starved unit must gain kMargin.
//   6. Decisions compose: a unit the trial's way wins without stays out (with the units that
//      sat out beside it), and later trials try the others without it, or it back in. One unit
//      out at a time kept a GPU in every short loop on two GPUs once the cores were out
//      (docs/results/tsar/starved-cores-trial/, docs/results/tsar/trial-one-change/).
//
// The regions of one data environment share one trial (a slot each): a time step's loops keep
// its rows where they are, so a unit sits out all of them or none, and the trial measures the
// step as they all run it. A region on its own has a trial of its own.
//
// Pure logic: pass times in, a decision out. SharedTrial adds the lock its planners take.

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tsar::core {

class ParticipationTrial {
 public:
  static constexpr int kWarmupPasses = 4;
  static constexpr int kBaselinePasses = 5;
  static constexpr int kTrialPasses = 5;
  static constexpr int kUnsteadyPasses = 3;
  static constexpr double kMargin = 0.05;
  static constexpr double kAlpha = 0.05;
  static constexpr int kHoldPasses = 64;
  static constexpr double kTrialShare = 0.05;
  static constexpr int kMaxLosses = 4;
  /// The CPU devices together, as a candidate.
  static constexpr const char* kCpuUnit = "cpu";

  /// A region that records into this trial: its slot.
  int join();
  /// Whether the coming pass starts a trial: the planner names what it could try (choose).
  bool choosing() const { return phase_ == Phase::kTrial && !chosen_; }
  /// A trial's candidate, and whether the trial brings it back in (else it tries it out).
  struct Choice {
    std::string unit;  ///< "": nothing to try
    bool back_in = false;
  };
  /// What choose(outs, starved) would name: `outs`, the units the planner could try without,
  /// fewest rows first; `starved`, a unit the split gives nothing ("": none).
  Choice next(const std::vector<std::string>& outs, std::string_view starved) const;
  /// Starts the trial next(outs, starved) names; nothing to try: the trial is skipped and held
  /// again. A starved unit whose trial back in loses is kept out from then on.
  void choose(const std::vector<std::string>& outs, std::string_view starved = {});
  /// The unit the trial is about ("" when none).
  const std::string& candidate() const { return candidate_; }
  /// Whether `unit` sits out the coming pass: the candidate tried out, or a unit kept out
  /// that is not being brought back.
  bool out(std::string_view unit) const;
  /// Whether any unit sits out the coming pass.
  bool any_out() const { return !kept_.empty() || trying_out(); }
  /// Whether a decision keeps `unit` out.
  bool kept_out(std::string_view unit) const;
  /// Whether a trial of the candidate out is under way.
  bool trying_out() const { return phase_ == Phase::kTrial && !candidate_.empty() && !back_in_; }
  /// Whether the candidate is coming back: a trial of it back in is under way.
  bool returning() const { return phase_ == Phase::kTrial && !candidate_.empty() && back_in_; }
  /// `unit` sits out the passes of the trial out under way beside its candidate (it ran no
  /// rows in the baseline): if the candidate's way wins, it is kept out too.
  void also_out(std::string_view unit);
  /// What a region's planner predicts the trial it would start now costs that region, in
  /// seconds: moving the candidate's rows there and back, and its passes without the
  /// candidate beyond their baseline. moves < 0: no prediction (kUnchanged).
  struct Cost {
    double moves = -1.0;
    double passes = 0.0;
  };
  static constexpr Cost kUnchanged{-1.0, 0.0};
  /// A pass of region `slot` as out() said ran `seconds` for `n` iterations; `steady`: it
  /// moved no rows between memories; `expected`: its planner's prediction, given only where
  /// needs_prediction() asked for it before the pass; `host_written`: the program wrote rows
  /// of the region's buffers since its last pass (tsar_data_update_device,
  /// tsar_mem_invalidate, tsar_retarget_mem), which the pass copied in again.
  void record(int slot, double seconds, std::int64_t n, bool steady = true,
              Cost expected = kUnchanged, bool host_written = false);
  /// Whether the next record should carry a new prediction: every baseline pass; between
  /// trials, once the passes held and the predictions known would let the next trial start,
  /// and past the hold's passes once every hold_passes() passes of each region (a prediction
  /// walks the workers: not every pass).
  bool needs_prediction() const;
  /// Whether the next record's rows choose the candidate (the last baseline passes).
  bool needs_rows() const { return phase_ == Phase::kBaseline; }
  /// `unit` can no longer run (retired, lost): a decision or trial about it ends.
  void forget(std::string_view unit);
  /// No unit can be left out (none would run the pass): every decision and trial ends.
  void forget_all();
  /// Whether the last trial decided changed nothing.
  bool lost() const { return losses_ > 0; }

  /// A trial as decided, for TSAR_TRACE.
  struct Decision {
    std::string unit;  ///< the candidate
    bool back_in = false;
    bool switched = false;  ///< the trial's way was taken
    const char* why = "";   ///< "faster", "not faster", "first round slower", "cannot win", ...
    std::vector<double> rounds, baseline;  ///< ratios to the baseline medians, as they ran
    int u = 0;                             ///< pairs_not_below(rounds, baseline)
    int critical = -1;                     ///< the rank test's largest U that wins
  };
  /// Trials decided so far.
  std::uint64_t decisions() const { return decisions_; }
  /// The last trial decided (empty before the first).
  const Decision& last_decision() const { return last_; }

 private:
  enum class Phase { kWarmup, kBaseline, kTrial, kHolding };
  bool holding() const { return phase_ == Phase::kWarmup || phase_ == Phase::kHolding; }
  /// Passes, of all regions recording, a hold lasts at least.
  int hold_passes() const;
  /// 2^(trials in a row that changed nothing), at most 2^kMaxLosses.
  int back_off() const { return 1 << losses_; }
  /// Whether the passes held paid for the next trial's predicted and last measured cost.
  bool budget_met() const;
  /// Whether the hold is over by the passes counted and held and the predictions known.
  bool paid() const;
  struct Slot {
    std::vector<double> baseline;  ///< seconds per iteration
    double median = 0.0;           ///< 0: no baseline this trial
    std::int64_t iterations = 0;   ///< iterations of its timed passes since the baseline began
    double weight = 0.0;           ///< its share of the step: median * iterations
    std::vector<double> ratios;    ///< its compared passes over its baseline median
    bool seen = false;             ///< ran a pass the trial's way
    bool reverted = false;         ///< its next pass moves the candidate's rows back
    bool recorded = false;         ///< ran a pass the trial decides
    Cost expected{0.0, 0.0};       ///< its planner's latest prediction of a trial's cost
    bool predicted = false;        ///< predicted since the hold began
    bool written_before = false;   ///< its last pass followed a write of the program's
  };
  /// Keeps `expected` (unless kUnchanged) as the slot's latest prediction.
  void note_prediction(Slot& slot, Cost expected);
  void hold();
  void start_trial();
  /// Whether the trial brings back a unit a trial of it out took out (taken_out_).
  bool returning_default() const;
  /// Round k of the trial's compared passes (or of the baseline's), over the slots that
  /// compared a pass: their ratios to their baseline medians weighed by the slots' weights;
  /// -1 when no such slot has a k-th pass.
  double round_ratio(bool trial, std::size_t k) const;
  /// The rounds every region with a baseline has compared a pass of.
  std::size_t whole_rounds() const;
  /// rounds_ and baseline_rounds_: the trial's first `trial_rounds` rounds, the baseline's.
  void take_rounds(std::size_t trial_rounds);
  /// The median round the trial's way must come in under.
  double bar() const;
  bool wins();
  /// Whether no rounds to come could make the trial's way win, by the rounds every compared
  /// region has run.
  bool cannot_win();
  /// Ends the trial: the trial's way is kept where `switch_way`; `why` goes to last_decision().
  void decide(bool switch_way, const char* why);

  std::vector<Slot> slots_;
  std::vector<double> rounds_;  ///< wins(): the trial's rounds (kept: no allocation a pass)
  std::vector<double> baseline_rounds_;  ///< wins(): the baseline's rounds
  std::vector<double> median_scratch_;   ///< start_trial(): a baseline to take the median of
  int recording_ = 0;                    ///< slots that recorded a pass
  Phase phase_ = Phase::kWarmup;
  int count_ = 0;  ///< passes into the current phase, all slots'
  std::string candidate_;
  bool back_in_ = false;  ///< the trial brings the candidate back in
  bool chosen_ = false;
  std::vector<std::string> kept_;  ///< units decisions keep out, the next to come back first
  /// Of kept_, the units a trial of them out took out: the way that gives them their share
  /// is the default, and a trial back in need not beat the way without them by kMargin.
  std::vector<std::string> taken_out_;
  std::vector<std::string> with_;  ///< units sitting out beside the candidate tried out
  bool back_in_next_ = false;      ///< the last trial tried a unit out: bring one back next
  int losses_ = 0;                 ///< trials in a row that changed nothing
  bool first_round_checked_ = false;
  double trial_cost_ = 0.0;    ///< seconds the trial's passes took beyond the baselines
  double held_seconds_ = 0.0;  ///< seconds of the passes held since
  /// The slots' latest predictions together: the largest moves, the passes summed.
  double expected_ = 0.0;
  std::uint64_t decisions_ = 0;
  Decision last_;
};

/// A trial its regions' planners share, with the lock they take around it (their passes may
/// overlap at their edges: a pass records after it left the data environment).
struct SharedTrial {
  std::mutex mutex;
  ParticipationTrial trial;
};

}  // namespace tsar::core
