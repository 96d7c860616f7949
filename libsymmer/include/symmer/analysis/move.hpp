// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A move: one local rank re-bound from one logical core to another. Swaps, staged swaps and
// whole re-assignments are lists of moves.

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>

namespace symmer::analysis {

struct WindowSample;

/// One rank changing cores. Cores are logical NodeModel indices.
struct Move {
  int local_rank = -1;
  int from_core = -1;
  int to_core = -1;
  /// Also move the rank's memory to the target core's NUMA node (cross-NUMA moves only).
  bool migrate_pages = false;

  bool operator==(const Move&) const = default;
};

/// Local rank -> core of every rank in `window` with a known core, after `moves` are applied.
std::map<int, int> cores_after(const WindowSample& window, std::span<const Move> moves);

/// "r3:c5->c1" style rendering, for logs and messages.
std::string to_string(std::span<const Move> moves);

/// {"rank":3,"from":5,"to":1} objects (plus "migrate_pages":true where set).
nlohmann::json to_json(std::span<const Move> moves);

}  // namespace symmer::analysis
