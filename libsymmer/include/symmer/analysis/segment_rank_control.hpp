// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// RankControl on the node segment's control words (segment/control.hpp): commands name a
// Linux CPU of the target core, acknowledgements are translated back to logical cores, and
// liveness uses each slot's recorded process identity (pid + start time), so a reused pid
// does not pass for the rank.

#include <map>
#include <mutex>

#include "symmer/analysis/rank_control.hpp"
#include "symmer/segment/control.hpp"
#include "symmer/segment/reader.hpp"
#include "symmer/topology/node_model.hpp"

namespace symmer::analysis {

class SegmentRankControl final : public RankControl {
 public:
  SegmentRankControl(segment::SegmentControl control, topology::NodeModel node);

  /// Records who each slot's process is (call with every new snapshot).
  void update(const segment::SegmentSnapshot& snapshot);

  std::uint64_t command(int local_rank, int core) override;
  Ack ack(int local_rank) const override;
  bool alive(int local_rank) const override;
  /// sched_setaffinity on every thread of the rank's process (/proc/<pid>/task).
  bool force_bind(int local_rank, int core) override;

 private:
  segment::SegmentControl control_;
  topology::NodeModel node_;
  std::map<int, segment::ProcessIdentity> who_;
};

/// Binds every thread of process `pid` to the Linux CPUs `cpus`. False when the process is
/// gone or any thread could not be bound (permission, CPU not allowed).
bool bind_process_threads(int pid, const std::vector<int>& cpus);

}  // namespace symmer::analysis
