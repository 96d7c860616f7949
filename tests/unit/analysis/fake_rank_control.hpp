// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// An in-memory RankControl: commands land in per-rank slots; a test "runs" a rank's next MPI
// call with enter_mpi(), which acts on the pending command the way the PMPI shim does
// (re-bind, acknowledge). Ranks can be made to die, to never answer, or to fail binding.

#include <map>
#include <set>
#include <vector>

#include "symmer/analysis/rank_control.hpp"

namespace symmer::analysis::testing {

class FakeRankControl final : public RankControl {
 public:
  struct Slot {
    int core = -1;  // where the rank really is
    int command_core = -1;
    std::uint64_t command_generation = 0;
    Ack ack;
    bool alive = true;
    bool silent = false;  // never reaches an MPI call again
    bool without_calls = false;  // what RankControl::without_calls says of it
  };

  explicit FakeRankControl(const std::map<int, int>& placement) {
    for (const auto& [rank, core] : placement) slots[rank].core = core;
  }

  // A rank's place is named by its lowest core (placement.hpp).
  std::uint64_t command(int local_rank, std::span<const int> cores) override {
    auto& s = slots.at(local_rank);
    if (cores.empty() || cores.front() < 0) return 0;
    s.command_core = cores.front();
    s.command_generation = ++generation;
    log.push_back({local_rank, cores.front()});
    sets.push_back({local_rank, {cores.begin(), cores.end()}});
    return generation;
  }
  Ack ack(int local_rank) const override { return slots.at(local_rank).ack; }
  bool alive(int local_rank) const override { return slots.at(local_rank).alive; }
  bool without_calls(int local_rank) const override {
    return slots.at(local_rank).without_calls;
  }

  bool force_bind(int local_rank, std::span<const int> cores) override {
    if (!allow_force_bind || !slots.at(local_rank).alive || cores.empty()) return false;
    slots.at(local_rank).core = cores.front();
    forced.push_back({local_rank, cores.front()});
    return true;
  }

  /// The rank's next MPI call: acts on a new command. False when there was nothing to do.
  bool enter_mpi(int local_rank) {
    auto& s = slots.at(local_rank);
    if (!s.alive || s.silent || s.command_generation == s.ack.generation) return false;
    const bool ok = forbidden_cores.count(s.command_core) == 0;
    if (ok) s.core = s.command_core;
    s.ack = {s.command_generation, ok ? AckStatus::kBound : AckStatus::kFailed, s.core};
    return true;
  }
  /// Every rank makes one MPI call.
  void everyone_enters_mpi() {
    for (auto& [rank, s] : slots) enter_mpi(rank);
  }
  std::map<int, int> placement() const {
    std::map<int, int> p;
    for (const auto& [rank, s] : slots)
      if (s.alive) p[rank] = s.core;
    return p;
  }
  /// Cores holding more than one live rank right now.
  std::vector<int> shared_cores() const {
    std::map<int, int> count;
    for (const auto& [rank, s] : slots)
      if (s.alive) ++count[s.core];
    std::vector<int> out;
    for (const auto& [core, n] : count)
      if (n > 1) out.push_back(core);
    return out;
  }

  std::map<int, Slot> slots;
  std::set<int> forbidden_cores;  // binding there fails (left the allowed cpuset)
  bool allow_force_bind = false;
  std::uint64_t generation = 0;             // last one handed out
  std::vector<std::pair<int, int>> log;     // every command (rank, place key)
  std::vector<std::pair<int, std::vector<int>>> sets;  // every command (rank, its whole set)
  std::vector<std::pair<int, int>> forced;  // force_bind calls that succeeded
};

}  // namespace symmer::analysis::testing
