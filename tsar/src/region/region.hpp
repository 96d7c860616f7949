// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A region: one loop that runs in passes over its workers, one per device (thesis 5.4.4).
//
// The region runs the pass protocol; every decision about the split is its pass planner's
// (schedule/planner.hpp), asked once per (sub-)pass. The protocol is driven by the workers
// themselves, whoever they are -- TSAR's pool threads (run) or the caller's OpenMP team
// (tsar_next/tsar_loop):
//
//   next(w)  the first worker to arrive plans the pass (the planner's plan, reductions
//            reset, the copy engine's exchange); each worker then takes its range or first
//            chunk and starts its clock (region_pass.cpp).
//   loop(w)  stops the clock; chunk schedules hand the worker its next chunk right here
//            (a fetch-and-add, no lock); otherwise it arrives at the end-of-pass barrier,
//            where worker 0 waits for the others' arrivals (a flag each, no shared counter),
//            gives the planner the times, installs the next sub-pass or ends the pass
//            (reductions, statistics, trace, the planner's end of pass) before releasing
//            the others. The release says whether another sub-pass follows; after the
//            last, the pool's threads touch nothing of the region, so the next pass starts
//            while they leave.
//   staging  on devices with their own memory, the copy engine moves each range's data in
//            and out inside the worker's timed range (region_staging.cpp).
//
// Everything a worker touches during a pass is its own cache-line-aligned slot, the plan
// (read-only while workers run) and the ChunkQueue. The region reads time through its
// PassClock (pass_clock.hpp): the TSC, or emulated time in tests.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "memory/copy_engine.hpp"
#include "memory/reductions.hpp"
#include "memory/registry.hpp"
#include "queue/chunk_queue.hpp"
#include "queue/stealing_ranges.hpp"
#include "region/pass_clock.hpp"
#include "region/statistics.hpp"
#include "region/tick_clock.hpp"
#include "runtime/runtime.hpp"
#include "schedule/planner.hpp"
#include "schedule/schedule_spec.hpp"
#include "tsar/tsar.h"
#include "workers/pass_barrier.hpp"

/// The C API's handle of a region is the region itself (tsar_chunk.region names it to bodies).
struct tsar_region {};

namespace tsar::core {

class TraceSink;

class Region : public tsar_region {
 public:
  static constexpr int kDefaultBackoff = PassPlanner::kDefaultBackoff;
  static constexpr std::int64_t kMaxIterations = std::int64_t{1} << 60;

  /// Throws Error: TSAR_ERR_DEVICES (no device of `kinds`), TSAR_ERR_INVALID (times).
  Region(std::shared_ptr<Runtime> runtime, std::string name, ScheduleSpec schedule, unsigned kinds,
         const double* initial_tpi, int num_times);
  /// Flushes the TSAR_TRACE file and saves learned times to TSAR_CACHE.
  ~Region();
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

  // -- description -------------------------------------------------------------------------
  int workers() const { return static_cast<int>(workers_.size()); }
  tsar_device_info device_info(int worker) const;
  const ScheduleSpec& schedule() const { return spec_; }
  const std::string& name() const { return name_; }
  bool in_pass() const { return state_.load(std::memory_order_acquire) != kIdle; }

  // -- configuration (outside passes; throw Error) -----------------------------------------
  void set_time_per_iteration(int worker, double seconds);
  void set_backoff(int passes);
  /// Replaces the clock passes are timed with (emulated time in tests).
  void set_clock(std::shared_ptr<PassClock> clock);
  /// Whether accelerators may steal from the CPU workers' ranges (PassPlanner's switch).
  void set_accelerator_stealing(bool on);
  /// Whether the planner tries passes without one of their units (PassPlanner's switch).
  void set_participation_trials(bool on);
  MemoryRegistry& memory();
  Reductions& reductions();
  /// Copies the rows devices hold resident of registered buffer `host` back to it (outside
  /// passes); returns the bytes (0 when `host` is not registered). Throws Error
  /// (TSAR_ERR_STATE during a pass, a device's failure).
  std::int64_t write_back(const void* host);
  /// Read-only views for lookups during passes (tsar_mem, tsar_reduction).
  const MemoryRegistry& registered_memory() const { return memory_; }
  const Reductions& registered_reductions() const { return reductions_; }

