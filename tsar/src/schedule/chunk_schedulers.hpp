// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Schedules that hand out chunks from the pass's ChunkQueue (thesis 5.3.2): chunk (one size,
// OpenMP dynamic), chunk-static (per-device sizes scaled by default speed, so a chunk takes
// about as long on every device), chunk-dynamic (sizes adapted per device as its chunks
// finish), and hguided (heterogeneous guided, a baseline).

#include <atomic>
#include <vector>

#include "schedule/scheduler.hpp"

namespace tsar::core {

/// Base chunk size of a pass: the schedule's own, else n / (16 * active workers), >= 1.
std::int64_t auto_chunk(std::int64_t configured, std::int64_t n, std::span<const double> tpi);

/// Chunks of one size from batched tickets (ChunkQueue::Reserve per worker).
class ChunkScheduler final : public Scheduler {
 public:
  ChunkScheduler(std::int64_t chunk, int workers)
      : configured_(chunk), reserves_(static_cast<std::size_t>(workers)) {}
  void begin_pass(std::int64_t n, std::span<const double> tpi, SubPassPlan& plan) override;
  ChunkQueue::Result take_chunk(int worker, const ChunkTiming& last, ChunkQueue& queue,
                                Range& out) override;
  bool adapts() const override { return false; }

 private:
  std::int64_t configured_;
  std::int64_t size_ = 1;
  std::vector<ChunkQueue::Reserve> reserves_;
};

/// chunk-static and chunk-dynamic: one chunk size per worker. chunk-static takes batched
/// tickets; chunk-dynamic takes one ticket per chunk, sized from the exact remainder.
class PerDeviceChunkScheduler final : public Scheduler {
 public:
  /// Chunks that take less than this are grown: dispatch and timing would dominate them.
  static constexpr double kMinChunkSeconds = 20e-6;

  PerDeviceChunkScheduler(std::int64_t chunk, int workers, bool dynamic);
  void begin_pass(std::int64_t n, std::span<const double> tpi, SubPassPlan& plan) override;
  ChunkQueue::Result take_chunk(int worker, const ChunkTiming& last, ChunkQueue& queue,
                                Range& out) override;
  bool adapts() const override { return dynamic_; }
  bool times_chunks() const override { return dynamic_; }

  /// Worker w's current chunk size (tests and statistics).
  std::int64_t chunk_size(int worker) const;

 private:
  struct alignas(64) WorkerState {
    double size = 1.0;                    ///< current chunk size (fractional while annealing)
    double last_tpi = 0.0;                ///< time per iteration of its previous chunk
    int direction = 1;                    ///< +1 growing, -1 shrinking
    std::atomic<double> smoothed_tpi{0};  ///< read by the other workers for the tail cap
    double prior_tpi = 0.0;
    double share = 0.0;           ///< its split fraction when last computed
    ChunkQueue::Reserve reserve;  ///< chunk-static's batched tickets
  };

  void adapt(WorkerState& s, const ChunkTiming& last) const;
  /// At most half of the worker's fair share of what remains, so the tail stays balanced.
  /// Reads every worker's speed (their cache lines): only done near the tail.
  std::int64_t tail_cap(int worker, std::int64_t remaining);

  std::int64_t configured_;
  bool dynamic_;
  bool initialised_ = false;
  std::vector<WorkerState> workers_;
};

class HGuidedScheduler final : public Scheduler {
 public:
  HGuidedScheduler(std::int64_t min_chunk, int workers);
  void begin_pass(std::int64_t n, std::span<const double> tpi, SubPassPlan& plan) override;
  ChunkQueue::Result take_chunk(int worker, const ChunkTiming& last, ChunkQueue& queue,
                                Range& out) override;

 private:
  std::int64_t min_chunk_;
  std::vector<double> share_;  ///< each worker's split fraction for this pass
};

}  // namespace tsar::core
