// SPDX-License-Identifier: BSD-3-Clause
// The rank's CPU sets and moving all its threads between them (see placement.hpp), and the
// C functions of symmer_rank.h.
#include "placement.hpp"

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <set>

#include "runtime.hpp"
#include "symmer/topology/cpu_list.hpp"
#include "symmer/topology/thread_binding.hpp"
#include "symmer_rank.h"

namespace symmer::shim {
namespace {

// The CPUs of the OpenMP runtime's places, when the application has one and it binds.
void add_omp_places(std::set<int>& cpus) {
  const char* places = std::getenv("OMP_PLACES");
  const char* bind = std::getenv("OMP_PROC_BIND");
  if (places == nullptr && (bind == nullptr || std::strcmp(bind, "false") == 0)) return;
  using NumPlaces = int (*)();
  using PlaceNumProcs = int (*)(int);
  using PlaceProcIds = void (*)(int, int*);
  const auto num_places = reinterpret_cast<NumPlaces>(::dlsym(RTLD_DEFAULT, "omp_get_num_places"));
  const auto num_procs =
      reinterpret_cast<PlaceNumProcs>(::dlsym(RTLD_DEFAULT, "omp_get_place_num_procs"));
  const auto proc_ids =
      reinterpret_cast<PlaceProcIds>(::dlsym(RTLD_DEFAULT, "omp_get_place_proc_ids"));
  if (num_places == nullptr || num_procs == nullptr || proc_ids == nullptr) return;
  const int n = num_places();
  for (int p = 0; p < n && p < CPU_SETSIZE; ++p) {
    const int k = num_procs(p);
    if (k <= 0 || k > CPU_SETSIZE) continue;
    std::vector<int> ids(static_cast<std::size_t>(k));
    proc_ids(p, ids.data());
    for (int c : ids)
      if (c >= 0 && c < CPU_SETSIZE) cpus.insert(c);
  }
}

}  // namespace

std::vector<int> launch_cpus() {
  std::set<int> cpus;
  if (const auto tids = topology::process_threads(::getpid()))
    for (const int tid : *tids)
      for (int c : topology::thread_cpus(tid)) cpus.insert(c);
  add_omp_places(cpus);
  return {cpus.begin(), cpus.end()};
}

std::uint64_t compute_threads() {
  using MaxThreads = int (*)();
  if (const auto max_threads =
          reinterpret_cast<MaxThreads>(::dlsym(RTLD_DEFAULT, "omp_get_max_threads"))) {
    const int n = max_threads();
    if (n > 0 && n <= 65536) return static_cast<std::uint64_t>(n);
  }
  const char* v = std::getenv("OMP_NUM_THREADS");
  if (v == nullptr) return 0;
  const std::string_view text(v);
  const std::string_view first = text.substr(0, text.find(','));
  std::uint64_t n = 0;
  const auto r = std::from_chars(first.data(), first.data() + first.size(), n);
  return r.ec == std::errc() && r.ptr == first.data() + first.size() && n <= 65536 ? n : 0;
}

segment::AckStatus move_all_threads(const std::vector<int>& from, const std::vector<int>& to,
                                    long skip_tid) noexcept {
  const auto r = topology::move_process_threads(
      ::getpid(), from, to, {.skip_tid = static_cast<int>(skip_tid), .all_or_nothing = true});
  switch (r.error) {
    case topology::ThreadMoveError::kNone:
      return segment::AckStatus::kOk;
    case topology::ThreadMoveError::kInvalidCpu:
      return segment::AckStatus::kInvalidCpu;
    case topology::ThreadMoveError::kNotAllowed:
      return segment::AckStatus::kNotAllowed;
    case topology::ThreadMoveError::kNoProcess:
    case topology::ThreadMoveError::kFailed:
      break;
  }
  return segment::AckStatus::kFailed;
}

}  // namespace symmer::shim

using symmer::shim::g;

extern "C" __attribute__((visibility("default"))) unsigned long long symmer_rank_set_generation(
    void) {
  return g.active.load(std::memory_order_acquire) ? g.set_generation.load(std::memory_order_acquire)
                                                  : 0;
}

extern "C" __attribute__((visibility("default"))) int symmer_rank_cpus(
    int* cpus, int capacity, unsigned long long* generation) {
  if (!g.active.load(std::memory_order_acquire)) return -1;
  symmer::shim::PublishLock lock;
  const auto& set = g.current_cpus;
  for (std::size_t i = 0; i < set.size() && static_cast<int>(i) < capacity && cpus != nullptr; ++i)
    cpus[i] = set[i];
  if (generation != nullptr) *generation = g.set_generation.load(std::memory_order_relaxed);
  return static_cast<int>(set.size());
}

extern "C" __attribute__((visibility("default"))) int symmer_rank_publish_runtime_cpus(
    const int* workers, int nworkers, const int* control, int ncontrol) {
  if (!g.active.load(std::memory_order_acquire) || nworkers < 0 || ncontrol < 0 ||
      (nworkers > 0 && workers == nullptr) || (ncontrol > 0 && control == nullptr))
    return -1;
  const long configured = ::sysconf(_SC_NPROCESSORS_CONF);
  const auto valid = [&](const int* cpus, int n) {
    return std::all_of(cpus, cpus + n, [&](int c) {
      return c >= 0 && c < configured && c < symmer::segment::kMaxSegmentCpus;
    });
  };
  if (!valid(workers, nworkers) || !valid(control, ncontrol)) return -1;
  symmer::shim::PublishLock lock;
  g.runtime_workers = symmer::segment::mask_of({workers, static_cast<std::size_t>(nworkers)});
  g.runtime_control = symmer::segment::mask_of({control, static_cast<std::size_t>(ncontrol)});
  ++g.runtime_updates;
  return 0;
}
