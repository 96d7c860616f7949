// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// OpenMP (libgomp) worksharing over a loop: schedule(static) with one block per thread, and
// schedule(dynamic) / schedule(guided) over RunnerConfig::chunks chunks of the loop. Each
// OpenMP thread t is bound to cores[t] once, at begin.

#include "runner.hpp"

namespace tsar::peers {

class OpenMpRunner final : public Runner {
 public:
  enum class Schedule { static_blocks, dynamic, guided };

  OpenMpRunner(Schedule schedule, RunnerConfig config);
  const std::string& name() const override { return name_; }
  void begin(kernels::Kernel& kernel) override;
  void parallel(const kernels::Loop& loop, std::int64_t n) override;
  void end() override {}

 private:
  Schedule schedule_;
  RunnerConfig config_;
  std::string name_;
};

}  // namespace tsar::peers
