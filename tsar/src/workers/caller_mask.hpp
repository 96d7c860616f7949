// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The CPU masks of the program's threads while they work for TSAR. tsar_run's caller (worker
// 0), the threads of the caller's OpenMP team (tsar_next/tsar_loop) and a partition's caller
// (place 0) are the program's threads: after any TSAR call a thread's mask is what the program
// set, so OpenMP work the program starts afterwards is not squeezed onto one core.
//
// A pass needs such a thread on its device's CPUs. A thread that already runs on one of them
// -- bound there by the program (taskset, OMP_PROC_BIND, mpiexec -bind-to core), or placed
// there by the scheduler, as it stays after one pinned pass -- is left as it is: reading the
// CPU a thread runs on is no system call (glibc reads it from rseq or the vDSO), so a steady
// pass makes none. A thread elsewhere is pinned to its device's CPUs for the call
// (sched_getaffinity, sched_setaffinity) and gets its mask back when the outermost TSAR call
// on it ends (sched_setaffinity); it then normally stays where the pin moved it. Pinning and
// unpinning every pass instead cost each pass three system calls and, where the scheduler
// had moved the thread in between, a migration back (tsar/README.md, "Fixed cost of a
// pass"). TSAR's own pool threads are pinned for good (Device::bind_worker).

#include <sched.h>

namespace tsar::core {

/// The calls CallerMask makes about the calling thread; tests replace them (to count system
/// calls, or to say which CPU the thread runs on).
struct AffinityCalls {
  int (*current_cpu)();                    ///< sched_getcpu(): the CPU, or -1
  int (*get_mask)(cpu_set_t* mask);        ///< sched_getaffinity(0, ...): 0 or -1 (errno)
  int (*set_mask)(const cpu_set_t* mask);  ///< sched_setaffinity(0, ...): 0 or -1 (errno)
};

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
  /// Makes the calling thread run on `cpus` until the outermost call on it ends: nothing when
  /// it runs on one of them now (or is pinned to them already), else pins it (the first pin
  /// of the call saves the thread's mask). Returns false when sched_setaffinity failed (the
  /// thread then runs unpinned).
  static bool pin(const cpu_set_t& cpus);

  /// Replaces the calls (tests); returns the previous ones. Not concurrent with TSAR calls.
  static AffinityCalls replace_calls(const AffinityCalls& calls);
};

}  // namespace tsar::core
