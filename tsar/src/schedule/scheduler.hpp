// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The Scheduler interface: how one schedule family splits a pass. Schedulers are pure logic
// (no threads, no clocks): the region gives them each worker's current time per iteration
// and they answer with plans; chunk schedulers also answer each worker's chunk requests.
//
//  - begin_pass/next_sub_pass run on one thread (the pass leader) between sub-passes;
//  - take_chunk runs on the workers concurrently, each touching only its own state and the
//    lock-free ChunkQueue.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "queue/chunk_queue.hpp"
#include "schedule/schedule_spec.hpp"
#include "schedule/split_math.hpp"

namespace tsar::core {

/// One (sub-)pass: iterations [lo, hi), either split into one contiguous range per worker
/// (counts, in worker order from lo) or handed out in chunks from a ChunkQueue.
struct SubPassPlan {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  bool chunked = false;
  std::vector<std::int64_t> counts;
  SplitScratch scratch;  ///< re-planning into the same plan allocates nothing
  /// The inputs and result of the last split (ratio_plan): a split of the same n whose
  /// times kept their ratios is copied, not computed again (the planner may have changed
  /// counts since).
  std::int64_t split_n = -1;
  std::vector<double> split_tpi;
  std::vector<std::int64_t> split_counts;
};

/// A worker's previous chunk of the current sub-pass (iterations 0 before its first).
struct ChunkTiming {
  std::int64_t iterations = 0;
  double seconds = 0.0;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;

  /// Writes the first sub-pass of a pass of n iterations into plan (reusing its storage).
  /// tpi[w]: worker w's time per iteration (one unit for all workers; +inf: retired).
  virtual void begin_pass(std::int64_t n, std::span<const double> tpi, SubPassPlan& plan) = 0;
  /// After a sub-pass was measured: writes the next sub-pass of the pass into plan and
  /// returns true, or returns false when the pass is done.
  virtual bool next_sub_pass(std::span<const double> tpi, SubPassPlan& plan);
  /// Chunked plans: worker w's next chunk from `queue`.
  virtual ChunkQueue::Result take_chunk(int worker, const ChunkTiming& last, ChunkQueue& queue,
                                        Range& out);
  /// Whether the plan begin_pass or next_sub_pass wrote last is the pass's last sub-pass
  /// (the region then lets workers without work sit the pass out).
  virtual bool last_sub_pass() const { return true; }
  /// False for schedules that never use measurements (static): no back-off for them.
  virtual bool adapts() const { return true; }
  /// True when the CPU devices of a ratio plan balance their ranges among themselves within
  /// the (sub-)pass (queue/stealing_ranges.hpp): the split then sets each CPU core's starting
  /// range and the CPU share as a whole, not what each core ends up running.
  virtual bool balances_cpu_share() const { return false; }
  /// True when take_chunk uses ChunkTiming. Only then does the dispatch path read the clock
  /// at every chunk; otherwise a worker's busy time is read once, from its first chunk's
  /// start to its last chunk's end (its chunks run back to back).
  virtual bool times_chunks() const { return false; }
};

/// The scheduler for `spec` with `workers` workers.
std::unique_ptr<Scheduler> make_scheduler(const ScheduleSpec& spec, int workers);

/// A ratio plan over [lo, hi) with the adaptive split of docs/architecture.md (split_math).
void ratio_plan(std::int64_t lo, std::int64_t hi, std::span<const double> tpi, SubPassPlan& plan);
/// A chunked plan over [0, n).
void chunked_plan(std::int64_t n, SubPassPlan& plan);
/// A plan that runs nothing (a refused pass): every worker's range is empty.
void empty_plan(SubPassPlan& plan);

}  // namespace tsar::core
