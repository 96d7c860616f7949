// SPDX-License-Identifier: BSD-3-Clause
// TSAR <-> symmer inside an MPI rank (see symmer_link.hpp).
#include "runtime/symmer_link.hpp"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>

#include "symmer/topology/cpu_list.hpp"

namespace tsar::core {
namespace {

// The rank's CPU set and its generation from the shim; empty when it does not answer.
std::vector<int> rank_cpus(int (*cpus_fn)(int*, int, unsigned long long*),
                           unsigned long long& generation) {
  std::vector<int> cpus(64);
  for (int attempt = 0; attempt < 4; ++attempt) {
    const int n = cpus_fn(cpus.data(), static_cast<int>(cpus.size()), &generation);
    if (n < 0) return {};
    if (static_cast<std::size_t>(n) <= cpus.size()) {
      cpus.resize(static_cast<std::size_t>(n));
      return cpus;
    }
    cpus.resize(static_cast<std::size_t>(n));
  }
  return {};
}

// Each CPU of `cpus` at its relative place in `to`.
std::vector<int> map_all(const std::vector<int>& cpus, const std::vector<int>& from,
                         const std::vector<int>& to) {
  std::vector<int> out;
  for (int c : cpus) {
    const int one[] = {c};
    for (int m : symmer::topology::map_relative(one, from, to)) out.push_back(m);
  }
  return out;
}

}  // namespace

SymmerLink& SymmerLink::instance() {
  static SymmerLink link;
  return link;
}

SymmerLink::SymmerLink() {
  generation_ = reinterpret_cast<GenerationFn>(::dlsym(RTLD_DEFAULT, "symmer_rank_set_generation"));
  cpus_ = reinterpret_cast<CpusFn>(::dlsym(RTLD_DEFAULT, "symmer_rank_cpus"));
  publish_ = reinterpret_cast<PublishFn>(::dlsym(RTLD_DEFAULT, "symmer_rank_publish_runtime_cpus"));
  if (generation_ == nullptr || cpus_ == nullptr || publish_ == nullptr)  // all or none
    generation_ = nullptr, cpus_ = nullptr, publish_ = nullptr;
}

std::uint64_t SymmerLink::generation() const { return generation_ ? generation_() : 0; }

void SymmerLink::refresh_locked() {
  unsigned long long generation = 0;
  std::vector<int> set = rank_cpus(cpus_, generation);
  if (set.empty()) return;  // symmer does not monitor this process (yet, or any more)
  if (built_.empty()) {
    built_ = set;  // the set TSAR's devices were built on
  } else if (generation == seen_) {
    return;
  }
  current_ = std::move(set);
  seen_ = generation;
  const auto w = map_all(workers_, built_, current_);
  const auto c = map_all(control_, built_, current_);
  publish_(w.data(), static_cast<int>(w.size()), c.data(), static_cast<int>(c.size()));
}

void SymmerLink::publish(std::vector<int> worker_cpus, std::vector<int> control_cpus) {
  if (publish_ == nullptr) return;
  std::lock_guard lock(mutex_);
  workers_ = std::move(worker_cpus);
  control_ = std::move(control_cpus);
  built_.clear();
  wanted_.store(true, std::memory_order_release);
  refresh_locked();
}

cpu_set_t SymmerLink::follow(const cpu_set_t& cpus) {
  if (!wanted_.load(std::memory_order_acquire) || generation() == 0) return cpus;
  std::vector<int> bound;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &cpus)) bound.push_back(c);
  std::vector<int> there;
  {
    std::lock_guard lock(mutex_);
    refresh_locked();
    if (built_.empty() || current_.empty() || built_ == current_) return cpus;
    there = symmer::topology::map_relative(bound, built_, current_);
  }
  const cpu_set_t set = symmer::topology::cpu_set_of(there);
  return CPU_COUNT(&set) > 0 ? set : cpus;
}

void SymmerLink::follow_this_thread(const cpu_set_t& cpus) {
  if (generation() == 0) return;
  const cpu_set_t there = follow(cpus);
  if (!CPU_EQUAL(&there, &cpus)) pthread_setaffinity_np(pthread_self(), sizeof there, &there);
}

}  // namespace tsar::core
