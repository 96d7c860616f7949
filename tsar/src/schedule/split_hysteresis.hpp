// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Hysteresis of the adaptive split where moving it moves data (thesis 5.4.3 keeps data
// resident; this decides when the split may take it elsewhere).
//
// A ratio plan lays the devices' ranges out in device order. When a boundary moves, the rows
// (or columns) that change owner must travel: persistent inputs into their new device,
// resident outputs out of their old one. A new split is worth it only when its predicted
// gain per pass, over the payback horizon, exceeds the predicted time of those moves; and
// a predicted gain within the time estimates' own scatter (SplitCosts::noise: at least
// kNoiseFraction of the pass) is what they cannot tell apart, never a reason to move -- a
// growing horizon would otherwise make any such gain pay: BiCGStab's loops moved rows to the
// cores about every 40 passes on a predicted 6% that the GPU's samples spread 17% either way,
// and each move cost 100-680 us against 20-40 us passes
// (docs/results/tsar/bicgstab-deferred-copies/2026-11-27-h100-996c59e.txt). Otherwise the previous
// split is kept -- except among devices that move nothing (host-memory devices), which re-split
// their own part of it by their new times, so CPU cores still balance.
//
// The gain is linear in the rows moved, and so is the cost: whether moving a row pays does
// not depend on how far the split is off, only on how long the new split will serve. That is
// estimated from how long the current split has served, since the pass its data last moved:
// a split that has held 100 passes holds 50 more with two chances in three (the lifetime
// law behind "as long again": P(it lasts to t | it lasted to a) = a / t), at least
// kPaybackPasses. Half, not all of it: the predicted gain is optimistic -- CPU cores measured
// on a small share run a larger one slower (their rows leave the caches), and the copies
// leave out what growing a device's window costs; a late move of the cores' share made the
// passes after it slower (the one-GPU run of
// docs/results/archive/tsar/bench-gpu-interleaved/2026-11-21-h200x2-b4bb757.txt).
// Large, real imbalances move at once because their gain per row (the bottleneck's time per
// row) exceeds its copy cost within kPaybackPasses; shuffling rows between two GPUs that each
// run a row in nanoseconds but copy it in microseconds waits until the split has shown it
// lives long enough. Counting from the last move, not from the
// region's start, bounds what chasing the estimates' noise can cost: after each move the
// next must again pay within the time the split has held -- counted from the start, a long
// region moved a few rows back and forth every few passes on gains that were noise.
//
// A split that moves data rests on every copying device's time having at least
// kSettledSamples samples: an accelerator's first learned pass is often cold (its buffers
// allocated or grown, its first launches), and one such sample, taken at face value, moved
// most of a GPU's rows to its twin -- which no later pass paid to move back. The estimators'
// lower median discounts one cold sample once a second one exists; until then the previous
// split is kept (its host-memory part still re-split).
//
// Every pass a split holds, each boundary between two devices' ranges costs the halo copies
// across it (costs.boundary: per copy a latency, per byte the link), paid by the device with
// its own memory. On short passes that is most of what co-execution costs -- a GPU loop pass
// of tens of microseconds gains a few from the cores' rows and pays a latency per halo copy -- so
// the predicted pass time counts it, and a split whose boundaries cost more than the cores
// gain is worse than the accelerators' alone (PassPlanner::drop_host_side_that_cannot_pay).
//
// Pure logic: times, costs and counts in, a decision out.

#include <cstdint>
#include <span>

#include "schedule/split_math.hpp"

namespace tsar::core {

/// A move must pay for itself within this many passes at least (payback_passes).
inline constexpr double kPaybackPasses = 8.0;
/// Samples a copying device's time needs before the split moves data on it.
inline constexpr std::int64_t kSettledSamples = 2;
/// Predicted gains below this fraction of the previous split's pass time are noise, however
/// steady the times.
inline constexpr double kNoiseFraction = 0.01;

/// What a split costs and predicts, per device.
struct SplitCosts {
  std::span<const double> tpi;  ///< seconds per iteration (+inf: not in the split)
  /// Seconds it costs the device to take or give up one iteration's data (0: moves nothing).
  std::span<const double> move_seconds;
  /// Devices that balance their ranges among themselves within a pass (CPU cores stealing):
  /// they finish together, as one device of their summed speed.
  std::span<const unsigned char> pooled;
  /// Devices whose times rest on kSettledSamples samples or more (empty: all of them).
  std::span<const unsigned char> settled = {};
  /// Passes a move must pay for itself within (payback_passes).
  double payback = kPaybackPasses;
  /// Seconds a pass costs the device for each neighbouring range another device holds (its
  /// halo copies: CopyCosts::boundary_*); empty: none.
  std::span<const double> boundary = {};
  /// Predicted gains below this fraction of the previous split's pass time are noise: the
  /// scatter of the times they rest on (TimeEstimator::scatter), at least kNoiseFraction.
  double noise = kNoiseFraction;
};

/// The payback horizon of a split whose data has stayed put for `passes` passes: half as many
/// again, at least kPaybackPasses.
double payback_passes(std::int64_t passes);

/// Predicted seconds of a pass split into `counts` (ranges in device order), each device's
/// boundary costs included.
double predicted_pass_seconds(std::span<const std::int64_t> counts, const SplitCosts& costs);

/// Seconds of the copies when the split changes from `previous` to `proposed`: each device's
/// iterations that change owner (the symmetric difference of its two ranges) times its
/// move_seconds.
double move_seconds(std::span<const std::int64_t> previous, std::span<const std::int64_t> proposed,
                    const SplitCosts& costs);

/// For each device, the iterations of its range in `next` that its range in `previous` did
/// not cover: what it copies in when the split changes (previous all 0: a first split).
void entering_iterations(std::span<const std::int64_t> previous, std::span<const std::int64_t> next,
                         std::span<std::int64_t> out);

/// Whether every device that moves data and holds iterations of `previous` has settled times
/// (costs.settled): otherwise a split that moves data keeps `previous`.
bool times_settled(std::span<const std::int64_t> previous, const SplitCosts& costs);

/// Replaces `proposed` by `previous` when moving to it does not pay, or when a device that
/// moves data and holds iterations in `previous` is not settled (see above), with the
/// devices that move nothing re-splitting each run of consecutive ones among themselves by
/// their times. Returns true when it kept the previous split. Both must cover the same number
/// of iterations; a device usable in one and not the other (+inf) always takes the proposal.
bool keep_split_unless_it_pays(std::span<const std::int64_t> previous,
                               std::span<std::int64_t> proposed, const SplitCosts& costs,
                               SplitScratch& scratch);

}  // namespace tsar::core
