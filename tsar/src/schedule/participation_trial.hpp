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
// share of BiCGStab's loops made the GPU copy more than the cores computed. So the region
// measures, as ShareProbe does for how cores share a pass:
//
//   - after kWarmupPasses (the split settles), kBaselinePasses passes as decided;
//   - then the other way: the candidate (the unit with the fewest rows, named by the planner)
//     sits out, or comes back once it sat out. The first such pass pays for moving rows and
//     is not compared; then up to kTrialPasses passes are;
//   - a trial whose first compared pass is slower than the baseline's median time per
//     iteration by more than kMargin ends there: a device that helps costs one slower pass
//     beside the move, not a whole block;
//   - the other way is taken when its median is lower than the baseline's by more than
//     kMargin and each of its compared passes was faster than each baseline pass (staying
//     as decided is the safe side: noise must not switch it);
//   - the next trial comes after at least kHoldPasses passes and once the passes since took
//     1 / kTrialShare times what this trial cost beyond the baseline (its moves, its slower
//     passes): trials cost at most about kTrialShare of a run, however costly a move is.
//
// The schedule counts passes only: the regions of one time step run the same number of
// passes, so their trials fall on the same passes and each measures the step as all of them
// run it -- a data environment's rows move together.
//
// Pure logic: pass times in, a decision out.

#include <cstdint>
#include <vector>

namespace tsar::core {

class ParticipationTrial {
 public:
  static constexpr int kWarmupPasses = 4;
  static constexpr int kBaselinePasses = 3;
  static constexpr int kTrialPasses = 3;
  static constexpr double kMargin = 0.05;
  static constexpr int kHoldPasses = 64;
  static constexpr double kTrialShare = 0.05;

  /// No candidate.
  static constexpr int kNone = -1;

  ParticipationTrial();
  /// Whether the coming pass starts a trial: the planner names its candidate first (choose).
  bool choosing() const { return phase_ == Phase::kTrial && count_ == 0 && !decided_out_; }
  /// The unit to try without (kNone: nothing to try; the trial is skipped and held again).
  void choose(int candidate);
  /// The unit the trial is about (kNone when none).
  int candidate() const { return candidate_; }
  /// Whether the candidate sits out the coming pass.
  bool out() const;
  /// The coming pass as out() said ran `seconds` for `n` iterations.
  void record(double seconds, std::int64_t n);
  /// The candidate can no longer run (retired, lost): the decision and any trial end.
  void forget();
  /// Whether the last decision keeps the candidate out.
  bool decided_out() const { return decided_out_; }

 private:
  enum class Phase { kWarmup, kBaseline, kTrial, kHolding };
  bool wins();
  void decide(bool switch_way);

  Phase phase_ = Phase::kWarmup;
  int count_ = 0;  ///< passes into the current phase
  int candidate_ = kNone;
  bool decided_out_ = false;
  std::vector<double> baseline_, trial_;  ///< seconds per iteration
  double baseline_median_ = 0.0;
  double baseline_fastest_ = 0.0;
  double trial_cost_ = 0.0;    ///< seconds the trial's passes took beyond the baseline
  double held_seconds_ = 0.0;  ///< seconds of the passes held since
  bool reverted_ = false;      ///< the first held pass moves the candidate's rows back
};

}  // namespace tsar::core
