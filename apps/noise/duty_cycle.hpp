// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Stealing a share of one core, the way interrupt processing does: a thread pinned to the
// core runs a busy loop for `share` of every period (counted in its own CPU time) and sleeps
// for the rest. Under SCHED_FIFO it preempts ordinary threads exactly as an interrupt
// handler would, so a competing thread keeps 1 - share of the core; under SCHED_OTHER the
// kernel shares the busy phase with competitors and less than `share` is stolen.

#include <atomic>
#include <chrono>

namespace symmer::topology {
class NodeModel;
}

namespace symmer::noise {

struct DutyCycle {
  int core = 0;        ///< logical core
  double share = 0.5;  ///< fraction of each period to occupy, (0, 1)
  std::chrono::microseconds period{2000};
  bool realtime = true;  ///< try SCHED_FIFO first
};

/// What one core's noise thread achieved.
struct DutyResult {
  bool realtime = false;     ///< ran under SCHED_FIFO
  double cpu_seconds = 0.0;  ///< CPU time it consumed
  double wall_seconds = 0.0;
};

/// Runs the duty cycle on the calling thread (pinning it to the core) until `stop` is set.
DutyResult run_duty_cycle(const DutyCycle& cycle, const symmer::topology::NodeModel& node,
                          const std::atomic<bool>& stop);

}  // namespace symmer::noise
