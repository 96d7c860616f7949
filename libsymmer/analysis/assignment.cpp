// SPDX-License-Identifier: BSD-3-Clause
// Whole assignment of ranks to cores (see assignment.hpp).
#include "symmer/analysis/assignment.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "symmer/analysis/compute_model.hpp"
#include "symmer/topology/node_model.hpp"

namespace symmer::analysis {
namespace {

// Cache domain of each core: the cores under the largest cache it shares with another core,
// else its NUMA node. Domains are returned as ids, one per core.
std::vector<int> cache_domains(const topology::NodeModel& node) {
  const auto& cores = node.cores();
  std::vector<int> domain(cores.size(), -1);
  std::vector<int> level(cores.size(), 0);
  int next = 0;
  for (const auto& cache : node.caches()) {
    if (cache.cores.size() < 2) continue;
    const int id = next++;
    for (int c : cache.cores) {
      auto& l = level[static_cast<std::size_t>(c)];
      if (cache.level > l) l = cache.level, domain[static_cast<std::size_t>(c)] = id;
    }
  }
  for (std::size_t c = 0; c < cores.size(); ++c)
    if (domain[c] < 0) domain[c] = next + cores[c].numa_node;  // NUMA nodes after caches
  return domain;
}

}  // namespace

std::vector<std::vector<int>> locality_groups(const WindowSample& w, double bytes_per_s) {
  std::map<int, int> parent;
  for (const auto& r : w.ranks) parent[r.local_rank] = r.local_rank;
  const auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::map<std::pair<int, int>, double> traffic;
  for (const auto& r : w.ranks)
    for (const auto& [peer, bytes] : r.bytes_to_local)
      if (w.find_local(peer) != nullptr)
        traffic[{std::min(r.local_rank, peer), std::max(r.local_rank, peer)}] +=
            static_cast<double>(bytes);
  const double d = std::max(w.duration_s(), 1e-9);
  for (const auto& [pair, bytes] : traffic)
    if (bytes / d >= bytes_per_s) parent[find(pair.first)] = find(pair.second);
  std::map<int, std::vector<int>> groups;
  for (const auto& [rank, p] : parent) groups[find(rank)].push_back(rank);
  std::vector<std::vector<int>> out;
  for (auto& [root, members] : groups) out.push_back(std::move(members));
  return out;
}

std::vector<Move> whole_assignment(const topology::NodeModel& node, const WindowSample& w,
                                   std::span<const int> allowed_cores, const std::set<int>& pinned,
                                   const AssignmentOptions& options) {
  const ComputeModel model(w);
  const auto domain = cache_domains(node);
  const auto& cores = node.cores();
  const int ncores = static_cast<int>(cores.size());

  std::map<int, int> current;  // local rank -> core
  std::map<int, int> host;     // core -> local rank currently on it
  for (const auto& r : w.ranks) {
    current[r.local_rank] = r.core;
    if (r.core >= 0) host[r.core] = r.local_rank;
  }
  std::set<int> free;
  for (int c : allowed_cores)
    if (c >= 0 && c < ncores) free.insert(c);
  std::map<int, int> placed;
  for (const auto& r : w.ranks)
    if (r.core < 0 || pinned.count(r.local_rank) != 0 || free.count(r.core) == 0) {
      placed[r.local_rank] = r.core;  // fixed where it is
      free.erase(r.core);
    }

  // Units: locality groups of movable ranks, by their busiest member's demand.
  std::vector<std::vector<int>> units;
  for (auto group : locality_groups(w, options.group_bytes_per_s)) {
    std::erase_if(group, [&](int r) { return placed.count(r) != 0; });
    if (group.empty()) continue;
    std::sort(group.begin(), group.end(),
              [&](int a, int b) { return model.demand(a) > model.demand(b); });
    units.push_back(std::move(group));
  }
  std::stable_sort(units.begin(), units.end(), [&](const auto& a, const auto& b) {
    return model.demand(a.front()) > model.demand(b.front());
  });

  const auto bucket = [&](int core) {
    return std::floor(w.capability(core) / options.capability_tie);
  };
  for (const auto& unit : units) {
    const int numa = cores[static_cast<std::size_t>(current[unit.front()])].numa_node;
    // Cores this unit may take, best first: by capability bucket; within a bucket the unit's
    // own cores, then cores nobody holds, then the rest (fewest displaced ranks).
    std::vector<int> usable;
    for (int c : free)
      if (!options.keep_numa_node || cores[static_cast<std::size_t>(c)].numa_node == numa)
        usable.push_back(c);
    const auto preference = [&](int c) {
      const auto h = host.find(c);
      if (h == host.end()) return 1;
      return std::find(unit.begin(), unit.end(), h->second) != unit.end() ? 0 : 2;
    };
    std::stable_sort(usable.begin(), usable.end(), [&](int a, int b) {
      if (bucket(a) != bucket(b)) return bucket(a) > bucket(b);
      return preference(a) < preference(b);
    });
    // The domain whose best cores serve the unit best; any cores when no domain fits it.
    std::map<int, std::vector<int>> by_domain;
    for (int c : usable) by_domain[domain[static_cast<std::size_t>(c)]].push_back(c);
    std::vector<int> chosen;
    double best_score = -1.0;
    for (auto& [dom, list] : by_domain) {
      if (list.size() < unit.size()) continue;
      std::vector<int> take(list.begin(), list.begin() + static_cast<long>(unit.size()));
      // Capability given to demand, the busiest first; then fewest ranks displaced.
      double score = 0.0;
      for (std::size_t i = 0; i < take.size(); ++i)
        score += w.capability(take[i]) * (1.0 + 1e-3 * static_cast<double>(take.size() - i)) -
                 1e-6 * preference(take[i]);
      // A domain the unit already sits in wins ties.
      const bool home = domain[static_cast<std::size_t>(current[unit.front()])] == dom;
      if (score > best_score + 1e-9 || (std::abs(score - best_score) <= 1e-9 && home)) {
        best_score = score;
        chosen = std::move(take);
      }
    }
    if (chosen.empty()) {
      if (usable.size() < unit.size()) {  // not enough cores where allowed: leave the unit
        for (int r : unit) placed[r] = current[r];
        continue;
      }
      chosen.assign(usable.begin(), usable.begin() + static_cast<long>(unit.size()));
    }
    // Busiest member onto the best core; a member already on one of the chosen cores of its
    // capability bucket keeps it.
    for (std::size_t i = 0; i < unit.size(); ++i) {
      placed[unit[i]] = chosen[i];
      free.erase(chosen[i]);
    }
    for (std::size_t i = 0; i < unit.size(); ++i)
      for (std::size_t j = 0; j < unit.size(); ++j)
        if (i != j && placed[unit[j]] == current[unit[i]] && bucket(chosen[i]) == bucket(chosen[j]))
          std::swap(placed[unit[i]], placed[unit[j]]);
  }

  // Ranks alone in their unit with demands within 5% of each other are interchangeable:
  // among the cores they got, let each keep its own where it can (fewer moves, same speed).
  std::vector<int> singles;
  for (const auto& unit : units)
    if (unit.size() == 1) singles.push_back(unit.front());
  for (std::size_t i = 0; i < singles.size();) {
    std::size_t j = i;
    const double lead = model.demand(singles[i]);
    while (j < singles.size() && model.demand(singles[j]) >= 0.95 * lead) ++j;
    std::set<int> cores_of_run;
    for (std::size_t k = i; k < j; ++k) cores_of_run.insert(placed[singles[k]]);
    std::vector<int> unplaced;
    for (std::size_t k = i; k < j; ++k) {
      const int r = singles[k];
      if (cores_of_run.erase(current[r]) != 0)
        placed[r] = current[r];
      else
        unplaced.push_back(r);
    }
    auto core = cores_of_run.begin();
    for (int r : unplaced) placed[r] = *core++;
    i = j;
  }

  std::vector<Move> moves;
  for (const auto& [rank, core] : placed)
    if (core != current[rank]) moves.push_back({rank, current[rank], core});
  return moves;
}

}  // namespace symmer::analysis
