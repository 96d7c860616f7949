// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The persistent worker pool: one host thread per device of a runtime, created on first use
// and kept for the runtime's life, across passes and regions. A run hands each participating
// worker a job; the calling thread itself is worker 0 (like an OpenMP master thread), so a
// pass costs no hand-off to and from the caller. Workers pin themselves to their device
// (Region does it per pass, since back-off can change a worker's device).
//
// Each thread has its own mailbox (a job sequence number the caller bumps) and its own
// "finished" word; the caller publishes every mailbox, then fences once, so the wake-ups'
// cache-line transfers overlap. Sleeping threads are woken one system call after another in
// the order the run lists them: on a 64-core node the last of 63 started milliseconds after
// the first (docs/results/tsar/pass-trace-jacobi/2026-11-26-h200x4-0ec96d3.txt), so a caller
// lists first the workers its pass waits on longest. run() waits for every job (a count of
// unfinished jobs). A region's pass needs no such count: its jobs end in its end-of-pass
// barrier, so run_ending_in_barrier() returns when job 0 returns and the others are only
// leaving theirs. The next run does not wait for them: a thread preempted on its way out
// would hold up every worker of that run (docs/results/tsar/pass-dispatch/). It starts its
// next job once it has left the last, or job 0 takes that job back (excuse) and the run goes
// on without it; wait_idle() waits for every thread to have left, before what their jobs used
// goes away. A job taken back is never run.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "workers/wait_word.hpp"

namespace tsar::core {

class WorkerPool {
 public:
  using Job = void (*)(void* context, int worker);

  /// A pool for `slots` device slots (threads start lazily).
  explicit WorkerPool(int slots);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Runs job(context, w) for w in [0, slots.size()): w = 0 on the calling thread, w > 0 on
  /// the pool thread of device slot slots[w]. Returns when every job returned. Concurrent
  /// runs wait for each other. Jobs must not throw.
  void run(std::span<const int> slots, Job job, void* context);

  /// Runs job(context, w) for each w of `workers` (the first one 0, on the calling thread),
  /// worker w on the pool thread of device slot slots[w]: a pass's jobs, which end in a
  /// barrier of all of them (after it, the others touch nothing the caller may change
  /// before wait_idle: the next runs may start while they leave). Returns when job 0
  /// returned. Workers not listed sit the run out (a pass with nothing for them wakes no
  /// thread).
  void run_ending_in_barrier(std::span<const int> slots, std::span<const int> workers, Job job,
                             void* context);

  /// Returns once every pool thread has left the jobs of earlier runs (before the context of
  /// those jobs goes away). From inside a job of this pool's run: every thread but those in
  /// their job of that run.
  void wait_idle();

  /// Called by the caller of run_ending_in_barrier (job 0) while it runs: takes the job of
  /// slot `slot`'s thread back if that thread has not started it yet -- woken late, say on a
  /// core another program holds -- so that thread never runs it and touches none of its
  /// context. Returns true when taken back; false when the thread started (or finished) it.
  bool excuse(int slot);

  /// Tests: called on each pool thread with its slot just before it starts a job (nullptr:
  /// none), to make a thread late at will. Not concurrent with runs.
  static void set_start_hook(void (*hook)(int slot));
  /// Tests: called on each pool thread with its slot when its job returned, before it counts
  /// as having left it (nullptr: none), to make a thread slow to leave. Not concurrent with
  /// runs.
  static void set_leave_hook(void (*hook)(int slot));

  /// True when the calling thread runs a job of this pool now (as the caller of run or as
  /// one of its threads): a run on this pool from there would wait for itself. Runs on other
  /// pools nest (a partition's places each have a pool of their own).
  bool running_here() const;

  /// True on the threads of any pool (TSAR's own threads, which TSAR may bind to CPUs); false
  /// on the program's threads, whose CPU masks TSAR leaves as the program set them.
  static bool on_pool_thread();

 private:
  /// One cache line per thread: what the caller writes to start a job, and what the thread
  /// writes when it takes one and when it left it. The thread is inside a job while started
  /// and finished differ.
  struct alignas(64) Thread {
    WaitWord mailbox;  ///< the sequence number of the thread's latest job
    Job job = nullptr;
    void* context = nullptr;
    int worker = 0;
    bool counted = false;                    ///< the job counts down pending_ (run) when it returns
    std::atomic<std::uint32_t> run{0};       ///< run_id_ of the run that handed it its latest job
    std::atomic<std::uint32_t> started{0};   ///< the sequence number of the last job it took
    std::atomic<std::uint32_t> finished{0};  ///< the sequence number of the last job it left
    /// Who has the latest job: (sequence number << 2) | kPending, kStarted or kExcused. The
    /// thread and excuse() each compare-and-swap it out of kPending; one wins.
    std::atomic<std::uint64_t> claim{0};
    int slot = 0;
    std::thread thread;
  };

  enum Claim : std::uint64_t { kPending = 0, kStarted = 1, kExcused = 2 };
  static std::uint64_t claim_word(std::uint32_t job, Claim c) {
    return (static_cast<std::uint64_t>(job) << 2) | c;
  }

  void thread_main(Thread& self);
  /// Returns once t is inside no job, or only inside one run `run` handed it (0: none).
  static void wait_left(const Thread& t, std::uint32_t run);
  /// Under run_mutex_: starts the jobs of `workers` (all of slots when empty) but the first,
  /// and runs job 0.
  void dispatch(std::span<const int> slots, std::span<const int> workers, Job job, void* context,
                bool counted);

  std::mutex run_mutex_;
  std::vector<std::unique_ptr<Thread>> threads_;
  std::atomic<bool> stopping_{false};
  alignas(64) std::atomic<int> pending_{0};  ///< run(): jobs of workers 1.. not returned yet
  std::uint32_t run_seq_ = 0;
  std::uint32_t run_id_ = 0;   ///< counts dispatches from 1 (Thread::run)
  alignas(64) WaitWord done_;  ///< run(): run_seq_ of the run whose jobs all returned
};

}  // namespace tsar::core
