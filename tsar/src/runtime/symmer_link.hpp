// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// TSAR inside an MPI rank that symmer monitors (libsymmer-pmpi.so, pmpi-shim/include/
// symmer_rank.h). TSAR publishes the CPUs of its workers and its GPU control cores into the
// rank's slot of symmer's node segment, so the analyzer plans with them and keeps other ranks
// off the control cores; and when symmer moves the rank to another CPU set, TSAR's workers
// follow at their next pass, each to its relative place in the new set.
//
// The shim is found at run time with dlsym: TSAR never links it, and without it (no symmer,
// or symmer not monitoring this process) every call here does nothing.

#include <sched.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace tsar::core {

class SymmerLink {
 public:
  /// The process's link (the shim's functions are looked up on first use).
  static SymmerLink& instance();

  /// Changes whenever symmer moved the rank; 0 without symmer. One atomic load.
  std::uint64_t generation() const;

  /// Publishes TSAR's worker CPUs and GPU control cores (Linux CPU numbers, where the
  /// devices were built: the rank's set at this call). Published again, mapped, after every
  /// move; also later when symmer starts monitoring only after this call (TSAR set up before
  /// MPI_Init).
  void publish(std::vector<int> worker_cpus, std::vector<int> control_cpus);

  /// `cpus` -- CPUs of the set TSAR's devices were built on -- at their relative places in the
  /// rank's current set: where a worker bound to `cpus` belongs now. `cpus` itself while
  /// symmer has not moved the rank (one atomic load); after a move it takes a lock.
  cpu_set_t follow(const cpu_set_t& cpus);

  /// Pins the calling thread to follow(cpus) once symmer moved the rank; nothing before (the
  /// thread stays where Device::bind_worker pinned it). Call it when a thread binds, or when
  /// generation() changed, not on every pass.
  void follow_this_thread(const cpu_set_t& cpus);

 private:
  SymmerLink();
  // The rank's current set as symmer reports it, refreshed when the generation changed;
  // publishes TSAR's CPUs mapped onto it. Caller holds mutex_.
  void refresh_locked();

  using GenerationFn = unsigned long long (*)();
  using CpusFn = int (*)(int*, int, unsigned long long*);
  using PublishFn = int (*)(const int*, int, const int*, int);
  GenerationFn generation_ = nullptr;
  CpusFn cpus_ = nullptr;
  PublishFn publish_ = nullptr;

  std::mutex mutex_;
  std::vector<int> built_;    // the rank's set when TSAR published (its devices' set)
  std::vector<int> current_;  // its set at generation seen_
  std::uint64_t seen_ = 0;
  std::vector<int> workers_, control_;  // as built
  std::atomic<bool> wanted_{false};  // publish() was called
};

}  // namespace tsar::core
