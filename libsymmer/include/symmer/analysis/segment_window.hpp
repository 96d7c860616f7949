// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// From the node segment to the analyzer's input: the segment keeps cumulative counters per
// rank; a window is the difference between two samples. A sample is one segment snapshot,
// the /proc counters of the node, and each rank's CPU time at the same moment; the last two
// give each core's effective capability (topology/core_load.hpp) with the job's own CPU time
// taken out (MPICH ranks busy-poll: their time is the job's, not lost capability).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "symmer/analysis/window_sample.hpp"
#include "symmer/expected.hpp"
#include "symmer/segment/reader.hpp"
#include "symmer/topology/node_model.hpp"
#include "symmer/topology/proc_reader.hpp"

namespace symmer::analysis {

/// One end of a window.
struct SegmentSample {
  segment::SegmentSnapshot segment;
  std::optional<topology::ProcSnapshot> proc;  ///< nullopt when /proc could not be read
  std::map<int, double> cpu_seconds;           ///< pid -> CPU time of the process (s)
};

/// Reads the segment at `path` (with `options`: segment/reader.hpp), the node's /proc counters
/// through `proc` and the CPU time of every active rank. Errors come from the segment
/// (missing, corrupt, refused by the options); /proc problems only leave `proc` empty.
Expected<SegmentSample> read_segment_sample(const std::string& path,
                                            const topology::ProcReader& proc,
                                            const segment::ReadOptions& options = {});

/// How long the rank of `slot` has made no MPI call, as of `snapshot`: a rank publishes at the
/// first call that ends a publish period after its last publish, so one that has not published
/// for two periods makes none. The time beyond those two periods; 0 while it publishes.
std::uint64_t silent_ns(const segment::SegmentSnapshot& snapshot,
                        const segment::SlotSnapshot& slot);

/// CPU time (user + system, all threads) of process `pid` in seconds, from /proc/<pid>/stat;
/// nullopt when the process is gone or the file is unreadable.
std::optional<double> process_cpu_seconds(int pid);

/// The CPU sets of every active rank of `snapshot` (its slots' placement).
std::vector<RankCpus> rank_cpus(const segment::SegmentSnapshot& snapshot);

/// The window between two samples of one segment. Ranks active at both ends with the same
/// process are included; a rank that finished, restarted or whose counters went backwards is
/// left out and `notes` (if given) says why. `calls` counts every intercepted call except
/// Test and Iprobe (polling would pass for progress). The window's places and domain come
/// from `after` (job_placement with `domain`). Errors: samples of different jobs or nodes,
/// time not advancing.
Expected<WindowSample> window_between(const SegmentSample& before, const SegmentSample& after,
                                      const topology::NodeModel& node,
                                      std::vector<std::string>* notes = nullptr,
                                      Domain domain = Domain::kJob);

}  // namespace symmer::analysis
