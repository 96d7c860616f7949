// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The test process's CPUs, and pool threads made late at will: WorkerPool's start hook holds
// the threads of chosen device slots before they start a job -- a worker woken while another
// thread holds its core -- until the test lets them go.

#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "workers/worker_pool.hpp"

namespace pool_threads {

/// The CPUs of the calling thread's affinity mask, in order.
inline std::vector<int> my_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

/// Holds the pool threads of device slots first..last before they start a job, until let go
/// (at the latest when it goes out of scope). One at a time in a process.
struct HeldSlots {
  static inline std::atomic<int> first{1}, last{0};
  static inline std::atomic<bool> held{false};
  static inline std::atomic<int> waiting{0};  ///< threads held now
  static void hook(int slot) {
    if (slot < first.load() || slot > last.load()) return;
    waiting++;
    while (held.load()) std::this_thread::sleep_for(std::chrono::microseconds(50));
    waiting--;
  }
  HeldSlots(int first_slot, int last_slot) {
    first = first_slot;
    last = last_slot;
    held = true;
    tsar::core::WorkerPool::set_start_hook(&HeldSlots::hook);
  }
  HeldSlots(const HeldSlots&) = delete;
  HeldSlots& operator=(const HeldSlots&) = delete;
  void let_go() {
    held = false;
    while (waiting.load() != 0) std::this_thread::yield();
  }
  ~HeldSlots() {
    let_go();
    tsar::core::WorkerPool::set_start_hook(nullptr);
  }
};

}  // namespace pool_threads
