// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A region: one loop that runs in passes over its workers, one per device (thesis 5.4.4).
//
// The pass protocol is driven by the workers themselves, whoever they are -- TSAR's pool
// threads (run) or the caller's OpenMP team (tsar_next/tsar_loop):
//
//   next(w)  the first worker to arrive plans the pass (the scheduler's split, reductions
//            reset); each worker then takes its range or first chunk and starts its clock.
//   loop(w)  stops the clock; chunk schedules hand the worker its next chunk right here
//            (a fetch-and-add, no lock); otherwise it arrives at the end-of-pass barrier,
//            where worker 0 waits for the others' arrivals (a flag each, no shared counter),
//            learns the times, plans the next sub-pass or ends the pass (back-off,
//            reductions, statistics, trace) before releasing the others.
//
// Everything a worker touches during a pass is its own cache-line-aligned slot, the plan
// (read-only while workers run) and the ChunkQueue.

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "memory/copy_engine.hpp"
#include "memory/reductions.hpp"
#include "memory/registry.hpp"
#include "queue/chunk_queue.hpp"
#include "queue/stealing_ranges.hpp"
#include "region/share_probe.hpp"
#include "region/statistics.hpp"
#include "runtime/runtime.hpp"
#include "schedule/schedule_spec.hpp"
#include "schedule/scheduler.hpp"
#include "schedule/time_estimator.hpp"
#include "tsar/tsar.h"
#include "workers/pass_barrier.hpp"

namespace tsar::core {

class TraceSink;

class Region {
 public:
  static constexpr int kDefaultBackoff = 2;
  /// Back-off's "slower than the CPU devices alone" test: by this factor.
  static constexpr double kBackoffMargin = 1.25;
  static constexpr std::int64_t kMaxIterations = std::int64_t{1} << 60;
  /// Smallest piece CPU cores balancing a ratio plan's ranges take, in seconds of their
  /// measured time per iteration: shorter pieces would cost more in dispatch than they save.
  static constexpr double kMinSharePieceSeconds = 10e-6;
  /// Copies every pass that an accelerator may cost before anyone knows the CPU's pass time:
  /// an accelerator whose fixed copies (screen_accelerators) take longer sits out the first
  /// pass, until the CPU devices' measured time tells whether it can pay at all.
  static constexpr double kBlindProbeSeconds = 1e-3;
  /// A device's sample in which the copies of rows a changed split just gave it take more than
  /// this share is not learned (copy_dominated).
  static constexpr double kMigrationShare = 0.25;

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
  /// tsar_next for worker w. Returns a tsar_status (also set as the thread's last error);
  /// the range is empty on errors.
  int next(int worker, std::int64_t n, std::int64_t* begin, std::int64_t* end);
  /// tsar_loop for worker w: 1 = run again, 0 = pass over. *status gets the pass's outcome
  /// (also the thread's last error).
  int loop(int worker, int* status);
  /// Runs one pass on the worker pool. Returns a tsar_status.
  int run(std::int64_t n, tsar_body_fn body, void* arg);
  void cancel();

  /// The calling worker's device (valid while it is in a pass).
  const Device& device(int worker) const {
    return *workers_[static_cast<std::size_t>(worker)].device;
  }

  // -- statistics ---------------------------------------------------------------------------
  std::int64_t passes() const { return stats_.recorded(); }
  /// Throws Error(TSAR_ERR_STATE during a pass, TSAR_ERR_INVALID for a pass not kept).
  void pass_stats(std::int64_t pass, tsar_pass_stats* out, tsar_device_stats* devices,
                  int capacity) const;
  /// Throws Error(TSAR_ERR_IO).
  void write_trace(const std::string& path) const;

 private:
  enum State : std::uint32_t { kIdle, kPlanning, kActive };
  enum Decision : std::uint32_t { kContinue, kDone };

