// SPDX-License-Identifier: BSD-3-Clause
#include "workers/caller_mask.hpp"

namespace tsar::core {
namespace {

struct ThreadState {
  int depth = 0;       ///< TSAR calls open on the thread
  bool saved = false;  ///< `mask` holds the program's mask, to give back
  bool pinned = false;
  cpu_set_t mask;
};
thread_local ThreadState tls;

}  // namespace

void CallerMask::enter() { ++tls.depth; }

void CallerMask::leave() {
  if (tls.depth > 0 && --tls.depth > 0) return;
  if (tls.pinned) sched_setaffinity(0, sizeof tls.mask, &tls.mask);
  tls.saved = tls.pinned = false;
}

bool CallerMask::pin(const cpu_set_t& cpus) {
  if (tls.depth == 0) return true;  // outside a call nothing would give the mask back
  if (!tls.saved) {
    if (sched_getaffinity(0, sizeof tls.mask, &tls.mask) != 0) return false;
    tls.saved = true;
  }
  if (!tls.pinned && CPU_EQUAL(&tls.mask, &cpus)) return true;  // the program bound it so
  if (sched_setaffinity(0, sizeof cpus, &cpus) != 0) return false;
  tls.pinned = true;
  return true;
}

}  // namespace tsar::core
