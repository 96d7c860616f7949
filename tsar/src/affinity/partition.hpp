// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A nested partition (thesis 6.3.1): the outer level splits a pass over places, each place
// splits its inner loops over its own devices.
//
// Execution: the partition has a worker pool with one thread per place (place 0 is the
// caller, as in tsar_run) and every place a runtime of its own -- its devices and their
// pool -- so an inner loop is an ordinary region run from the place's thread (regions of
// different device sets nest). The outer split is a ratio split (static or adaptive) over
// the places' learned times per outer iteration, recomputed every `rebalance` passes.
//
// A pass: the caller validates n against every mapped buffer, splits, and plans the pages
// to move (only when a part moved since the last pass); each place then moves its planned
// pages to its node and makes its copies (replicate), runs the body, and merges its
// outputs back; the caller finally learns the places' times and records statistics.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "affinity/association.hpp"
#include "affinity/numa_memory.hpp"
#include "affinity/page_mover.hpp"
#include "affinity/place_barrier.hpp"
#include "affinity/place_copy.hpp"
#include "affinity/places.hpp"
#include "region/pass_clock.hpp"
#include "region/tick_clock.hpp"
#include "runtime/runtime.hpp"
#include "schedule/schedule_spec.hpp"
#include "schedule/scheduler.hpp"
#include "schedule/time_estimator.hpp"
#include "symmer/topology/node_model.hpp"
#include "tsar/tsar.h"

namespace tsar::core {
class Partition;
class Region;
class TraceSink;
}  // namespace tsar::core

/// The C handle of a place during a pass.
struct tsar_place {
  tsar::core::Partition* partition = nullptr;
  int index = 0;
};

namespace tsar::core {

const char* mem_policy_name(int policy);

/// One partition pass as a JSON line (TSAR_TRACE), with a trailing newline.
std::string partition_pass_to_json(const std::string& name, int policy, const tsar_pass_stats& pass,
                                   std::span<const tsar_place_stats> places);

class Partition {
 public:
  static constexpr std::int64_t kKeepPasses = 4096;

  struct Options {
    std::string name = "partition";
    ScheduleSpec outer;  ///< static or adaptive
    ScheduleSpec inner;
    /// Page moves: at most ~20 ms per move_pages call (symmer's PageMigration).
    symmer::topology::MigrationOptions migration;
  };

  /// Throws Error: TSAR_ERR_DEVICES (no places), TSAR_ERR_SCHEDULE (an outer schedule
  /// that is not static or adaptive).
  Partition(symmer::topology::NodeModel node, std::vector<Place> places, Options options,
            std::shared_ptr<NumaMemory> memory);
  ~Partition();
  Partition(const Partition&) = delete;
  Partition& operator=(const Partition&) = delete;

  // -- configuration (outside passes; throw Error) -----------------------------------------
  int num_places() const { return static_cast<int>(slots_.size()); }
  const Place& place(int index) const { return slots_.at(static_cast<std::size_t>(index))->place; }
  const std::string& name() const { return options_.name; }
  void map(Association association);
  void unmap(const void* host);
  void set_policy(int level, int policy);
  int policy(int level) const {
    return level == TSAR_LEVEL_PLACES ? outer_policy_ : TSAR_POLICY_COHERENT;
  }
  void bind(int loop);
  void set_rebalance(int passes);
  /// Replaces the clock the places' bodies, bound loops and barrier waits are timed with
  /// (emulated time in tests: worker w of the clock is place w). Throws Error(TSAR_ERR_STATE)
  /// during a pass.
  void set_clock(std::shared_ptr<PassClock> clock);
  bool in_pass() const { return in_pass_.load(std::memory_order_acquire); }

  // -- a pass -------------------------------------------------------------------------------
  /// Runs a pass (tsar_partition_run). Throws Error.
  void run(std::int64_t n, tsar_place_fn body, void* arg);

