// SPDX-License-Identifier: BSD-3-Clause
// Actuator: sharing-free move ordering, acknowledgements, faults (see actuator.hpp).
#include "symmer/analysis/actuator.hpp"

#include <algorithm>

namespace symmer::analysis {

nlohmann::json ActuationResult::to_json() const {
  return {{"plan", plan_id},
          {"completed", completed},
          {"moves_in_effect", analysis::to_json(done)},
          {"faults", faults},
          {"dead_ranks", dead_ranks},
          {"shared_cores", shared_cores},
          {"bound_from_outside", bound_from_outside},
          {"longest_sharing_s", std::chrono::duration<double>(longest_sharing).count()}};
}

Actuator::Actuator(RankControl& control, ActuatorOptions options)
    : control_(control), options_(options) {}

std::vector<int> Actuator::cores(int key) const {
  const auto it = cores_of_.find(key);
  return it != cores_of_.end() ? it->second : std::vector<int>{key};
}

bool Actuator::start(const Plan& plan, const std::map<int, int>& placement,
                     const std::map<int, std::vector<int>>& free_places, TimePoint now) {
  refusal_.clear();
  if (running_) {
    refusal_ = "plan " + std::to_string(plan_.id) + " is still running";
    return false;
  }
  std::set<int> targets;
  for (const auto& m : plan.moves) {
    const auto it = placement.find(m.local_rank);
    if (it == placement.end() || it->second != m.from_core)
      refusal_ = "local rank " + std::to_string(m.local_rank) + " is not on place L:" +
                 std::to_string(m.from_core);
    else if (!targets.insert(m.to_core).second)
      refusal_ = "two moves target place L:" + std::to_string(m.to_core);
    if (!refusal_.empty()) return false;
  }
  // A target held by a rank outside the plan would end up shared.
  for (const auto& [rank, core] : placement) {
    const bool in_plan = std::any_of(plan.moves.begin(), plan.moves.end(),
                                     [r = rank](const Move& m) { return m.local_rank == r; });
    if (!in_plan && targets.count(core) != 0) {
      refusal_ = "place L:" + std::to_string(core) + " is held by local rank " +
                 std::to_string(rank) + ", which the plan does not move";
      return false;
    }
  }
  running_ = true;
  reverting_ = false;
  plan_ = plan;
  placement_ = placement;
  origin_.clear();
  target_.clear();
  in_flight_.clear();
  excluded_.clear();
  failed_.clear();
  sharing_since_.clear();
  free_places_ = free_places;
  cores_of_ = free_places;
  result_ = ActuationResult{};
  result_.plan_id = plan.id;
  for (const auto& m : plan.moves) {
    origin_[m.local_rank] = m.from_core;
    target_[m.local_rank] = m.to_core;
    cores_of_[m.to_core] = target_cores(m);
    cores_of_.try_emplace(m.from_core, origin_cores(m));
  }
  issue_ready(now);
  return true;
}

bool Actuator::issue(int rank, int core, TimePoint now) {
  // Back to where a rank came from restores its whole set (a floating rank's launch set).
  const auto origin = origin_.find(rank);
  const std::vector<int> target = [&] {
    for (const auto& m : plan_.moves)
      if (m.local_rank == rank && origin != origin_.end() && core == origin->second)
        return origin_cores(m);
    return cores(core);
  }();
  const std::uint64_t generation = control_.command(rank, target);
  if (generation == 0) {
    failed_.insert({rank, core});
    fault("cannot post a command moving local rank " + std::to_string(rank) + " to place L:" +
              std::to_string(core),
          now);
    return false;
  }
  if (control_.without_calls(rank) && control_.force_bind(rank, target)) {
    placement_[rank] = core;
    result_.bound_from_outside[rank] = target;
    return true;
  }
  in_flight_[rank] = {core, generation, now};
  return true;
}

void Actuator::fault(const std::string& message, TimePoint) {
  result_.faults.push_back(message);
  if (!reverting_) {
    reverting_ = true;  // undo whatever the plan already did
    for (auto& [rank, core] : target_) core = origin_[rank];
  }
}

bool Actuator::core_taken(int core, int except_rank) const {
  for (const auto& [rank, c] : placement_)
    if (rank != except_rank && c == core) return true;
  for (const auto& [rank, f] : in_flight_)
    if (rank != except_rank && f.core == core) return true;
  return false;
}

void Actuator::issue_ready(TimePoint now) {
  const auto pending = [&](int rank) {
    return excluded_.count(rank) == 0 && in_flight_.count(rank) == 0 &&
           placement_.count(rank) != 0 && placement_.at(rank) != target_.at(rank) &&
           failed_.count({rank, target_.at(rank)}) == 0;
  };
  bool issued = false;
  for (const auto& [rank, target] : target_)
    if (pending(rank) && !core_taken(target, rank)) issued = issue(rank, target, now) || issued;
  if (issued || !in_flight_.empty()) return;

  // Nothing can go straight to its target: look for a cycle of pending ranks.
  for (const auto& [start, t] : target_) {
    if (!pending(start)) continue;
    std::vector<int> cycle;
    int rank = start;
    bool closed = false;
    while (true) {
      cycle.push_back(rank);
      int occupant = -1;
      for (const auto& [r, c] : placement_)
        if (c == target_.at(rank) && r != rank) occupant = r;
      if (occupant < 0 || target_.count(occupant) == 0 || !pending(occupant)) break;
      if (occupant == start) {
        closed = true;
        break;
      }
      if (std::find(cycle.begin(), cycle.end(), occupant) != cycle.end()) break;
      rank = occupant;
    }
    if (!closed) continue;
    // A free place of the same size nobody is heading for breaks the cycle without sharing.
    const std::size_t size = cores(target_.at(start)).size();
    for (const auto& [s, s_cores] : free_places_) {
      bool targeted = false;
      for (const auto& [r, c] : target_) targeted = targeted || c == s;
      if (!targeted && !core_taken(s, -1) && s_cores.size() == size) {
        issue(start, s, now);
        return;
      }
    }
    for (int r : cycle) issue(r, target_.at(r), now);  // all at once: shortest sharing
    return;
  }
  // Stuck while two ranks share a core (a bind failed on the way back): send a plan rank
  // that still answers to a free core instead.
  std::map<int, int> count;
  for (const auto& [rank, core] : placement_) ++count[core];
  for (const auto& [rank, core] : placement_) {
    if (count[core] < 2 || target_.count(rank) == 0 || excluded_.count(rank) != 0) continue;
    for (const auto& [f, f_cores] : free_places_)
      if (!core_taken(f, -1) && failed_.count({rank, f}) == 0 &&
          f_cores.size() == cores(target_.at(rank)).size()) {
        target_[rank] = f;
        issue(rank, f, now);
        return;
      }
  }
}

void Actuator::track_sharing(TimePoint now) {
  std::map<int, int> count;
  for (const auto& [rank, core] : placement_) ++count[core];
  for (const auto& [core, n] : count)
    if (n > 1) sharing_since_.try_emplace(core, now);
  for (auto it = sharing_since_.begin(); it != sharing_since_.end();) {
    if (count[it->first] > 1) {
      ++it;
      continue;
    }
    result_.longest_sharing =
        std::max(result_.longest_sharing,
                 std::chrono::duration_cast<std::chrono::nanoseconds>(now - it->second));
    it = sharing_since_.erase(it);
  }
}

std::optional<ActuationResult> Actuator::poll(TimePoint now) {
  if (!running_) return std::nullopt;

  // Deaths first: a dead rank holds no core and gets no more commands.
  for (const auto& [rank, target] : target_) {
    if (excluded_.count(rank) != 0 || control_.alive(rank)) continue;
    excluded_.insert(rank);
    placement_.erase(rank);
    in_flight_.erase(rank);
    result_.dead_ranks.push_back(rank);
    fault("local rank " + std::to_string(rank) + " died during the move", now);
  }
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    const int rank = it->first;
    const InFlight f = it->second;
    const Ack a = control_.ack(rank);
    if (a.generation == f.generation && a.status == AckStatus::kBound) {
      placement_[rank] = f.core;
      it = in_flight_.erase(it);
    } else if (a.generation == f.generation) {
      it = in_flight_.erase(it);
      failed_.insert({rank, f.core});
      fault("local rank " + std::to_string(rank) + " could not bind to place L:" +
                std::to_string(f.core) + " (not in its allowed cpuset?)",
            now);
    } else if (now - f.issued >= options_.ack_timeout) {
      it = in_flight_.erase(it);
      excluded_.insert(rank);
      // Supersede the unanswered command: if the rank wakes up, it stays where it is.
      told_to_stay_[rank] = control_.command(rank, cores(placement_[rank]));
      fault("local rank " + std::to_string(rank) + " did not answer within " +
                std::to_string(
                    std::chrono::duration_cast<std::chrono::milliseconds>(options_.ack_timeout)
                        .count()) +
                " ms; told to stay on place L:" + std::to_string(placement_[rank]),
            now);
    } else {
      ++it;
    }
  }
  issue_ready(now);
  track_sharing(now);
  if (!in_flight_.empty()) return std::nullopt;
  return finish(now);
}

