// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How a CPU-only region's cores share a pass, decided by trying each way.
//
// Three ways, each best for some loops on some machines:
//   kSteal   each core owns the contiguous range the split gave it and the others steal from
//            it when they run out (queue/stealing_ranges.hpp): imbalance within the pass (a
//            triangular loop, a core slowed by another program) is absorbed, not waited out;
//   kOwn     each core runs its own range and nothing else: where a loop's data stays in the
//            cores' caches from pass to pass (Gram-Schmidt's columns, under 1 MB over 16
//            cores, in passes of tens of microseconds) a thief pulls every line of its piece
//            from the owner's cache and the owner pulls them back in the next pass;
//   kChunks  the pass as chunks of n / (kChunksPerCore * cores), taken in order from one
//            queue, as OpenMP's dynamic schedule does: loops that walk columns of a
//            row-major matrix (ATAX's A^T x, MVT, BICG) run faster when all cores walk
//            neighbouring columns at the same time than on contiguous blocks of columns.
// No way wins everywhere: Gram-Schmidt runs faster on its own ranges, CORR's triangular loops
// need stealing, ATAX's column loop runs faster in chunks (measured in
// docs/results/tsar/cpu-sharing-variants/2026-11-21-h200-c6bd1b5.jsonl and
// docs/results/tsar/column-loops/2026-11-21-h200-02eb39f.txt). So the region measures:
//
//   - after kWarmupPasses (the cold first passes say nothing),
//   - six blocks of kBlockPasses passes: steal, own, chunks, chunks, own, steal (the order
//     cancels a steady trend in the pass times, as Gram-Schmidt's shrinking passes have);
//     the first pass after a change is left out, since it pays for the previous block
//     (rows in other cores' caches),
//   - a way whose first block's median time per iteration is already higher than
//     stealing's by more than kMargin is out of this probe: its second block is skipped.
//     A probe's passes the other ways are its cost -- on 3DCONV, pieces of a plane each
//     read three planes, so its eight chunked passes ran at a fraction of the speed, and in
//     a run of ten passes a probe is most of the run -- and a way that lost its first
//     block by more than the margin would need its second to win by far more to be taken,
//
//   - stealing stays unless another way's median time per iteration is lower than its by
//     more than kMargin (stealing is the safe side: it bounds imbalance); of two such ways
//     the faster one is taken,
//   - the decision holds for kHoldPasses passes, then the region tries again: what a loop
//     does can change, and so can the machine's load. Each probe that confirms the last
//     decision doubles the hold (up to kMaxHoldDoublings times): a probe costs its passes
//     run the slower ways, which a settled loop should not pay every few hundred passes.
//
// Pure logic: pass times in, a decision out.

#include <array>
#include <cstdint>
#include <vector>

namespace tsar::core {

enum class ShareMode : int { kOwn = 0, kSteal = 1, kChunks = 2 };

/// The name of a share mode for traces ("own", "steal", "chunks").
const char* share_mode_name(ShareMode mode);

class ShareProbe {
 public:
  static constexpr int kWarmupPasses = 2;
  static constexpr int kBlockPasses = 4;
  static constexpr int kProbePasses = 6 * kBlockPasses;
  static constexpr double kMargin = 0.05;
  static constexpr int kHoldPasses = 256;
  static constexpr int kMaxHoldDoublings = 4;
  /// Chunks per core of a pass shared as chunks (OpenMP peers in the suite use 8 too).
  static constexpr std::int64_t kChunksPerCore = 8;

  ShareProbe();
  /// How the coming pass shares its iterations.
  ShareMode mode() const;
  /// The pass that ran as mode() said took `seconds` for `n` iterations. Passes the probe
  /// does not decide (accelerators, teams, one core, chunk schedules) are not recorded.
  void record(double seconds, std::int64_t n);
  /// The decision of the last completed probe (kSteal before the first one completes).
  ShareMode decided() const { return decided_; }
  /// Whether a probe is running (its passes try each way).
  bool probing() const { return phase_ == Phase::kProbing; }

 private:
  enum class Phase { kWarmup, kProbing, kHolding };
  /// The mode of pass `index` of a probe (blocks steal, own, chunks, chunks, own, steal).
  static ShareMode probe_mode(int index);
  void decide();
  /// At a block boundary of a probe: drops a way that lost its first block, and skips the
  /// blocks of dropped ways.
  void drop_losing_ways();

  Phase phase_ = Phase::kWarmup;
  int count_ = 0;  ///< passes into the current phase
  ShareMode decided_ = ShareMode::kSteal;
  ShareMode last_ = ShareMode::kSteal;  ///< the mode of the last recorded pass
  int doublings_ = 0;                   ///< probes in a row that confirmed the decision
  /// Seconds per iteration of the probe's passes, by mode.
  std::array<std::vector<double>, 3> samples_;
  /// Ways out of the current probe (drop_losing_ways).
  std::array<bool, 3> dropped_{};
};

}  // namespace tsar::core
