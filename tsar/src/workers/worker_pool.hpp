#pragma once
// The persistent worker pool: one host thread per device of a runtime, created on first use
// and kept for the runtime's life, across passes and regions. A run hands each participating
// worker a job; the calling thread itself is worker 0 (like an OpenMP master thread), so a
// pass costs no hand-off to and from the caller. Workers pin themselves to their device
// (Region does it per pass, since back-off can change a worker's device).

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

  /// True when the calling thread runs a job of this pool now (as the caller of run or as
  /// one of its threads): a run on this pool from there would wait for itself. Runs on other
  /// pools nest (a partition's places each have a pool of their own).
  bool running_here() const;

 private:
  struct alignas(64) Thread {
    WaitWord mailbox;
    Job job = nullptr;
    void* context = nullptr;
    int worker = 0;
    std::thread thread;
  };

  void thread_main(Thread& self);

  std::mutex run_mutex_;
  std::vector<std::unique_ptr<Thread>> threads_;
  std::atomic<bool> stopping_{false};
  alignas(64) std::atomic<int> pending_{0};
  std::uint32_t run_seq_ = 0;
  alignas(64) WaitWord done_;
};

}  // namespace tsar::core
