// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The clock of the dispatch path. A vDSO clock_gettime costs 20-80 ns (more in VMs), as much
// as a whole chunk dispatch should; the invariant time-stamp counter costs ~20 cycles. TSAR
// reads the TSC where the kernel itself uses it as its clocksource (then it is constant-rate
// and synchronised across cores, so workers' arrival times compare), calibrated once against
// CLOCK_MONOTONIC; elsewhere it reads steady_clock.

#include <cstdint>

namespace tsar::core {

/// Seconds on a monotonic clock shared by all cores.
double now_seconds();

}  // namespace tsar::core
