// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Per-core load over a window and each core's *effective capability* for the job: the share
// of the core left to it after hardware interrupts, soft interrupts, hypervisor steal and
// foreign processes of the job's priority (docs/architecture.md; thesis 3.3); niced work
// yields to the job and does not count. Computed from two ProcSnapshots.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "symmer/expected.hpp"
#include "symmer/topology/node_model.hpp"
#include "symmer/topology/proc_reader.hpp"

namespace symmer::topology {

/// The clock ticks of one CPU, or of one core's CPUs together, during a window, by where they
/// went, and the job's own CPU time there in ticks. Unlike shares, ticks of consecutive windows
/// add up to those of the span they cover, the counters' rounding included.
struct CoreTicks {
  std::uint64_t busy = 0;  ///< user+nice+system
  std::uint64_t nice = 0;  ///< the part of busy run at a positive nice value
  std::uint64_t irq = 0, softirq = 0, steal = 0;
  std::uint64_t idle = 0;  ///< idle + iowait
  double job = 0;          ///< the job's CPU time there as given, not limited to busy
  std::uint64_t total() const { return busy + irq + softirq + steal + idle; }
  CoreTicks& operator+=(const CoreTicks& o);
};

/// CoreLoad::capability of `ticks`: the job's time is limited to the busy ticks and the result
/// to [0, 1] here, once for whatever span the ticks cover. 1 when they hold no tick.
double capability_of(const CoreTicks& ticks);

/// Where the time of one CPU, or of one core's CPUs together, went during a window. Shares
/// are fractions of that time, in [0,1].
struct CoreLoad {
  int core = -1;              ///< logical core of the model; -1 in per-CPU results
  std::vector<int> cpus;      ///< Linux CPUs it covers
  double window_seconds = 0;  ///< the window as the CPU counters measured it (per CPU)
  double busy = 0;            ///< user+nice+system: every process, kernel threads, guests
  double job = 0;             ///< the job's own busy share (given by the caller), <= busy
  double foreign = 0;         ///< busy - job: other processes and kernel threads
  /// The part of `foreign` run at a positive nice value beyond the job's own share: work
  /// that yields to a job at nice 0 (the kernel gives a nice-0 thread 55% of a CPU against
  /// one nice-1 thread, 75% against nice 5, 90% against nice 10), so it does not lower
  /// `capability`.
  double background = 0;
  double irq = 0;             ///< hardware interrupt handling
  double softirq = 0;         ///< soft interrupt handling (network stack, block, timers)
  double steal = 0;           ///< time the hypervisor gave to other guests
  double idle = 0;            ///< idle + iowait
  /// 1 - irq - softirq - steal - (foreign - background), clamped to [0,1]: what the job can
  /// get without taking from other work of its own priority.
  double capability = 1;
  std::uint64_t device_interrupts = 0;  ///< device interrupt lines' counts in the window
  std::uint64_t net_rx = 0;             ///< NET_RX soft interrupts raised in the window
  std::uint64_t net_tx = 0;             ///< NET_TX soft interrupts raised in the window
  CoreTicks ticks;                      ///< what the shares were read from
};

/// Clock ticks per second of /proc/stat on this node (sysconf(_SC_CLK_TCK), usually 100).
double clock_ticks_per_second();

/// Load of every Linux CPU present in both snapshots, in CPU order. `job_busy_seconds` gives
/// the job's own CPU time on some CPUs during the window (threads pinned there, from
/// getrusage or /proc/<pid>/stat); CPUs not listed count the job's share as 0.
/// `ticks_per_second` 0 means clock_ticks_per_second(). Errors: `after` not later than
/// `before` on some CPU (no tick elapsed, or counters from another boot), no CPU in common.
Expected<std::vector<CoreLoad>> cpu_loads(const ProcSnapshot& before, const ProcSnapshot& after,
                                          const std::map<int, double>& job_busy_seconds = {},
                                          double ticks_per_second = 0);

/// Load of every core of `model`: its CPUs' ticks added up, so a 2-thread core with one
/// thread busy is half busy. `job_busy_seconds_by_core` is indexed by logical core (may be
/// empty or shorter). Errors: as cpu_loads, and a model CPU missing from either snapshot
/// (offline, or snapshots of another node).
Expected<std::vector<CoreLoad>> core_loads(const NodeModel& model, const ProcSnapshot& before,
                                           const ProcSnapshot& after,
                                           const std::vector<double>& job_busy_seconds_by_core = {},
                                           double ticks_per_second = 0);

/// The job's busy seconds by logical core (as core_loads takes them), worked out from the
/// loads of the same window without them.
using JobSecondsOfLoads = std::function<std::vector<double>(const std::vector<CoreLoad>&)>;

/// core_loads() for a caller whose job times depend on the loads themselves (the analysis
/// spreads a rank's CPU time over its cores by how busy each was): `job_busy_seconds_of` gets
/// what core_loads(model, before, after) returns and gives the job's seconds by core; the
/// snapshots are compared once. It is not called when the window is in error. Errors: as
/// core_loads.
Expected<std::vector<CoreLoad>> core_loads_with_job(const NodeModel& model,
                                                    const ProcSnapshot& before,
                                                    const ProcSnapshot& after,
                                                    const JobSecondsOfLoads& job_busy_seconds_of,
                                                    double ticks_per_second = 0);

/// Reads `reader`, waits `window`, reads again and returns core_loads() for `model` (no job
/// share: everything busy counts as foreign).
Expected<std::vector<CoreLoad>> sample_core_loads(const NodeModel& model, const ProcReader& reader,
                                                  std::chrono::milliseconds window);

}  // namespace symmer::topology
