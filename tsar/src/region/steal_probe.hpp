#pragma once
// Whether a CPU-only region's cores steal from each other, decided by trying both.
//
// Stealing (queue/stealing_ranges.hpp) absorbs imbalance within a pass: a triangular loop, a
// core slowed by another program. But a stolen piece runs on a core whose caches hold other
// rows. Where a loop's data stays in the cores' caches from pass to pass (Gram-Schmidt's
// columns, under 1 MB over 16 cores, in passes of tens of microseconds) a thief pulls every
// line of its piece from the owner's cache, and the owner pulls them back in the next pass:
// on a 16-core H200 node Gram-Schmidt ran 1.6x slower with stealing than without, while
// CORR's triangular loops ran 1.2x slower without it. Which one wins depends on the loop and
// the machine, so the region measures it:
//
//   - after kWarmupPasses (the cold first passes say nothing about either),
//   - four blocks of kBlockPasses passes: with stealing, without, without, with (the order
//     cancels a steady trend in the pass times, as Gram-Schmidt's shrinking passes have);
//     the first pass after a change is left out, since it pays for the previous block's
//     steals (rows in the thieves' caches) or still has them,
//   - stealing stays on unless the median time per iteration without it is lower than with
//     it by more than kMargin (stealing is the safe side: it bounds imbalance),
//   - the decision holds for kHoldPasses passes, then the region tries again: what a loop
//     does can change, and so can the machine's load.
//
// Pure logic: pass times in, a decision out.

#include <cstdint>
#include <vector>

namespace tsar::core {

class StealProbe {
 public:
  static constexpr int kWarmupPasses = 2;
  static constexpr int kBlockPasses = 4;
  static constexpr int kProbePasses = 4 * kBlockPasses;
  static constexpr double kMargin = 0.05;
  static constexpr int kHoldPasses = 256;

  StealProbe();
  /// Whether the coming pass steals.
  bool steals() const;
  /// The pass that ran as steals() said took `seconds` for `n` iterations. Passes that could
  /// not steal (one core, chunk plans, accelerators) are not recorded.
  void record(double seconds, std::int64_t n);
  /// The decision of the last completed probe (true before the first one completes).
  bool decided_steal() const { return decided_steal_; }

 private:
  enum class Phase { kWarmup, kProbing, kHolding };
  /// Whether pass `index` of a probe steals (blocks with, without, without, with).
  static bool probe_steals(int index);
  void decide();

  Phase phase_ = Phase::kWarmup;
  int count_ = 0;  ///< passes into the current phase
  bool decided_steal_ = true;
  bool last_steals_ = true;  ///< what the last recorded pass did
  std::vector<double> with_, without_;  ///< seconds per iteration of the probe's passes
};

}  // namespace tsar::core
