// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The CPU masks of the program's threads while they work for TSAR. tsar_run's caller (worker
// 0), the threads of the caller's OpenMP team (tsar_next/tsar_loop) and a partition's caller
// (place 0) are the program's threads: TSAR pins one to its device's CPUs for a call unless the
// program bound it to exactly those, and gives the mask back when the outermost TSAR call on
// the thread ends -- so after any TSAR call a thread's mask is what the program set, and
// OpenMP work the program starts afterwards is not squeezed onto one core. A thread the
// program bound to its device's CPUs (taskset, OMP_PROC_BIND, mpiexec -bind-to core) costs one
// sched_getaffinity per call; any other two sched_setaffinity more. TSAR's own pool threads
// are pinned for good (Device::bind_worker).

#include <sched.h>

namespace tsar::core {

class CallerMask {
 public:
  /// A TSAR call on the program's thread (tsar_run, tsar_partition_run): the thread's mask is
  /// given back when the outermost scope on it ends.
  class Scope {
   public:
    Scope() { enter(); }
    ~Scope() { leave(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
  };
  /// The same for a pass whose calls a scope cannot span (tsar_next ... tsar_loop).
  static void enter();
  static void leave();
  /// Pins the calling thread to `cpus` until the outermost call on it ends (the first pin of
  /// the call saves the thread's mask), unless the thread's own mask is `cpus`.
  /// Returns false when sched_setaffinity failed (the thread then runs unpinned).
  static bool pin(const cpu_set_t& cpus);
};

}  // namespace tsar::core
