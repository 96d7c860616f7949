// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// hybrid (thesis 5.3.2): the first pass runs chunk-dynamic, which balances and learns each
// device's speed within the pass; every later pass runs adaptive on what it learned.

#include "schedule/chunk_schedulers.hpp"
#include "schedule/ratio_schedulers.hpp"

namespace tsar::core {

class HybridScheduler final : public Scheduler {
 public:
  HybridScheduler(std::int64_t chunk, int workers)
      : chunks_(chunk, workers, /*dynamic=*/true),
        adaptive_(AdaptiveScheduler::Mode::kAdaptive, 0) {}

  void begin_pass(std::int64_t n, std::span<const double> tpi, SubPassPlan& plan) override {
    if (passes_ == 0)
      chunks_.begin_pass(n, tpi, plan);
    else
      adaptive_.begin_pass(n, tpi, plan);
  }
  bool next_sub_pass(std::span<const double> tpi, SubPassPlan& plan) override {
    if (passes_++ == 0) return false;
    return adaptive_.next_sub_pass(tpi, plan);
  }
  ChunkQueue::Result take_chunk(int worker, const ChunkTiming& last, ChunkQueue& queue,
                                Range& out) override {
    return chunks_.take_chunk(worker, last, queue, out);
  }
  bool last_sub_pass() const override { return passes_ == 0 || adaptive_.last_sub_pass(); }
  bool times_chunks() const override { return chunks_.times_chunks(); }
  bool balances_cpu_share() const override { return adaptive_.balances_cpu_share(); }

 private:
  PerDeviceChunkScheduler chunks_;
  AdaptiveScheduler adaptive_;
  std::int64_t passes_ = 0;
};

}  // namespace tsar::core
