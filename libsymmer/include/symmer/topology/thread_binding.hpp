// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Moving every thread of a process from one CPU set to another, each to its relative place:
// the shim moving its own rank at an analyzer's command, and the analyzer binding from outside
// a rank that makes no MPI call. Numbers are Linux CPU numbers.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace symmer::topology {

/// How move_process_threads ended.
enum class ThreadMoveError {
  kNone,
  kInvalidCpu,  ///< `to` is empty or names a CPU this node lacks: no thread was touched
  kNoProcess,   ///< the threads could not be listed (the process is gone)
  kNotAllowed,  ///< a thread may not run on its new CPUs (EINVAL: outside its cpuset)
  kFailed,      ///< a thread could not be moved otherwise (EPERM), or memory ran out
};

struct ThreadMoveOptions {
  int skip_tid = 0;             ///< a thread to leave where it is (0: none)
  bool all_or_nothing = false;  ///< when a thread cannot move, put back those already moved
};

struct ThreadMoves {
  ThreadMoveError error = ThreadMoveError::kNone;
  int failed_tid = 0;     ///< the thread that could not move (kNotAllowed, kFailed)
  std::size_t moved = 0;  ///< threads bound to their new CPUs (and left there)
  std::size_t kept = 0;   ///< threads left where they were: already inside `to`
};

/// The threads of process `pid` (/proc/<pid>/task; /proc/self/task for this process, which
/// needs no /proc of its pid namespace).
///
/// \return their ids; std::nullopt when they cannot be listed (the process is gone).
std::optional<std::vector<int>> process_threads(int pid);

/// Binds every thread of process `pid` (/proc/<pid>/task) from CPU set `from` onto CPU set `to`
/// (both sorted), each to its relative place (map_relative of its current CPUs). A thread
/// already inside `to` but not inside `from` stays where it is: it was bound there from
/// outside while its process made no move of its own. Leaves `options.skip_tid` alone, and
/// skips threads that end meanwhile (ESRCH). Stops at the first thread that cannot move.
///
/// \return what was done; error kNone when every thread is in its place, including a process
/// whose threads all ended or were skipped (moved + kept == 0).
ThreadMoves move_process_threads(int pid, std::span<const int> from, std::span<const int> to,
                                 ThreadMoveOptions options = {}) noexcept;

}  // namespace symmer::topology
