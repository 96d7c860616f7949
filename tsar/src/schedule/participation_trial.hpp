// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Whether a pass runs faster without one of its devices, decided by trying it.
//
// The split gives every device a share that finishes with the others' by each one's time per
// iteration. What a device costs the pass beyond its own share that model does not see: the
// halo rows every boundary between two memories copies, the launch and synchronisation of one
// more participant, the rows a data environment's other loops then fetch from it. Where those
// outweigh what its share saves, the pass is faster without it, and no per-iteration estimate
// says so: on two GPUs a short loop (25 us on one) was split between both, every boundary row
// went through the host, and each pass took 2-3x one GPU's
// (docs/results/tsar/two-gpu-short-loops/2026-11-26-h200x2-cd002d7.txt); on one GPU the cores'
// share of BiCGStab's loops made the GPU copy more than the cores computed. So the passes are
// measured, as ShareProbe does for how cores share a pass:
//
//   - kBaselinePasses steady passes as decided -- passes that moved no rows between memories,
//     nor copied in again rows the program wrote: a split still settling, or the program's
//     own update, is not what the decided way costs;
//   - then the other way: the candidate sits out, or comes back in. The planner names what it
//     could try without -- every unit that ran rows but the one that ran the most (an
//     accelerator by its device key, or kCpuUnit, the CPU devices together), fewest rows first,
//     whose rows the others take over most cheaply -- and, if any, a unit the split gives
//     nothing (the CPU devices starved by an estimate they can no longer correct). Trials
//     alternate, where both can be had, between trying the first of those out and bringing
//     back in a unit a decision keeps out, the unit kept out last first: every trial risks a
//     decision on noise, and the next one can undo it. Under 20% jitter a GPU of a twelfth
//     of the pass was taken out on noise and, 5% short of kMargin's gain, stayed out while
//     the trials went on to other units
//     (Planner.AcceleratorsThatHelpAreNotKeptOutUnderJitter). The starved unit is tried back
//     in only where no unit can be tried out: on two H200s, BiCGStab's second trial went to
//     the starved cores instead of a GPU, and no run of 100 steps ended on one GPU
//     (docs/results/tsar/trials-compose/2026-11-27-h200x2-a3b1fcb.txt). While a unit is
//     tried out, so sit the units the baseline gave no rows (PassPlanner::keep_idle_units_out,
//     also_out): its rows go to the units that ran, and the trial changes one thing. A
//     region's first pass that way pays for moving rows and is not compared, nor is any pass
//     that moved rows; up to kTrialPasses steady passes a region are, within kTrialPasses +
//     kUnsteadyPasses;
//   - decisions compose: a unit the trial's way wins without stays out (with the units that
//     sat out beside it), and later trials try the other units without it, or it back in.
//     One unit out at a time had kept a GPU in every short loop on two GPUs once the cores
//     were out (docs/results/tsar/starved-cores-trial/2026-11-27-h200x2-4748ff4.txt), and
//     tried the cores out again and again while they ran a few rows beside both GPUs
//     (docs/results/tsar/trial-one-change/2026-11-27-h200x2-526ec76.txt);
//   - each pass is compared with its own region's baseline (time per iteration over the
//     baseline's median), and the regions' ratios are weighed by their share of the time step:
//     each region's baseline median times the iterations it ran while the baseline was taken.
//     A time step gains what its loops gain together: on two GPUs BiCGStab's two
//     matrix-vector loops, a half of its step, ran in 0.6 of their time on one GPU while the
//     four other loops ran alike, and a median over the loops' ratios called that no gain
//     (docs/results/tsar/two-gpu-halos/2026-11-27-h200x2-80d1d62.txt). Of one region the
//     weighted ratio is its own ratio;
//   - a trial whose first round of compared passes is slower by more than kMargin ends there:
//     a device that helps costs one slower pass beside the move (not a trial back in of a unit
//     a trial took out: below); any trial ends once the rounds to come could not make it win
//     (cannot_win), so that one which clearly loses costs no more passes for having five
//     rounds: on one GPU BiCGStab's trials bringing back the cores a trial took out ran all
//     five, and the runs slowed
//     (docs/results/archive/tsar/trial-rank-test/2026-11-28-h200x2-c949a06.txt);
//   - a round is the k-th compared pass of every region (a time step's loops), its ratio the
//     regions' ratios weighed as above, and the baseline's rounds likewise; it counts once
//     every region with a baseline has run it (a region whose pass moved rows, or copied in
//     what the program wrote, runs it a step later: the rounds so far are not the step's
//     light loops alone, ParticipationTrial.AStepIsNotJudgedByTheLoopsThatRanFirst); the
//     other way is
//     taken when its median round is under 1 - kMargin and its rounds lie below the
//     baseline's by a one-sided rank test at kAlpha (schedule/rank_test.hpp; staying as
//     decided is the safe side: two ways that run alike switch with a chance of at most
//     kAlpha, however many loops the step has). Five rounds a side: of three, the test at
//     kAlpha asks every trial round to beat every baseline round, and on two GPUs BiCGStab's
//     trials of a GPU out, their median rounds 8-15% faster, lost on one round
//     (docs/results/tsar/trial-decisions-two-gpus/); five rounds find a 10% gain under 8%
//     noise about half the time, three about a third, at the same chance of switching on
//     noise (ParticipationTrial.FiveRoundsASideFindAGainThreeMiss). The way that gives every unit
//     its share is the default, though: a trial back in of a unit a trial out took out is taken
//     where its median round is under 1. Held to kMargin, a unit taken out on noise where the ways
//     lie within kMargin of each other stayed out for good, and a run's way depended on its noise
//     (Planner.CoresThatHelpAreNotKeptOutUnderJitter, seeds 17, 25 and 32). A starved unit,
//     which the split gave nothing, must gain kMargin;
//   - a trial starts after at least kWarmupPasses passes a region (the first) or kHoldPasses
//     (the next), and once the passes since the start or the last trial took 1 / kTrialShare
//     times what it is expected to cost: what the last trial cost beyond its baseline (its
//     moves, its slower passes), and what the planner predicts it costs by its own times --
//     moving the candidate's rows there and back by the link, and the passes without the
//     candidate at the others' rate, as predicted for the candidate the baseline's rows name
//     (a trial not paid for by then holds on). The regions of a data environment move the same rows
//     (the buffers their loops share) once, and each runs its own passes without the
//     candidate: the trial's moves are the largest region's prediction, its slower passes the
//     sum of theirs. Each trial in a row that changed nothing doubles both the passes and the
//     share's wait, up to 2^kMaxLosses: a decision that keeps holding costs ever less (cores
//     that run half of each pass lost 2.5% of a run to trials without them at a fixed share),
//     and a unit whose speed changed is still tried within 2^kMaxLosses holds. Trials cost at
//     most about kTrialShare of a run, however
//     costly a move or a device's absence: moving half of a Jacobi sweep's 268 MB grid from
//     one GPU to the other took a 10 ms pass, some 30 of its 0.3 ms passes, so a short run
//     of it never tries
//     (docs/results/archive/tsar/participation-trials/2026-11-26-h200x2-440c5bd.txt).
//
// The regions of one data environment share one trial (each a slot): the loops of a time step
// keep its rows where they are, so a unit sits out of all of them or of none, and the trial
// measures the step as all of them run it. A region on its own has a trial of its own.
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
