// SPDX-License-Identifier: BSD-3-Clause
// Moving a process's threads between CPU sets (see thread_binding.hpp).
#include "symmer/topology/thread_binding.hpp"

#include <dirent.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

#include "symmer/topology/cpu_list.hpp"

namespace symmer::topology {
namespace {

struct Moved {
  pid_t tid;
  cpu_set_t before;
};

// Moves thread `tid` as move_process_threads says, counting it in `out`; false when it could
// not move.
bool move_thread(pid_t tid, std::span<const int> from, std::span<const int> to,
                 std::vector<Moved>& moved, ThreadMoves& out) {
  const std::vector<int> old = thread_cpus(tid);
  if (old.empty()) return true;  // it ended meanwhile
  const auto within = [&](std::span<const int> set) {
    return std::includes(set.begin(), set.end(), old.begin(), old.end());
  };
  if (within(to) && !within(from)) {
    ++out.kept;
    return true;
  }
  const cpu_set_t after = cpu_set_of(map_relative(old, from, to));
  moved.push_back({tid, cpu_set_of(old)});  // before the move: a moved thread can always go back
  if (::sched_setaffinity(tid, sizeof after, &after) == 0) return true;
  const int error = errno;
  moved.pop_back();
  if (error == ESRCH) return true;  // it ended meanwhile
  out.error = error == EINVAL ? ThreadMoveError::kNotAllowed : ThreadMoveError::kFailed;
  out.failed_tid = tid;
  return false;
}

}  // namespace

std::optional<std::vector<int>> process_threads(int pid) {
  char tasks[32];
  if (pid == ::getpid())
    std::snprintf(tasks, sizeof tasks, "/proc/self/task");
  else
    std::snprintf(tasks, sizeof tasks, "/proc/%d/task", pid);
  DIR* dir = ::opendir(tasks);
  if (dir == nullptr) return std::nullopt;
  std::vector<int> tids;
  try {
    while (const dirent* e = ::readdir(dir)) {
      char* end = nullptr;
      const long tid = std::strtol(e->d_name, &end, 10);
      if (tid > 0 && *end == '\0') tids.push_back(static_cast<int>(tid));
    }
  } catch (...) {
    ::closedir(dir);
    throw;
  }
  ::closedir(dir);
  return tids;
}

ThreadMoves move_process_threads(int pid, std::span<const int> from, std::span<const int> to,
                                 ThreadMoveOptions options) noexcept {
  ThreadMoves out;
  const long configured = ::sysconf(_SC_NPROCESSORS_CONF);
  if (to.empty() || to.front() < 0 || to.back() >= CPU_SETSIZE || to.back() >= configured) {
    out.error = ThreadMoveError::kInvalidCpu;
    return out;
  }
  std::vector<Moved> moved;
  int current = 0;  // the thread being moved, for a failure to name
  try {
    const auto tids = process_threads(pid);
    if (!tids) {
      out.error = ThreadMoveError::kNoProcess;
      return out;
    }
    for (const int tid : *tids) {
      if (tid == options.skip_tid) continue;
      current = tid;
      if (!move_thread(static_cast<pid_t>(tid), from, to, moved, out)) break;
    }
  } catch (const std::bad_alloc&) {
    out.error = ThreadMoveError::kFailed;
    out.failed_tid = current;
  }
  if (out.error != ThreadMoveError::kNone && options.all_or_nothing) {
    for (const Moved& m : moved) ::sched_setaffinity(m.tid, sizeof m.before, &m.before);
    moved.clear();
  }
  out.moved = moved.size();
  return out;
}

}  // namespace symmer::topology