  // -- the pass protocol --------------------------------------------------------------------
  /// Worker index of the calling thread (pool worker of this region, or OpenMP thread of a
  /// team of workers() threads); -1 with *why set otherwise.
  int caller_worker(std::string* why) const;
  /// tsar_next_range for worker w: a pass over iterations [first, first + n). Returns a
  /// tsar_status (also set as the thread's last error); the range is empty on errors.
  int next(int worker, std::int64_t first, std::int64_t n, std::int64_t* begin, std::int64_t* end);
  /// tsar_loop for worker w: 1 = run again, 0 = pass over. *status gets the pass's outcome
  /// (also the thread's last error), except on a pool job (run_worker; tsar_run reports it).
  int loop(int worker, int* status);
  /// Runs one pass over iterations [first, first + n) on the worker pool. Returns a
  /// tsar_status.
  int run(std::int64_t first, std::int64_t n, tsar_body_fn body, void* arg);
  void cancel();

  /// The calling worker's device (valid while it is in a pass).
  const Device& device(int worker) const {
    return *workers_[static_cast<std::size_t>(worker)].device;
  }

  // -- statistics ---------------------------------------------------------------------------
  std::int64_t passes() const { return stats_.recorded(); }
  /// The workers the last pass ran, in the order the pool woke them (0, the caller, first;
  /// then accelerators'). Outside passes.
  std::span<const int> participants() const { return participants_; }
  /// Throws Error(TSAR_ERR_STATE during a pass, TSAR_ERR_INVALID for a pass not kept).
  void pass_stats(std::int64_t pass, tsar_pass_stats* out, tsar_device_stats* devices,
                  int capacity) const;
  /// Throws Error(TSAR_ERR_IO).
  void write_trace(const std::string& path) const;

 private:
  enum State : std::uint32_t { kIdle, kPlanning, kActive };

  /// One worker's state, in cache lines by writer: what the worker writes during a pass is
  /// apart from what the leader keeps, and the part the leader reads after the barrier is
  /// one line.
  struct alignas(64) Worker {
    std::shared_ptr<Device> device;
    int slot = 0;              ///< runtime device slot: the pool thread that runs it
    bool active = true;        ///< false once retired with no CPU to become (leader writes)
    bool lost_device = false;  ///< its accelerator ran out of memory in this sub-pass
    bool taking_part = true;   ///< runs in this pass (choose_participants; leader writes)
    // Written by the worker during a pass; the leader reads this line after the barrier.
    alignas(64) double arrival = 0.0;
    std::int64_t sub_iterations = 0;
    std::int64_t sub_chunks = 0;
    double sub_busy = 0.0;
    /// Of sub_iterations and sub_busy, what a thief stole (the planner's share_thieves) in
    /// how many pieces, and when its own range was done (the clock's seconds).
    std::int64_t sub_stolen = 0;
    std::int64_t sub_pieces = 0;
    double sub_stolen_busy = 0.0;
    double own_end = 0.0;
    /// Nothing run yet in the (sub-)pass: what the leader reads of a worker that sits it out.
    void clear_sub_pass() {
      sub_iterations = sub_chunks = sub_stolen = sub_pieces = 0;
      sub_busy = sub_stolen_busy = 0.0;
    }
    // The worker's own during a pass.
    bool in_pass = false;
    bool pooled = false;  ///< joined its pass as a pool job (run), which leaves in_pass set
    bool has_pending = false;
    bool started = false;   ///< start already set by loop() for the pending chunk
    bool thief = false;     ///< steals from the CPU workers' ranges once its own is done
    bool stealing = false;  ///< the current range is a stolen piece
    unsigned kind = 0;      ///< the device as bodies see it, cached at the pass start
    int id = -1;
    LaunchContext launch;
    int error = TSAR_OK;  ///< this worker's error in this pass (n mismatch...)
    Range pending;
    Range current;
    double start = 0.0;
    // Kept by the leader: pass totals.
    alignas(64) std::int64_t pass_iterations = 0;
    std::int64_t pass_chunks = 0;
    double pass_busy = 0.0;
    double pass_idle = 0.0;
    std::int64_t pass_stolen = 0;
    std::int64_t pass_pieces = 0;
    double pass_stolen_busy = 0.0;
    double own_finish = 0.0;  ///< the last sub-pass's end of its own range (or arrival)
    bool pass_late = false;   ///< its job was taken back: it had not started (take_late_rest)
    void clear_pass() {
      pass_iterations = pass_chunks = pass_stolen = pass_pieces = 0;
      pass_late = false;
      pass_busy = pass_idle = pass_stolen_busy = 0.0;
    }
  };

