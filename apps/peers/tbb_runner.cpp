// SPDX-License-Identifier: BSD-3-Clause
#include "tbb_runner.hpp"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_scheduler_observer.h>

#include <algorithm>

namespace tsar::peers {
namespace {

/// Binds each worker entering the arena to the core of its slot (slot 0 is the caller's).
class Pinner final : public tbb::task_scheduler_observer {
 public:
  Pinner(tbb::task_arena& arena, const RunnerConfig& config)
      : tbb::task_scheduler_observer(arena), config_(config) {
    observe(true);
  }
  ~Pinner() override { observe(false); }
  void on_scheduler_entry(bool is_worker) override {
    if (!is_worker) return;
    const int slot = tbb::this_task_arena::current_thread_index();
    const int core = config_.cores[static_cast<std::size_t>(slot) % config_.cores.size()];
    // Workers enter the arena at every parallel_for: bind only when the core changes.
    thread_local int bound = -1;
    if (bound != core) {
      config_.bind_thread(core);
      bound = core;
    }
  }

 private:
  const RunnerConfig& config_;
};

}  // namespace

struct TbbRunner::State {
  explicit State(const RunnerConfig& config)
      : limit(tbb::global_control::max_allowed_parallelism, config.cores.size()),
        arena(static_cast<int>(config.cores.size()), 1),
        pinner(arena, config) {}
  tbb::global_control limit;
  tbb::task_arena arena;
  Pinner pinner;
};

TbbRunner::TbbRunner(RunnerConfig config) : config_(std::move(config)) {}
TbbRunner::~TbbRunner() = default;

void TbbRunner::begin(kernels::Kernel&) {
  state_ = std::make_unique<State>(config_);
  state_->arena.initialize();
}

void TbbRunner::parallel(const kernels::Loop& loop, std::int64_t n) {
  const std::int64_t grain = std::max<std::int64_t>(1, n / std::max(1, config_.chunks));
  state_->arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::int64_t>(0, n, static_cast<std::size_t>(grain)),
        [&](const tbb::blocked_range<std::int64_t>& r) { loop.host(r.begin(), r.end()); });
  });
}

void TbbRunner::end() { state_.reset(); }

}  // namespace tsar::peers
