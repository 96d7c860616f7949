// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// oneTBB parallel_for (its default auto_partitioner) over a loop, with a grain of one chunk
// (n / RunnerConfig::chunks iterations), in a task arena of one slot per core. Workers bind
// themselves to cores[slot] when they enter the arena; the caller stays on cores[0].

#include <memory>

#include "runner.hpp"

namespace tsar::peers {

class TbbRunner final : public Runner {
 public:
  explicit TbbRunner(RunnerConfig config);
  ~TbbRunner() override;
  const std::string& name() const override { return name_; }
  void begin(kernels::Kernel& kernel) override;
  void parallel(const kernels::Loop& loop, std::int64_t n) override;
  void end() override;

 private:
  struct State;  // the arena, its pinning observer, the parallelism limit
  RunnerConfig config_;
  std::string name_ = "tbb";
  std::unique_ptr<State> state_;
};

}  // namespace tsar::peers