bool Actuator::settled() {
  for (auto it = told_to_stay_.begin(); it != told_to_stay_.end();) {
    const bool answered = control_.ack(it->first).generation >= it->second;
    if (answered || !control_.alive(it->first))
      it = told_to_stay_.erase(it);
    else
      ++it;
  }
  return told_to_stay_.empty();
}

ActuationResult Actuator::finish(TimePoint now) {
  // Whatever could not be undone must at least not leave two live ranks on one core.
  std::map<int, std::vector<int>> on_core;
  for (const auto& [rank, core] : placement_) on_core[core].push_back(rank);
  for (auto& [core, ranks] : on_core) {
    if (ranks.size() < 2) continue;
    bool resolved = false;
    for (int rank : ranks) {
      if (target_.count(rank) == 0 || placement_[rank] == origin_[rank]) continue;
      const int home = origin_[rank];
      const bool home_free = std::none_of(placement_.begin(), placement_.end(),
                                          [&](const auto& p) { return p.second == home; });
      const auto back = [&] {
        for (const auto& m : plan_.moves)
          if (m.local_rank == rank) return origin_cores(m);
        return cores(home);
      }();
      if (home_free && control_.force_bind(rank, back)) {
        placement_[rank] = home;
        control_.command(rank, back);  // so a late wake-up keeps it there
        result_.faults.push_back("local rank " + std::to_string(rank) + " bound back to place L:" +
                                 std::to_string(home) + " from outside");
        resolved = true;
        break;
      }
    }
    if (!resolved) {
      result_.shared_cores.push_back(core);
      result_.faults.push_back("place L:" + std::to_string(core) + " is left shared by " +
                               std::to_string(ranks.size()) + " ranks");
    }
  }
  track_sharing(now);
  for (const auto& [core, since] : sharing_since_)
    result_.longest_sharing = std::max(
        result_.longest_sharing, std::chrono::duration_cast<std::chrono::nanoseconds>(now - since));
  for (const auto& m : plan_.moves) {
    const auto it = placement_.find(m.local_rank);
    if (it != placement_.end() && it->second != m.from_core)
      result_.done.push_back({m.local_rank, m.from_core, it->second, m.migrate_pages,
                              origin_cores(m), cores(it->second)});
  }
  result_.completed = result_.faults.empty();
  result_.finished = now;
  running_ = false;
  return result_;
}

}  // namespace symmer::analysis
