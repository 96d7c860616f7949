// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A move: one local rank re-bound from one place (placement.hpp) to another of its size.
// Swaps, staged swaps and whole re-assignments are lists of moves.

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <vector>

namespace symmer::topology {
class NodeModel;
}

namespace symmer::analysis {

struct WindowSample;

/// One rank changing places. Places are named by their keys (lowest logical core).
struct Move {
  int local_rank = -1;
  int from_core = -1;  ///< key of the place it leaves
  int to_core = -1;    ///< key of the place it goes to
  /// Also move the rank's memory to the target core's NUMA node (cross-NUMA moves only).
  bool migrate_pages = false;
  /// Logical cores of the rank's whole set before and after (the planner fills them from the
  /// window; empty means the one core of the key). A floating rank's `from_cores` is its whole
  /// launch set, which a rollback restores.
  std::vector<int> from_cores{};
  std::vector<int> to_cores{};

  /// The same rank between the same places (the cores follow from the places).
  bool operator==(const Move& o) const {
    return local_rank == o.local_rank && from_core == o.from_core && to_core == o.to_core &&
           migrate_pages == o.migrate_pages;
  }
};

/// The logical cores a move takes the rank to (`to_cores`, or {to_core}).
std::vector<int> target_cores(const Move& move);
/// The logical cores a move takes the rank from (`from_cores`, or {from_core}).
std::vector<int> origin_cores(const Move& move);

/// Local rank -> place key of every rank in `window` with a known place, after `moves`.
std::map<int, int> cores_after(const WindowSample& window, std::span<const Move> moves);

/// "r3: CPUs 0-1 -> 4-5" with Linux CPU numbers (`node` given), else "r3: L:0-1 -> L:4-5"
/// with logical cores, for logs and messages.
std::string to_string(std::span<const Move> moves, const topology::NodeModel* node = nullptr);

/// {"rank":3,"from_core":0,"to_core":4} objects (place keys: logical cores), with
/// "from_cpus"/"to_cpus" (Linux CPU lists) when `node` is given, and "migrate_pages":true
/// where set.
nlohmann::json to_json(std::span<const Move> moves, const topology::NodeModel* node = nullptr);

}  // namespace symmer::analysis
