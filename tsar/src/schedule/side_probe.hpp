// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Whether the CPU side's rows beside accelerators pay, decided by measuring whole passes.
//
// The split balances each device's measured time per iteration. What sharing a pass with the
// cores costs an accelerator beyond its own rows -- the boundary rows and partial results
// copied both ways, one more synchronisation, a launch that waits for the pass's staging --
// is mostly fixed per pass, but it lands in the accelerator's samples as time per iteration:
// the accelerator looks slower, the cores get more rows, and no prediction from those times
// shows that the accelerators alone would have finished sooner. On a BiCGStab step's loops of
// tens of microseconds the pass with the cores ran 1.7-2.5x as long as the GPU alone
// (docs/results/tsar/wake-tree/2026-11-26-h100-4dc161b.txt). So the region tries:
//
//   - once kHeld passes of the held way are measured and at least kFirstCheck passes ran,
//     one pass runs the other way (the accelerators alone, or with the cores again);
//   - the other way is taken when each of its kTried passes took less time per iteration than
//     every one of the held way's last kHeld: the first pass that does not ends the try. Pass
//     times scatter by tens of percent on a busy node; two ways that differ by less than that
//     scatter are not told apart by a few passes, and under the rule a way no faster than the
//     held one wins a try with probability 3! 5! / 8! < 2%, while a way whose passes are all
//     faster (the GPU alone on BiCGStab's loops) wins every try;
//   - the next try comes kFirstCheck passes later, twice as many after each try that kept the
//     held way (up to kMaxInterval): a try that loses costs one pass run the slower way, at
//     most one pass in kFirstCheck + 1 and over a long run one in kMaxInterval + 1, while a
//     node whose load changes is followed within kMaxInterval passes.
//
// Pure logic: pass times in, a decision out.

#include <array>
#include <cstdint>

namespace tsar::core {

class SideProbe {
 public:
  static constexpr int kHeld = 5;
  static constexpr int kTried = 3;
  static constexpr std::int64_t kFirstCheck = 16;
  static constexpr std::int64_t kMaxInterval = 128;

  /// Whether the coming pass runs on the accelerators alone.
  bool alone() const { return held_alone_ != trying_; }
  /// The pass that ran as alone() said took `seconds_per_iteration`; `pass` counts the
  /// region's passes.
  void record(double seconds_per_iteration, std::int64_t pass);
  /// Whether the coming pass tries the way not held.
  bool trying() const { return trying_; }
  /// The way held between tries: the accelerators alone (true) or with the cores.
  bool held_alone() const { return held_alone_; }
  /// Forgets everything (the devices changed: an accelerator was retired).
  void reset() { *this = SideProbe{}; }

 private:
  bool held_alone_ = false;
  bool trying_ = false;
  std::array<double, kHeld> held_{};  ///< the held way's last passes (a ring)
  std::int64_t held_count_ = 0;       ///< passes recorded into held_
  std::array<double, kTried> tried_{};
  int tried_count_ = 0;  ///< passes of the current try
  std::int64_t next_try_ = kFirstCheck;
  std::int64_t interval_ = kFirstCheck;
};

}  // namespace tsar::core
