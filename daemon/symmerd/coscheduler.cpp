// SPDX-License-Identifier: BSD-3-Clause
// Cross-job placement (see coscheduler.hpp).
#include "coscheduler.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace symmer::daemon {
namespace {

// A core never computes at zero speed (the same floor as analysis::ComputeModel).
constexpr double kMinCapability = 0.05;

double capability(const NodeState& state, int core) {
  if (core < 0 || static_cast<std::size_t>(core) >= state.capability.size()) return 1.0;
  return std::max(kMinCapability, state.capability[static_cast<std::size_t>(core)]);
}

struct Prediction {
  int core = -1;
  double time_s = 0;
  double gain = 0;
};

class Model {
 public:
  Model(const NodeState& state, const std::set<int>& near_nic, const CoscheduleOptions& options)
      : state_(state), near_(near_nic), options_(options) {}

  bool heavy(const PlacedRank& r) const {
    return options_.nic_bytes_per_s > 0 && r.offnode_bytes_per_s >= options_.nic_bytes_per_s;
  }
  // The rank's wait scale on `core`: a heavy rank near the NIC waits (1 - saving) as long.
  double wait_scale(const PlacedRank& r, int core) const {
    return heavy(r) && near_.count(core) ? 1.0 - options_.nic_wait_saving : 1.0;
  }
  // Predicted time of `r` (which has `share` of its current core) on `target`.
  Prediction predict(const PlacedRank& r, double share, int target) const {
    const double demand = r.compute_s * share;  // capability-seconds
    const double base_wait = r.idle_s / wait_scale(r, r.core);
    Prediction p;
    p.core = target;
    p.time_s = demand / capability(state_, target) + base_wait * wait_scale(r, target);
    const double now = r.compute_s + r.idle_s;
    p.gain = now > 0 ? (now - p.time_s) / now : 0.0;
    return p;
  }

 private:
  const NodeState& state_;
  const std::set<int>& near_;
  const CoscheduleOptions& options_;
};

nlohmann::json rank_json(const PlacedRank& r) {
  return {{"job", r.job},
          {"rank", r.local_rank},
          {"pid", r.pid},
          {"core", r.core},
          {"compute_s", r.compute_s},
          {"idle_s", r.idle_s},
          {"window_s", r.window_s},
          {"cpu_share", r.cpu_share},
          {"offnode_bytes_per_s", r.offnode_bytes_per_s}};
}

}  // namespace

bool reserved_for(const NodeState& state, int core, uid_t owner) {
  for (const auto& r : state.reservations)
    if ((r.all_jobs || r.uid == owner) &&
        std::find(r.cores.begin(), r.cores.end(), core) != r.cores.end())
      return true;
  return false;
}

std::set<int> cores_near_nic(const topology::NodeModel& node, const std::set<int>& irq_cores) {
  std::set<int> near(irq_cores.begin(), irq_cores.end());
  for (int irq : irq_cores) {
    const topology::Cache* smallest = nullptr;
    for (const auto& cache : node.caches()) {
      if (cache.cores.size() < 2 ||
          std::find(cache.cores.begin(), cache.cores.end(), irq) == cache.cores.end())
        continue;
      if (smallest == nullptr || cache.cores.size() < smallest->cores.size()) smallest = &cache;
    }
    if (smallest != nullptr) near.insert(smallest->cores.begin(), smallest->cores.end());
  }
  return near;
}

