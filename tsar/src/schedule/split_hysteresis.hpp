#pragma once
// Hysteresis of the adaptive split where moving it moves data (thesis 5.4.3 keeps data
// resident; this decides when the split may take it elsewhere).
//
// A ratio plan lays the devices' ranges out in device order. When a boundary moves, the rows
// (or columns) that change owner must travel: persistent inputs into their new device,
// resident outputs out of their old one. A new split is worth it only when its predicted
// gain per pass, over kPaybackPasses passes, exceeds the predicted time of those moves; and
// a predicted gain below kNoiseFraction of the pass is within what the time estimates can
// tell apart, never a reason to move. Otherwise the previous split is
// kept -- except among devices that move nothing (host-memory devices), which re-split their
// own part of it by their new times, so CPU cores still balance.
//
// The gain is linear in the rows moved, and so is the cost: whether moving a row pays does
// not depend on how far the split is off. Large, real imbalances still move because their
// gain per row (the bottleneck's time per row) exceeds its copy cost; shuffling rows between
// two GPUs that each run a row in nanoseconds but copy it in microseconds does not.
//
// Pure logic: times, costs and counts in, a decision out.

#include <cstdint>
#include <span>

#include "schedule/split_math.hpp"

namespace tsar::core {

/// A move must pay for itself within this many passes.
inline constexpr double kPaybackPasses = 8.0;
/// Predicted gains below this fraction of the previous split's pass time are noise.
inline constexpr double kNoiseFraction = 0.01;

/// What a split costs and predicts, per device.
struct SplitCosts {
  std::span<const double> tpi;  ///< seconds per iteration (+inf: not in the split)
  /// Seconds it costs the device to take or give up one iteration's data (0: moves nothing).
  std::span<const double> move_seconds;
  /// Devices that balance their ranges among themselves within a pass (CPU cores stealing):
  /// they finish together, as one device of their summed speed.
  std::span<const unsigned char> pooled;
};

/// Predicted seconds of a pass split into `counts` (ranges in device order).
double predicted_pass_seconds(std::span<const std::int64_t> counts, const SplitCosts& costs);

/// Seconds of the copies when the split changes from `previous` to `proposed`: each device's
/// iterations that change owner (the symmetric difference of its two ranges) times its
/// move_seconds.
double move_seconds(std::span<const std::int64_t> previous, std::span<const std::int64_t> proposed,
                    const SplitCosts& costs);

/// For each device, the iterations of its range in `next` that its range in `previous` did
/// not cover: what it copies in when the split changes (previous all 0: a first split).
void entering_iterations(std::span<const std::int64_t> previous,
                         std::span<const std::int64_t> next, std::span<std::int64_t> out);

/// Replaces `proposed` by `previous` when moving to it does not pay (see above), with the
/// devices that move nothing re-splitting each run of consecutive ones among themselves by
/// their times. Returns true when it kept the previous split. Both must cover the same number
/// of iterations; a device usable in one and not the other (+inf) always takes the proposal.
bool keep_split_unless_it_pays(std::span<const std::int64_t> previous,
                               std::span<std::int64_t> proposed, const SplitCosts& costs,
                               SplitScratch& scratch);

}  // namespace tsar::core
