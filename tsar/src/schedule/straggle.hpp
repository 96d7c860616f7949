// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Planning CPU cores for their slowest next to accelerators. A core slowed in a pass (noisy
// neighbours, a busy hyperthread sibling) holds up the whole pass; when an accelerator has
// most of the work, waiting for one such core costs far more than giving the cores a little
// less. So after each ratio (sub-)pass the leader measures how much longer the slowest CPU
// core ran than the CPU mean, smooths it, and the next split plans CPU cores that much slower
// -- in regions with accelerators only (in CPU-only regions it would scale every device alike),
// and only where the cores keep their ranges: cores that steal from each other (the adaptive
// schedules' CPU share) finish together whatever one of them does.

#include <cstdint>
#include <span>

namespace tsar::core {

/// The slowest CPU core's busy time over the CPU mean in one (sub-)pass; 1 with fewer than two
/// cores or no time.
double straggle_ratio(std::span<const double> cpu_busy);
/// The planned ratio after a new measurement, within [1, 3] (a core three times the mean is an
/// outlier, not a trend): a larger ratio is taken at once -- the straggler of the next pass is
/// as likely as this one's -- a smaller one only a tenth at a time, so a lucky pass does not
/// undo the allowance.
double smooth_straggle(double previous, double ratio);
/// The planned ratio after pass `pass` (0-based) of a region measured `cpu_busy`:
/// smooth_straggle of its straggle_ratio -- except for the region's first pass, whose spread
/// is start-up (pages touched first, cold caches, a CPU share cut in single iterations before
/// any core was measured), not the cores: taken at once, it would plan the cores up to three
/// times slower for the twenty-odd passes the allowance takes to decay.
double straggle_after_pass(double previous, std::span<const double> cpu_busy, std::int64_t pass);

}  // namespace tsar::core
