// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Node segment snapshots as JSON (symmerctl ranks --json, the shim's SYMMER_DUMP file) and as
// a text table (symmerctl ranks).

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "symmer/segment/reader.hpp"

namespace symmer::segment {

/// `idle_share` wherever symmer prints one (reports, symmerctl, symmerd, decision evidence):
/// the share of a rank's measured time it spent waiting inside MPI, idle / (idle + compute),
/// in [0, 1]; 0 when nothing was measured. `compute_share` is 1 - idle_share (0 likewise).
/// Time inside nonblocking posts counts in neither (pmpi-shim/README.md).
double idle_share(std::uint64_t idle_ns, std::uint64_t compute_ns);
double compute_share(std::uint64_t idle_ns, std::uint64_t compute_ns);

/// The whole snapshot: header, node summaries, and every slot with its cumulative counters.
/// When `previous` is a snapshot of the same segment taken earlier, each rank also gets a
/// "window" object with the deltas between the two.
nlohmann::json to_json(const SegmentSnapshot& snapshot, const SegmentSnapshot* previous = nullptr);

/// One table row per rank: job, node, rank, pid, cpu, its CPU set, idle %, compute, out-of-sync,
/// late-sender, traffic and cache misses (or why there are none: "unavailable", "disabled"). With
/// `previous`, the shares, times and counts are those of the window in between.
std::string to_table(const std::vector<const SegmentSnapshot*>& snapshots,
                     const std::vector<const SegmentSnapshot*>& previous = {});

}  // namespace symmer::segment
