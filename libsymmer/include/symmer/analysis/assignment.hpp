// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Whole assignment: beyond the thesis's pairwise swap, place every rank at once. Ranks go by
// compute demand onto cores by capability (the sorted matching minimises the slowest rank's
// time), while ranks that exchange heavy traffic (locality groups) are kept inside one cache
// domain (the cores under one shared cache, else one NUMA node).

#include <map>
#include <set>
#include <span>
#include <vector>

#include "symmer/analysis/move.hpp"
#include "symmer/analysis/window_sample.hpp"

namespace symmer::topology {
class NodeModel;
}

namespace symmer::analysis {

struct AssignmentOptions {
  /// Keep every rank on its current NUMA node (the planner's "refuse" NUMA policy).
  bool keep_numa_node = false;
  /// Pairs exchanging at least this many bytes per second form a locality group.
  double group_bytes_per_s = 64.0 * 1024 * 1024;
  /// Capabilities closer than this count as equal (ranks then stay where they are).
  double capability_tie = 0.02;
};

/// Groups of local ranks joined by heavy traffic (connected components), singletons included.
std::vector<std::vector<int>> locality_groups(const WindowSample& window, double bytes_per_s);

/// The best placement (local rank -> core) of the ranks of `window` on `allowed_cores`.
/// Ranks in `pinned` and ranks with an unknown core keep their cores. Returns the moves from
/// the current mapping to it (empty when nothing should move).
std::vector<Move> whole_assignment(const topology::NodeModel& node, const WindowSample& window,
                                   std::span<const int> allowed_cores, const std::set<int>& pinned,
                                   const AssignmentOptions& options = {});

}  // namespace symmer::analysis
