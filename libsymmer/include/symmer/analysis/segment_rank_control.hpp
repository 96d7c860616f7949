// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// RankControl on the node segment's control words (segment/control.hpp): a command names the
// Linux CPUs of the target cores that keep the rank's threads at their places
// (placement.hpp target_cpus), acknowledgements are translated back to logical cores, and
// liveness uses each slot's recorded process identity (pid + start time), so a reused pid
// does not pass for the rank. With the job's claim (segment/claim.hpp) it acts only while the
// claim is held; it acts on a process from outside (binding, page moves) only when that
// process is one of the job's (segment/job_process.hpp): a segment may name any pid.

#include <functional>
#include <map>
#include <set>
#include <string>

#include "symmer/analysis/rank_control.hpp"
#include "symmer/segment/claim.hpp"
#include "symmer/segment/control.hpp"
#include "symmer/segment/reader.hpp"
#include "symmer/topology/node_model.hpp"

namespace symmer::analysis {

class SegmentRankControl final : public RankControl {
 public:
  /// `claim` (may be null: tests, tools) gates every action; `refused` (may be empty) hears
  /// every refused action, with the reason.
  SegmentRankControl(segment::SegmentControl control, topology::NodeModel node,
                     const segment::JobClaim* claim = nullptr,
                     std::function<void(const std::string&)> refused = {});

  /// Records who each slot's process is and its CPU set (call with every new snapshot).
  void update(const segment::SegmentSnapshot& snapshot);

  std::uint64_t command(int local_rank, std::span<const int> cores) override;
  Ack ack(int local_rank) const override;
  bool alive(int local_rank) const override;
  /// From the snapshot of the last update().
  bool without_calls(int local_rank) const override;
  /// sched_setaffinity on every thread of the rank's process (/proc/<pid>/task), after
  /// may_act_on.
  bool force_bind(int local_rank, std::span<const int> cores) override;

  /// Ok when the analyzer may act on process `pid` from outside: it holds the claim (when it
  /// has one), and `pid` is the process of one of the job's slots and one of the job's
  /// processes. Else the reason (also told to `refused`).
  Status may_act_on(int pid) const;

 private:
  // The Linux CPUs of `cores` for `local_rank` (its threads' places kept).
  std::vector<int> cpus_for(int local_rank, std::span<const int> cores) const;

  bool may_command() const;
  segment::SegmentControl control_;
  topology::NodeModel node_;
  const segment::JobClaim* claim_;
  std::function<void(const std::string&)> refused_;
  std::map<int, segment::ProcessIdentity> who_;
  std::map<int, std::vector<int>> current_;  // local rank -> its CPU set at the last update
  std::set<int> without_calls_;              // local ranks silent at the last update
  std::uint64_t owner_uid_ = 0;
};

/// Binds every thread of process `pid` from the Linux CPUs `from` onto `to`, each to its
/// relative place (topology::move_process_threads: threads already inside `to` stay), but the
/// calling thread (the embedded analyzer runs inside a rank). False when `to` is empty or
/// names a CPU this node lacks, the process is gone, none of its threads is left, or a thread
/// could not be bound (permission, CPU not allowed); the threads bound before it stay bound.
bool bind_process_threads(int pid, const std::vector<int>& from, const std::vector<int>& to);

}  // namespace symmer::analysis