  // Place operations, from a place body (index = the place) or its inner loop bodies.
  // Each returns a tsar_status and sets the thread's last error on failure.
  int place_for(int place, int loop, std::int64_t begin, std::int64_t end, tsar_body_fn body,
                void* arg);
  int barrier(int place);
  int update(int place, const void* host, int what);
  int cancel();
  /// The view of `host` (mapped data, or an indirect buffer's map array) for `place`.
  /// Throws Error(TSAR_ERR_UNKNOWN / TSAR_ERR_STATE).
  View view(int place, const void* host) const;

  // -- statistics ---------------------------------------------------------------------------
  std::int64_t passes() const { return passes_; }
  /// Throws Error(TSAR_ERR_STATE during a pass, TSAR_ERR_INVALID for a pass not kept).
  void pass_stats(std::int64_t pass, tsar_pass_stats* stats, tsar_place_stats* places,
                  int capacity) const;
  /// The places' ranges of the last pass.
  std::vector<Range> ranges() const;

 private:
  /// Seconds on place `place`'s clock: the machine's, or the emulated one of set_clock.
  double clock(int place) const { return clock_ ? clock_->now(place) : now_seconds(); }

  struct Entry {
    Association association;
    std::vector<Range> placed;  ///< the ranges its pages were migrated for
    bool interleaved = false;   ///< its pages were interleaved under the current policy
  };

  struct alignas(64) Slot {
    Place place;
    std::shared_ptr<Runtime> runtime;  ///< the place's devices and their pool
    std::map<int, std::unique_ptr<Region>> loops;
    std::atomic<Region*> running{nullptr};  ///< the inner loop running now (cancel)
    tsar_place handle;
    Range range;
    std::vector<PageRun> moves;  ///< this pass's pages to move to the place's node
    std::vector<std::unique_ptr<PlaceCopy>> copies;  ///< per entry, under replicate
    tsar_place_stats stats{};
    double bound_seconds = 0.0;
    int error = TSAR_OK;
    std::string message;
  };

  void plan_placement();        // caller, before the places start
  void run_place(int place);    // a place's job: placement and body
  void merge_place(int place);  // a place's job: outputs back to the host
  void place_data(Slot& slot);  // a place: moves and copies
  void fail_place(Slot& slot, int status, const std::string& message);
  void cancel_all();  // stops the pass: barriers release, running inner loops cancel
  const Entry* find_entry(const void* host, bool* is_map) const;
  std::size_t exchange_halo(int place, const Entry& entry, int what);
  void record_pass(std::int64_t n, double seconds, double schedule_seconds);
  static void body_job(void* context, int worker);
  static void merge_job(void* context, int worker);

  symmer::topology::NodeModel node_;
  Options options_;
  std::shared_ptr<NumaMemory> memory_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<int> pool_slots_;
  WorkerPool pool_;
  std::unique_ptr<Scheduler> scheduler_;
  std::vector<TimeEstimator> estimators_;  ///< per place: seconds per outer iteration
  std::vector<unsigned char> active_;
  std::vector<double> times_;
  std::vector<double> times_scratch_;
  SubPassPlan plan_;
  std::vector<std::unique_ptr<Entry>> entries_;
  int outer_policy_ = TSAR_POLICY_COHERENT;
  int bound_loop_ = -1;
  int rebalance_ = 1;
  std::shared_ptr<PassClock> clock_;  ///< nullptr: the machine's clock
  std::int64_t split_n_ = -1;
  int passes_since_split_ = 0;

  // The current pass.
  std::atomic<bool> in_pass_{false};
  std::atomic<bool> canceled_{false};
  std::int64_t n_ = 0;
  tsar_place_fn body_ = nullptr;
  void* body_arg_ = nullptr;
  PlaceBarrier barrier_;

  // Statistics ring, and the TSAR_TRACE sink (JSON lines only).
  TraceSink* trace_;
  std::int64_t passes_ = 0;
  std::vector<tsar_pass_stats> pass_ring_;
  std::vector<tsar_place_stats> place_ring_;
};

}  // namespace tsar::core
