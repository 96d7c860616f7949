// SPDX-License-Identifier: BSD-3-Clause
#include "memory/unmap_watch.hpp"

#include <dlfcn.h>
#include <signal.h>

#include <mutex>

#if TSAR_HAVE_UCM
#include <ucm/api/ucm.h>
#endif

namespace tsar::core {
namespace {

UnmapWatch watch;
UnmapWatch* installed = nullptr;
std::string reason;
std::once_flag once;

#if TSAR_HAVE_UCM
void on_unmap(ucm_event_type_t, ucm_event_t* event, void* arg) {
  static_cast<UnmapWatch*>(arg)->record(event->vm_unmapped.address, event->vm_unmapped.size);
}

std::string loader_error(const char* what) {
  const char* e = dlerror();
  return std::string(what) + (e != nullptr ? std::string(" (") + e + ")" : std::string());
}

void install() {
  // Loaded by UCX already (an MPI library over UCX): its configuration is the program's.
  const bool loaded_before = dlopen("libucs.so.0", RTLD_NOW | RTLD_NOLOAD) != nullptr;
  // libucs installs its error handlers when it loads (UCX_HANDLE_ERRORS); TSAR loads it for
  // the memory hooks alone and leaves the program's signal handling as it was.
  constexpr int kSignals[] = {SIGILL, SIGSEGV, SIGBUS, SIGFPE};
  struct sigaction before[std::size(kSignals)];
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], nullptr, &before[i]);
  void* ucs = dlopen("libucs.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!loaded_before)
    for (std::size_t i = 0; i < std::size(kSignals); ++i)
      sigaction(kSignals[i], &before[i], nullptr);
  if (ucs == nullptr) {
    reason = loader_error("UCX's libucs.so.0 could not be loaded");
    return;
  }
  auto* set =
      reinterpret_cast<decltype(&ucm_set_event_handler)>(dlsym(ucs, "ucm_set_event_handler"));
  auto* opts = static_cast<ucm_global_config_t*>(dlsym(ucs, "ucm_global_opts"));
  if (set == nullptr || opts == nullptr) {
    reason = "UCX's libucm lacks ucm_set_event_handler or ucm_global_opts";
    return;
  }
  // Only the unmap hooks: whether malloc goes through UCX is for UCX's own users to choose.
  if (!loaded_before) {
    opts->enable_malloc_hooks = 0;
    opts->enable_malloc_reloc = 0;
  }
  if (const ucs_status_t s = set(UCM_EVENT_VM_UNMAPPED, 0, on_unmap, &watch); s != UCS_OK) {
    reason = "UCX's memory hooks could not be installed (status " + std::to_string(s) +
             "; UCX_MEM_EVENTS=no turns them off)";
    return;
  }
  installed = &watch;
}
#else
void install() { reason = "built without UCX's headers (libucx-dev)"; }
#endif

}  // namespace

UnmapWatch* UnmapWatch::get() {
  std::call_once(once, install);
  return installed;
}

const std::string& UnmapWatch::why() {
  std::call_once(once, install);
  return reason;
}

void UnmapWatch::record(const void* begin, std::size_t bytes) {
  const std::uint64_t n = next_.fetch_add(1, std::memory_order_acq_rel);
  Event& e = ring_[n % kEvents];
  e.seq.store(0, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  const auto at = reinterpret_cast<std::uintptr_t>(begin);
  e.begin.store(at, std::memory_order_relaxed);
  e.end.store(at + bytes, std::memory_order_relaxed);
  e.seq.store(n + 1, std::memory_order_release);
}

bool UnmapWatch::unmapped_since(const void* begin, std::size_t bytes, std::uint64_t& since) const {
  const std::uint64_t end_seq = now();
  const std::uint64_t from = since;
  since = end_seq;
  if (end_seq - from > kEvents) return true;
  const auto lo = reinterpret_cast<std::uintptr_t>(begin);
  const std::uintptr_t hi = lo + bytes;
  for (std::uint64_t n = from; n < end_seq; ++n) {
    const Event& e = ring_[n % kEvents];
    const std::uint64_t seq = e.seq.load(std::memory_order_acquire);
    const std::uintptr_t b = e.begin.load(std::memory_order_relaxed);
    const std::uintptr_t x = e.end.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    // Overwritten, being written or not yet written: cannot tell.
    if (seq != n + 1 || e.seq.load(std::memory_order_relaxed) != seq) return true;
    if (b < hi && lo < x) return true;
  }
  return false;
}

}  // namespace tsar::core
