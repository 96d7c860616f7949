// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The job's ranks as symmerd drives them: commands go through the segment's command words
// (the rank re-binds itself), and the one action from outside, force_bind, happens only
// after segment::check_job_process() (segment/job_process.hpp) accepts the process.

#include <functional>
#include <map>
#include <string>

#include "symmer/analysis/segment_rank_control.hpp"

namespace symmer::daemon {

class GuardedRankControl final : public analysis::RankControl {
 public:
  /// `refused` hears every refused action, with the reason.
  GuardedRankControl(segment::SegmentControl control, topology::NodeModel node,
                     std::string segment_path, std::function<void(const std::string&)> refused);

  /// Records each slot's process (call with every new snapshot).
  void update(const segment::SegmentSnapshot& snapshot);

  std::uint64_t command(int local_rank, std::span<const int> cores) override {
    return inner_.command(local_rank, cores);
  }
  analysis::Ack ack(int local_rank) const override { return inner_.ack(local_rank); }
  bool alive(int local_rank) const override { return inner_.alive(local_rank); }
  bool force_bind(int local_rank, std::span<const int> cores) override;

  /// Whether symmerd may act on process `pid` from outside (any pid of this job's slots).
  bool may_act_on(int pid) const;

 private:
  analysis::SegmentRankControl inner_;
  std::string path_;
  std::uint64_t owner_uid_ = 0;
  std::map<int, std::pair<int, std::uint64_t>> who_;  // local rank -> pid, start ticks
  std::function<void(const std::string&)> refused_;
};

}  // namespace symmer::daemon
