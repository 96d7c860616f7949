// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// StarPU 1.3 with one of its schedulers (dmda, dmdas, lws): each parallel loop becomes
// RunnerConfig::chunks tasks of one codelet per loop, whose CPU function is the loop's host
// range (no StarPU data handles: the CPU workers share the host memory, so StarPU keeps no
// copies and checks no dependencies between the chunks of one pass). Each codelet has a
// history-based performance model keyed by the chunk's length; before a kernel is timed, its
// models are calibrated (STARPU_CALIBRATE=1 runs, not timed) into a private STARPU_HOME.
// CPU workers poll while StarPU runs: the runner pauses StarPU between loops, as StarPU's
// FAQ advises for code mixing StarPU and other work.

#include <memory>

#include "runner.hpp"

namespace tsar::peers {

class StarpuRunner final : public Runner {
 public:
  /// `policy`: a StarPU scheduler name; `calibration_runs`: untimed kernel runs that fill
  /// the performance models the first time a kernel (name and size) is seen.
  StarpuRunner(std::string policy, RunnerConfig config, int calibration_runs);
  ~StarpuRunner() override;
  const std::string& name() const override { return name_; }
  void begin(kernels::Kernel& kernel) override;
  void parallel(const kernels::Loop& loop, std::int64_t n) override;
  void end() override;

 private:
  struct Session;  // one starpu_init .. starpu_shutdown: codelets and models per loop
  void start(const kernels::Kernel& kernel, const std::string& policy, bool calibrate);
  void stop();

  std::string policy_;
  RunnerConfig config_;
  int calibration_runs_;
  std::string name_;
  std::unique_ptr<Session> session_;
};

}  // namespace tsar::peers