  // region_pass.cpp: the protocol
  void join_pass(int worker, std::int64_t first, std::int64_t n);
  void begin_pass(std::int64_t first, std::int64_t n, int worker);  // planner: the first plan
  void install();              // planner/leader: publishes plan_
  void keep_pass_devices();    // planner: pass_devices_[w] is worker w's device
  void choose_participants();  // planner: who runs this pass
  ChunkQueue::Result take_chunk(int worker, const ChunkTiming& last, Range& out);  // worker
  void stop_dispatch();                         // cancellation: no more chunks or stolen ranges
  bool take_late_rest(int worker, Range& out);  // leader: the rows of CPU workers not started
  void start_sub_pass(int worker);              // worker: its first range of the current plan
  bool finish_sub_pass();  // leader, inside the barrier: true when another sub-pass follows
  void record_pass(double last_arrival);  // leader
  // leader, after record_pass: queues the pass for TSAR_TRACE
  void trace_pass(const tsar_pass_stats& pass, std::span<const tsar_device_stats> devices);
  // leader, after the planner's end_pass recorded the pass into its trial: the trial it
  // decided, as a TSAR_TRACE line (JSON traces only)
  void trace_trial();
  std::shared_ptr<Device> retire_worker(int worker);  // the planner's Retire
  void bind_device(Worker& w, bool pin = true);       // worker: its device as bodies see it
  std::vector<std::string> device_keys() const;
  void ensure_bound(Worker& w, bool pin) const;
  static void run_worker(void* context, int worker);
  /// Seconds on worker `worker`'s clock: the machine's, or the emulated one of set_clock.
  double clock(int worker) const { return clock_ ? clock_->now(worker) : now_seconds(); }
  // region_staging.cpp: the copy engine around a range on a device with its own memory
  void stage_in(Worker& me, int worker);
  void stage_out(Worker& me, int worker);
  void collect(Worker& me, int worker);
  void lose_device(Worker& me, int worker, const std::string& why);  // out of memory
  void fail_device(Worker& me, const std::string& why, int status);  // any other failure
  void exchange_resident_rows();  // planner/leader: after install(), before workers run
  void guard_memory(const std::function<void()>& f);  // planner: a failed copy fails the pass

  std::shared_ptr<Runtime> runtime_;
  std::string name_;
  ScheduleSpec spec_;
  unsigned kinds_;
  std::vector<std::string> original_keys_;  ///< device set key of the cache