  /// One worker's state, in cache lines by writer: what the worker writes during a pass is
  /// apart from what the leader keeps, and the part the leader reads after the barrier is
  /// one line.
  struct alignas(64) Worker {
    std::shared_ptr<Device> device;
    int slot = 0;              ///< runtime device slot: the pool thread that runs it
    bool active = true;        ///< false once retired with no CPU to become (leader writes)
    bool retired = false;      ///< its accelerator was retired by back-off or out of memory
    bool lost_device = false;  ///< its accelerator ran out of memory in this sub-pass
    // Written by the worker during a pass; the leader reads this line after the barrier.
    alignas(64) double arrival = 0.0;
    std::int64_t sub_iterations = 0;
    std::int64_t sub_chunks = 0;
    double sub_busy = 0.0;
    // The worker's own during a pass.
    bool in_pass = false;
    bool has_pending = false;
    bool started = false;  ///< start already set by loop() for the pending chunk
    unsigned kind = 0;     ///< the device as bodies see it, cached at the pass start
    int id = -1;
    LaunchContext launch;
    int error = TSAR_OK;  ///< this worker's error in this pass (n mismatch...)
    Range pending;
    Range current;
    double start = 0.0;
    // Kept by the leader: back-off, the relative range of its last sample, pass totals.
    alignas(64) int backoff_streak = 0;
    double retired_tpi = 0.0;  ///< the retired accelerator's last estimate (for the cache)
    double sampled_lo = 0.0;
    double sampled_hi = 0.0;
    std::int64_t pass_iterations = 0;
    std::int64_t pass_chunks = 0;
    double pass_busy = 0.0;
    double pass_idle = 0.0;
  };
  /// The active CPU devices together: whether there is one, and the seconds they would
  /// need for n iterations by their measured times (0 while none is measured).
  struct CpuSide {
    bool any = false;
    double seconds = 0.0;
  };

  CpuSide cpu_side(std::int64_t n) const;  // planner/leader: back-off and screening
  void join_pass(int worker, std::int64_t n);
  void begin_pass(std::int64_t n);         // planner: the pass's first plan
  void install();                          // planner/leader: publishes plan_
  void install_shares();                   // planner/leader: the CPU cores' stealing ranges
  void choose_share_mode(std::int64_t n);  // planner: how the cores share the pass
  ChunkQueue::Result take_chunk(int worker, const ChunkTiming& last, Range& out);  // worker
  void stop_dispatch();                            // cancellation: no more chunks or stolen ranges
  void start_sub_pass(int worker);                 // worker: its first range of the current plan
  void finish_sub_pass();                          // leader, inside the barrier
  void end_pass(double last_arrival);              // leader
  void back_off();                                 // leader, end of pass
  void retire(std::size_t w);                      // leader/planner: back-off's retirement
  void screen_accelerators(std::int64_t n);        // planner: before a pass's devices are fixed
  void probe_unmeasured();                         // planner: unmeasured devices run something
  void hold_split(std::int64_t n);                 // planner: split hysteresis (data movement)
  void hold_cpu_ranges(std::int64_t n);            // planner: CPU-only regions' split hold
  bool copy_dominated(std::size_t w);              // leader: a sample not to learn from
  double joining_core_prior(std::size_t joining);  // leader: prior of a retired accelerator's core
  void exchange_resident_rows();  // planner/leader: after install(), before workers run
  template <class F>
  void guard_memory(F&& f);  // planner: a failed copy fails the pass, not the process
  void forget_if_moved(Worker& w, TimeEstimator& estimator, Range range) const;  // leader
  void record_pass(double last_arrival);                                         // leader
  std::span<const double> current_times();  // leader: effective times into times_
  void learn_straggle();                    // leader, after a ratio (sub-)pass
  std::vector<std::string> device_keys() const;
  void ensure_bound(Worker& w) const;
  // The copy engine around a range on a device with its own memory (worker side).
  void stage_in(Worker& me, int worker);
  void stage_out(Worker& me, int worker);
  void lose_device(Worker& me, int worker, const std::string& why);  // out of memory
  void fail_device(Worker& me, const std::string& why);              // any other failure
  void retire_lost(std::size_t w);                                   // leader
  static void run_worker(void* context, int worker);

  std::shared_ptr<Runtime> runtime_;
  std::string name_;
  ScheduleSpec spec_;
  unsigned kinds_;
  int backoff_passes_ = kDefaultBackoff;
  std::vector<std::string> original_keys_;  ///< device set key of the cache
  std::vector<double> peak_tpi_;            ///< relative times from device peaks
  std::vector<double> given_tpi_;           ///< user or cache times (0 = unknown)