CoscheduleResult coschedule(const topology::NodeModel& node, const NodeState& state,
                            const std::vector<PlacedRank>& ranks,
                            const CoscheduleOptions& options) {
  CoscheduleResult result;
  const std::set<int> near = cores_near_nic(node, state.nic_irq_cores);
  const Model model(state, near, options);
  std::map<int, std::vector<const PlacedRank*>> on_core;
  for (const auto& r : ranks)
    if (r.core >= 0) on_core[r.core].push_back(&r);
  std::set<int> taken;  // cores holding a rank now or after the moves chosen so far
  for (const auto& [core, list] : on_core) taken.insert(core);

  const auto free_cores = [&](uid_t owner) {
    std::vector<int> out;
    for (int c : state.usable)
      if (!taken.count(c) && !reserved_for(state, c, owner)) out.push_back(c);
    return out;
  };
  const auto best_target = [&](const PlacedRank& r, double share) {
    std::optional<Prediction> best;
    for (int c : free_cores(r.owner_uid)) {
      const Prediction p = model.predict(r, share, c);
      if (!best || p.time_s < best->time_s) best = p;
    }
    return best;
  };
  std::set<const PlacedRank*> moved;
  const auto take = [&](const PlacedRank& r, const Prediction& p, const std::string& reason,
                        nlohmann::json evidence) {
    evidence["rank"] = rank_json(r);
    evidence["target_capability"] = capability(state, p.core);
    evidence["target_near_nic"] = near.count(p.core) != 0;
    evidence["predicted_time_s"] = p.time_s;
    result.moves.push_back(
        {r.job, r.local_rank, r.pid, r.core, p.core, p.gain, reason, std::move(evidence)});
    taken.insert(p.core);
    moved.insert(&r);
  };

  // 1. Reserved cores and shared cores.
  for (const auto& [core, list] : on_core) {
    std::vector<const PlacedRank*> sorted = list;
    std::sort(sorted.begin(), sorted.end(), [](const PlacedRank* a, const PlacedRank* b) {
      return std::tie(a->order, a->job, a->local_rank) < std::tie(b->order, b->job, b->local_rank);
    });
    // The first rank that cannot move keeps the core, else the earliest job's.
    const auto keeper_it =
        std::find_if(sorted.begin(), sorted.end(), [](const PlacedRank* r) { return !r->movable; });
    const PlacedRank* keeper = keeper_it != sorted.end() ? *keeper_it : sorted.front();
    nlohmann::json sharing = nlohmann::json::array();
    for (const PlacedRank* r : sorted) sharing.push_back(rank_json(*r));
    const double share = 1.0 / static_cast<double>(sorted.size());
    for (const PlacedRank* r : sorted) {
      const bool reserved = reserved_for(state, core, r->owner_uid);
      if (r == keeper && !reserved) continue;
      const std::string what =
          reserved ? "core L:" + std::to_string(core) + " is reserved for a GPU-driving process"
                   : "core L:" + std::to_string(core) + " is shared by " +
                         std::to_string(sorted.size()) + " ranks";
      if (!r->movable) {
        result.notes.push_back(what + "; " + r->job + " rank " + std::to_string(r->local_rank) +
                               " cannot move now");
        continue;
      }
      if (r->window_s <= 0) continue;  // no evidence yet: next period
      const double got = r->cpu_share > 0 ? r->cpu_share : capability(state, core) * share;
      const auto target = best_target(*r, got);
      if (!target) {
        result.notes.push_back(what + "; no free core for " + r->job + " rank " +
                               std::to_string(r->local_rank));
        continue;
      }
      if (!reserved && target->gain < options.min_gain) {
        result.notes.push_back(what + "; moving " + r->job + " rank " +
                               std::to_string(r->local_rank) + " would gain only " +
                               std::to_string(target->gain));
        continue;
      }
      take(*r, *target, reserved ? "reserved-core" : "shared-core",
           {{"core", core},
            {"sharing", sharing},
            {"core_capability", capability(state, core)},
            {"share_of_core", got}});
    }
  }

  // 2. Communication-heavy ranks near the NIC, only where the model says they gain.
  if (!near.empty()) {
    for (const auto& r : ranks) {
      if (!r.movable || r.core < 0 || moved.count(&r) || !model.heavy(r) || near.count(r.core) ||
          r.window_s <= 0)
        continue;
      std::optional<Prediction> best;
      for (int c : free_cores(r.owner_uid)) {
        if (!near.count(c)) continue;
        const Prediction p =
            model.predict(r, r.cpu_share > 0 ? r.cpu_share : capability(state, r.core), c);
        if (!best || p.time_s < best->time_s) best = p;
      }
      if (!best) continue;
      if (best->gain < options.min_gain) {
        result.notes.push_back(r.job + " rank " + std::to_string(r.local_rank) +
                               " is communication-heavy but a core near the NIC would gain " +
                               "only " + std::to_string(best->gain));
        continue;
      }
      take(r, *best, "near-nic",
           {{"core_capability", capability(state, r.core)},
            {"nic_irq_cores", state.nic_irq_cores},
            {"nic_wait_saving", options.nic_wait_saving}});
    }
  }
  return result;
}

std::vector<int> allowed_cores(const NodeState& state, const std::vector<PlacedRank>& ranks,
                               const std::string& job, uid_t owner) {
  std::set<int> others;
  for (const auto& r : ranks)
    if (r.job != job && r.core >= 0) others.insert(r.core);
  std::vector<int> out;
  for (int c : state.usable)
    if (!others.count(c) && !reserved_for(state, c, owner)) out.push_back(c);
  return out;
}

}  // namespace symmer::daemon
