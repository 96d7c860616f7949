// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The test process's CPUs, and pool threads made late at will: WorkerPool's start hook holds
// the threads of chosen device slots before they start a job -- a worker woken while another
// thread holds its core -- and its leave hook holds them when their job returned, before they
// count as having left it -- a thread preempted on its way out -- until the test lets them go.

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

/// Holds the pool threads of device slots first..last before they start a job (kStart) or
/// before they leave one (kLeave), until let go (at the latest when it goes out of scope, or
/// after kLimit: then timed_out is set, and a test that expected to go on while they are held
/// fails instead of hanging). One at a time in a process.
struct HeldSlots {
  enum When { kStart, kLeave };
  static constexpr std::chrono::seconds kLimit{10};
  static inline std::atomic<int> first{1}, last{0};
  static inline std::atomic<bool> held{false};
  static inline std::atomic<bool> timed_out{false};
  static inline std::atomic<int> waiting{0};  ///< threads held now
  static void hook(int slot) {
    if (slot < first.load() || slot > last.load()) return;
    waiting++;
    const auto until = std::chrono::steady_clock::now() + kLimit;
    while (held.load()) {
      if (std::chrono::steady_clock::now() > until) {
        timed_out = true;
        held = false;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    waiting--;
  }
  HeldSlots(int first_slot, int last_slot, When when = kStart) : when_(when) {
    first = first_slot;
    last = last_slot;
    held = true;
    timed_out = false;
    set(&HeldSlots::hook);
  }
  HeldSlots(const HeldSlots&) = delete;
  HeldSlots& operator=(const HeldSlots&) = delete;
  void let_go() {
    held = false;
    while (waiting.load() != 0) std::this_thread::yield();
  }
  ~HeldSlots() {
    let_go();
    set(nullptr);
  }

 private:
  void set(void (*f)(int)) const {
    if (when_ == kStart)
      tsar::core::WorkerPool::set_start_hook(f);
    else
      tsar::core::WorkerPool::set_leave_hook(f);
  }
  When when_;
};

}  // namespace pool_threads