  std::vector<Worker> workers_;
  std::vector<TimeEstimator> estimators_;  ///< leader only
  std::vector<unsigned char> active_;      ///< leader only; 0 = retired with no CPU to become
  std::vector<double> times_;              ///< leader only: effective times per iteration
  /// Leader only: how much longer the slowest CPU core of recent ratio (sub-)passes ran than
  /// the CPU mean (region/straggle.hpp); CPU times are planned that much longer next to
  /// accelerators.
  double cpu_straggle_ = 1.0;
  std::vector<double> busy_scratch_;  ///< leader only
  /// Planner only: accelerators kept out of this pass's split (screen_accelerators).
  std::vector<unsigned char> sitting_out_;
  /// Planner only: the last whole-pass ratio split of a pass with copying devices (counts),
  /// for n = last_split_n_ (-1: none), and the hysteresis inputs (split_hysteresis.hpp).
  std::vector<std::int64_t> last_split_;
  std::int64_t last_split_n_ = -1;
  std::vector<double> move_seconds_;
  std::vector<unsigned char> pooled_;
  std::vector<unsigned char> settled_;
  std::int64_t split_since_ = 0;  ///< the pass from which last_split_'s data stayed put
  /// Planner/leader: this pass's split was kept because some copying device's times had not
  /// settled (back-off does not judge its shares).
  bool settling_ = false;
  std::vector<std::int64_t> entering_;
  /// Planner/leader: predicted seconds each device spends in this pass copying in the rows
  /// its range gained from the last split (its first range: all of them); and whether its
  /// last sample was left out for them.
  std::vector<double> migration_seconds_;
  std::vector<unsigned char> skipped_;
  /// Set when tsar_run returns with pool threads still leaving its barrier; the next pass of
  /// an OpenMP team waits for them first (next()). Read-mostly: a line of its own.
  alignas(64) std::atomic<bool> pool_leaving_{false};
  /// Planner only: the last whole-pass split of a CPU-only region, for n = cpu_split_n_ (-1:
  /// none), and which devices it holds (region/cpu_split_hold.hpp).
  std::vector<std::int64_t> cpu_split_;
  std::int64_t cpu_split_n_ = -1;
  std::vector<unsigned char> cpu_pooled_;
  std::vector<double> ratio_scratch_;  ///< leader only: working storage of times_
  std::vector<int> slots_;             ///< the pool thread of each worker
  std::unique_ptr<Scheduler> scheduler_;
  MemoryRegistry memory_;
  Reductions reductions_;
  CopyEngine engine_;
  bool device_memory_ = false;  ///< some device has its own memory: the copy engine runs
  bool copying_ = false;        ///< planner: some device of this pass still has its own memory
  std::vector<std::shared_ptr<Device>> pass_devices_;  ///< planner: each worker's device
  std::atomic<bool> device_failed_{false};
  std::string device_failure_;  ///< the first device failure of the pass (its writer only)

  // The current (sub-)pass: written by the planner/leader, read by workers after the
  // state/barrier hand-off.
  SubPassPlan plan_;
  std::vector<Range> ranges_;
  ChunkQueue queue_;
  /// Ratio plans of schedules that balance the CPU share: the CPU workers' ranges, taken
  /// in pieces by their owners and stolen by the others (balance_cpu_ set).
  bool balance_cpu_ = false;
  /// Planner/leader: how this pass's cores share it, whether the pass is one the probe
  /// learns from (single cores alone, a balancing schedule's whole-pass ratio plan;
  /// region/share_probe.hpp), and the chunk size of a pass shared as chunks (0 otherwise).
  ShareMode share_mode_ = ShareMode::kOwn;
  bool probed_pass_ = false;
  std::int64_t share_chunk_ = 0;
  ShareProbe share_probe_;
  StealingRanges shares_;
  std::vector<unsigned char> share_member_;  ///< planner/leader: scratch of install_shares
  std::vector<std::int64_t> share_piece_;    ///< planner/leader: scratch of install_shares
  std::int64_t n_ = 0;
  int pass_error_ = TSAR_OK;
  std::string pass_error_message_;
  int sub_passes_ = 0;
  double pass_start_ = 0.0;
  double schedule_seconds_ = 0.0;
  bool pass_chunked_ = false;
  bool time_chunks_ = true;  ///< read the clock at every chunk (Scheduler::times_chunks)
  std::atomic<bool> canceled_{false};
  Decision decision_ = kDone;
  int outcome_ = TSAR_OK;  ///< status of the last finished pass
  std::atomic<bool> pool_driven_{false};
  tsar_body_fn body_ = nullptr;
  void* body_arg_ = nullptr;

  alignas(64) std::atomic<std::uint32_t> state_{kIdle};
  PassBarrier barrier_;

  Statistics stats_;
  TraceSink* trace_;
};

}  // namespace tsar::core
