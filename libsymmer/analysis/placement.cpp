// SPDX-License-Identifier: BSD-3-Clause
// A job's places, its domain, and the CPUs of a move (see placement.hpp).
#include "symmer/analysis/placement.hpp"

#include <algorithm>
#include <set>

#include "symmer/topology/node_model.hpp"

namespace symmer::analysis {

Expected<Domain> parse_domain(const std::string& text) {
  if (text == "job") return Domain::kJob;
  if (text == "node") return Domain::kNode;
  return Error(Errc::kInvalidArgument, "domain '" + text + "': expected job or node");
}

const char* to_string(Domain domain) { return domain == Domain::kNode ? "node" : "job"; }

std::vector<int> cores_of_cpus(std::span<const int> cpus, const topology::NodeModel& node) {
  std::set<int> cores;
  for (int c : cpus)
    if (const int core = node.core_of_pu(c); core >= 0) cores.insert(core);
  return {cores.begin(), cores.end()};
}

JobPlacement job_placement(std::span<const RankCpus> ranks, const topology::NodeModel& node,
                           Domain domain) {
  JobPlacement out;
  const auto& model_cores = node.cores();
  std::vector<std::vector<int>> cores;
  for (const auto& r : ranks) cores.push_back(cores_of_cpus(r.current, node));
  // Ranks sharing a core with another rank were launched unbound: they float.
  std::vector<bool> floating(ranks.size(), false);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    for (std::size_t j = i + 1; j < ranks.size(); ++j) {
      std::vector<int> common;
      std::set_intersection(cores[i].begin(), cores[i].end(), cores[j].begin(), cores[j].end(),
                            std::back_inserter(common));
      if (!common.empty()) floating[i] = floating[j] = true;
    }

  std::set<int> held;
  std::map<std::size_t, int> threads_of_size;  // place size -> threads of a rank that size
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    Place p;
    if (floating[i]) {
      // Pinned to the core it runs on if it computes on one thread; a floating rank with
      // several threads is left to the kernel (which of its cores they use is unknown).
      const int core = node.core_of_pu(ranks[i].last_cpu);
      if (core < 0 || ranks[i].compute_threads > 1) continue;
      p.cores = {core};
    } else {
      if (cores[i].empty()) continue;
      p.cores = cores[i];
      const int size = static_cast<int>(p.cores.size());
      p.threads = ranks[i].compute_threads > 0 ? std::min(ranks[i].compute_threads, size) : size;
    }
    threads_of_size.try_emplace(p.cores.size(), p.threads);
    held.insert(p.cores.begin(), p.cores.end());
    out.rank_place[ranks[i].local_rank] = p.cores.front();
    out.places.try_emplace(p.cores.front(), std::move(p));
  }
  std::set<int> control;
  for (const auto& r : ranks)
    for (int c : cores_of_cpus(r.runtime_control, node)) control.insert(c);
  out.control_cores.assign(control.begin(), control.end());
  held.insert(control.begin(), control.end());

  std::set<int> dom;
  if (domain == Domain::kNode) {
    for (const auto& c : model_cores) dom.insert(c.index);
  } else {
    for (const auto& r : ranks)
      for (int c : cores_of_cpus(r.launch, node)) dom.insert(c);
  }
  out.domain.assign(dom.begin(), dom.end());

  // Free places of every size a rank has, each within one NUMA node.
  std::map<int, std::vector<int>> free_by_numa;
  for (int c : dom)
    if (held.count(c) == 0)
      free_by_numa[model_cores[static_cast<std::size_t>(c)].numa_node].push_back(c);
  for (const auto& [size, threads] : threads_of_size)
    for (const auto& [numa, free] : free_by_numa)
      for (std::size_t at = 0; at + size <= free.size(); at += size) {
        Place p{std::vector<int>(free.begin() + static_cast<long>(at),
                                 free.begin() + static_cast<long>(at + size)),
                threads};
        out.places.try_emplace(p.cores.front(), std::move(p));
      }
  return out;
}

std::vector<int> target_cpus(std::span<const int> current, std::span<const int> to,
                             const topology::NodeModel& node) {
  const auto& all = node.cores();
  for (int c : to)
    if (c < 0 || static_cast<std::size_t>(c) >= all.size()) return {};
  std::vector<int> sorted_to(to.begin(), to.end());
  std::sort(sorted_to.begin(), sorted_to.end());
  const std::vector<int> from = cores_of_cpus(current, node);
  if (from.size() != sorted_to.size()) return node.cpus_of_cores(sorted_to);
  std::vector<int> out;
  for (int cpu : current) {
    const int core = node.core_of_pu(cpu);
    if (core < 0) continue;
    const auto i = static_cast<std::size_t>(std::lower_bound(from.begin(), from.end(), core) -
                                            from.begin());
    const auto& pus = all[static_cast<std::size_t>(core)].pus;
    const auto pos = static_cast<std::size_t>(std::find(pus.begin(), pus.end(), cpu) - pus.begin());
    const auto& target = all[static_cast<std::size_t>(sorted_to[i])].pus;
    out.push_back(target[std::min(pos, target.size() - 1)]);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace symmer::analysis
