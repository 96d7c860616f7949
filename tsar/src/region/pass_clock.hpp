// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The clock a region times its passes with. Real runs read the machine's clock
// (tick_clock.hpp); tests give a region emulated time instead, so what they assert about the
// planner's decisions does not depend on how busy the machine is: each worker's clock then
// advances only by what its emulated device "ran", and every worker leaves a barrier at the
// last arrival's time.

#include <span>

namespace tsar::core {

class PassClock {
 public:
  virtual ~PassClock() = default;
  /// Seconds on the clock of worker `worker` (workers' times compare).
  virtual double now(int worker) = 0;
  /// Every worker has arrived at the end of a (sub-)pass and none runs until they are
  /// released: they leave together, at the last arrival's time. Called by the leader, and by
  /// the planner before a pass starts.
  virtual void synchronize() = 0;
  /// The workers `workers` run the (sub-)pass about to start; called by the planner or
  /// leader while none of them runs. An emulated clock may order the workers' takes by their
  /// emulated times with it (who steals what, tests/unit/tsar/emulated_clock.hpp).
  virtual void start(std::span<const int> workers) { (void)workers; }
  /// Worker `worker` is done with the (sub-)pass: it takes and runs nothing more in it.
  virtual void arrive(int worker) { (void)worker; }
};

}  // namespace tsar::core
