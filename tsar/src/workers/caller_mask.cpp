// SPDX-License-Identifier: BSD-3-Clause
#include "workers/caller_mask.hpp"

namespace tsar::core {
namespace {

struct ThreadState {
  int depth = 0;       ///< TSAR calls open on the thread
  bool saved = false;  ///< `mask` holds the program's mask, to give back
  bool pinned = false;
  cpu_set_t mask;       ///< the program's
  cpu_set_t pinned_to;  ///< while pinned
};
thread_local ThreadState tls;

AffinityCalls system_calls() {
  return {[] { return sched_getcpu(); },
          [](cpu_set_t* mask) { return sched_getaffinity(0, sizeof *mask, mask); },
          [](const cpu_set_t* mask) { return sched_setaffinity(0, sizeof *mask, mask); }};
}
AffinityCalls calls = system_calls();

}  // namespace

AffinityCalls CallerMask::replace_calls(const AffinityCalls& replacement) {
  const AffinityCalls previous = calls;
  calls = replacement;
  return previous;
}

void CallerMask::enter() { ++tls.depth; }

void CallerMask::leave() {
  if (tls.depth > 0 && --tls.depth > 0) return;
  if (tls.pinned) calls.set_mask(&tls.mask);
  tls.saved = tls.pinned = false;
}

bool CallerMask::pin(const cpu_set_t& cpus) {
  if (tls.depth == 0) return true;  // outside a call nothing would give the mask back
  if (tls.pinned) {
    if (CPU_EQUAL(&tls.pinned_to, &cpus)) return true;
  } else {
    const int cpu = calls.current_cpu();
    if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &cpus)) return true;  // already there
  }
  if (!tls.saved) {
    if (calls.get_mask(&tls.mask) != 0) return false;
    tls.saved = true;
  }
  if (calls.set_mask(&cpus) != 0) return false;
  tls.pinned = true;
  tls.pinned_to = cpus;
  return true;
}

}  // namespace tsar::core
