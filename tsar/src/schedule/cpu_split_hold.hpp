// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The CPU cores' part of a ratio split keeps its boundaries while they are near balance.
//
// Cores that balance their ranges within a pass (queue/stealing_ranges.hpp) finish together
// whatever their split; what a re-split changes is which core holds which rows in its cache.
// Following every pass's per-core times moves rows between cores each pass, and in a sequence
// of loops over the same rows (FDTD-2D's three updates, a stencil and its copy) each loop's
// split drifts its own way: a core then reads rows another loop left in another core's cache,
// runs slower, and the next split learns that. So the cores keep the previous pass's counts
// unless, by the new times, one of them would run more than kCpuHoldBand longer than the
// cores' balanced time -- more than stealing should have to move every pass (a core slowed by
// another program, a triangular loop before its split converged).
//
// Pure logic: counts and times in, a decision out.

#include <cstdint>
#include <span>

namespace tsar::core {

/// How much longer than balanced a held core may be planned to run.
inline constexpr double kCpuHoldBand = 0.2;

/// Replaces the pooled devices' counts in `proposed` by theirs in `previous` when every other
/// device's count is unchanged and no pooled device j would run previous[j] * tpi[j] more
/// than `band` longer than the pooled devices' balanced time (an infinite band keeps them
/// whatever the times). Returns true when it kept them. Sizes must match (else nothing is
/// kept); pooled devices need finite times > 0.
bool hold_cpu_split(std::span<const std::int64_t> previous, std::span<std::int64_t> proposed,
                    std::span<const double> tpi, std::span<const unsigned char> pooled,
                    double band = kCpuHoldBand);

}  // namespace tsar::core
