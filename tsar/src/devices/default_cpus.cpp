// SPDX-License-Identifier: BSD-3-Clause
#include "devices/default_cpus.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>

#include "symmer/topology/cpu_list.hpp"
#include "symmer/topology/node_model.hpp"

namespace tsar::core {

ProcessCpus this_process_cpus() {
  ProcessCpus p;
  p.affinity = symmer::topology::this_thread_cpus();
  for (int place = 0, n = omp_get_num_places(); place < n; ++place) {
    std::vector<int> ids(static_cast<std::size_t>(std::max(0, omp_get_place_num_procs(place))));
    if (ids.empty()) continue;
    omp_get_place_proc_ids(place, ids.data());
    p.omp_places.push_back(std::move(ids));
  }
  // The OpenMP runtime parsed it (and reports its first level); unset, its default is every
  // CPU, which says nothing.
  if (std::getenv("OMP_NUM_THREADS") != nullptr) p.omp_num_threads = omp_get_max_threads();
  return p;
}

std::vector<int> default_cpus(const symmer::topology::NodeModel& node, const ProcessCpus& process) {
  std::vector<int> allowed;  // the model's CPUs: the cgroup's
  for (const auto& core : node.cores())
    allowed.insert(allowed.end(), core.pus.begin(), core.pus.end());
  std::sort(allowed.begin(), allowed.end());
  const auto is_allowed = [&](int cpu) {
    return std::binary_search(allowed.begin(), allowed.end(), cpu);
  };
  const auto limit = [&](std::size_t groups) {
    return process.omp_num_threads > 0
               ? std::min(groups, static_cast<std::size_t>(process.omp_num_threads))
               : groups;
  };

  std::vector<int> cpus;
  if (!process.omp_places.empty()) {
    std::vector<std::vector<int>> places;
    for (const auto& place : process.omp_places) {
      std::vector<int> in;
      for (int cpu : place)
        if (is_allowed(cpu)) in.push_back(cpu);
      if (!in.empty()) places.push_back(std::move(in));
    }
    for (std::size_t p = 0; p < limit(places.size()); ++p)
      cpus.insert(cpus.end(), places[p].begin(), places[p].end());
  } else {
    std::vector<int> mask;
    for (int cpu : process.affinity)
      if (is_allowed(cpu)) mask.push_back(cpu);
    std::sort(mask.begin(), mask.end());
    // Whole cores, in the model's order: OMP_NUM_THREADS counts threads, one per core here.
    std::size_t kept = 0;
    const std::size_t wanted = limit(node.cores().size());
    for (const auto& core : node.cores()) {
      if (kept == wanted) break;
      bool any = false;
      for (int pu : core.pus)
        if (std::binary_search(mask.begin(), mask.end(), pu)) {
          cpus.push_back(pu);
          any = true;
        }
      kept += any ? 1 : 0;
    }
  }
  if (cpus.empty()) cpus = allowed;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

}  // namespace tsar::core