  std::vector<Worker> workers_;
  std::unique_ptr<PassPlanner> planner_;
  std::shared_ptr<PassClock> clock_;   ///< nullptr: the machine's clock
  std::vector<WorkerSample> samples_;  ///< leader only: the (sub-)pass's, for the planner
  std::vector<int> slots_;             ///< the pool thread of each worker
  /// Planner: the workers that run this pass in wake order (0 first, accelerators next). On
  /// the pool, a single-sub-pass ratio plan leaves out workers with nothing to run: a pass
  /// that is all the GPU's wakes no core.
  std::vector<int> participants_;
  std::vector<int> cpu_participants_;  ///< choose_participants: the CPU workers', woken last
  /// The accelerator worker the leader runs this pass (choose_participants), or -1; and the
  /// participants less that one: those the pool wakes (0, the caller, first).
  int adopted_ = -1;
  std::vector<int> woken_;
  /// Leader (take_late_rest): when this sub-pass's CPU workers count as late (0: not yet
  /// set), and whether none is left to excuse.
  double late_deadline_ = 0.0;
  bool late_done_ = false;
  /// The workers that run this pass: the participants, less the leader where it drives an
  /// accelerator (its worker's index is the accelerator's then).
  std::span<const int> running() const {
    return std::span<const int>(participants_).subspan(adopted_ < 0 ? 0 : 1);
  }
  MemoryRegistry memory_;
  Reductions reductions_;
  CopyEngine engine_;
  bool device_memory_ = false;  ///< some device has its own memory: the copy engine runs
  bool copying_ = false;        ///< planner: some device of this pass still has its own memory
  std::vector<std::shared_ptr<Device>> pass_devices_;  ///< planner: each worker's device
  /// Bumped when a worker's device changes (retire_worker, lose_device); pass_devices_ and
  /// own_memory_devices_ (how many of them have their own memory) are of this many changes.
  std::atomic<std::uint64_t> device_changes_{1};
  std::uint64_t pass_devices_changes_ = 0;
  int own_memory_devices_ = 0;
  std::atomic<bool> device_failed_{false};
  std::string device_failure_;  ///< the first device failure of the pass (its writer only)
  int device_failure_status_ = TSAR_ERR_SYSTEM;  ///< ... and the pass's status for it

  // The current (sub-)pass: written by the planner/leader, read by workers after the
  // state/barrier hand-off.
  SubPassPlan plan_;
  std::vector<Range> ranges_;
  std::vector<int> busy_;     ///< install: the workers with a range, in worker order
  bool member_rows_ = false;  ///< install: some stealing member has a range
  ChunkQueue queue_;
  /// Ratio plans of schedules that balance the CPU share: the CPU workers' ranges, taken
  /// in pieces by their owners and stolen by the others.
  StealingRanges shares_;
  std::int64_t n_ = 0;
  /// The pass's first iteration: plans and ranges count from 0, bodies and buffers see
  /// origin_ + k (a loop over interior rows 1..n-2 of a registered grid).
  std::int64_t origin_ = 0;
  int pass_error_ = TSAR_OK;
  std::string pass_error_message_;
  int sub_passes_ = 0;
  double pass_start_ = 0.0;
  double sub_start_ = 0.0;  ///< when the current (sub-)pass's plan was installed
  double schedule_seconds_ = 0.0;
  /// The data environment whose participation trial the planner shares (nullptr: its own).
  const DataEnvironment* trial_environment_ = nullptr;
  std::uint64_t host_writes_seen_ = 0;  ///< memory_.host_writes() at the last pass
  bool time_chunks_ = true;             ///< read the clock at every chunk (Scheduler::times_chunks)
  std::atomic<bool> canceled_{false};
  int outcome_ = TSAR_OK;  ///< status of the last finished pass
  std::atomic<bool> pool_driven_{false};
  tsar_body_fn body_ = nullptr;
  void* body_arg_ = nullptr;

  alignas(64) std::atomic<std::uint32_t> state_{kIdle};
  PassBarrier barrier_;

  Statistics stats_;
  TraceSink* trace_;
  /// The names this region's trace lines give (trace_pass), and the devices they were made of.
  TraceContext trace_context_;
  std::vector<std::shared_ptr<Device>> trace_devices_;
};

}  // namespace tsar::core
