// SPDX-License-Identifier: BSD-3-Clause
// RankControl with the process checks (see guarded_rank_control.hpp).
#include "guarded_rank_control.hpp"

#include <sys/stat.h>

#include "symmer/segment/job_process.hpp"

namespace symmer::daemon {

GuardedRankControl::GuardedRankControl(segment::SegmentControl control, topology::NodeModel node,
                                       std::string segment_path,
                                       std::function<void(const std::string&)> refused)
    : inner_(std::move(control), std::move(node)),
      path_(std::move(segment_path)),
      refused_(std::move(refused)) {}

void GuardedRankControl::update(const segment::SegmentSnapshot& snapshot) {
  inner_.update(snapshot);
  owner_uid_ = snapshot.header.owner_uid;
  for (std::size_t i = 0; i < snapshot.slots.size(); ++i) {
    const auto& id = snapshot.slots[i].identity;
    if (snapshot.slots[i].state() == segment::SlotState::kFree) continue;
    who_[static_cast<int>(i)] = {static_cast<int>(id.pid), id.start_ticks};
  }
}

bool GuardedRankControl::may_act_on(int pid) const {
  for (const auto& [rank, process] : who_) {
    if (process.first != pid) continue;
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) {
      refused_("not acting on pid " + std::to_string(pid) + ": " + path_ + " is gone");
      return false;
    }
    const auto ok =
        segment::check_job_process({pid, process.second, owner_uid_, st.st_dev, st.st_ino, path_});
    if (!ok) refused_("not acting on " + ok.error().message);
    return static_cast<bool>(ok);
  }
  refused_("not acting on pid " + std::to_string(pid) + ": no slot of " + path_ + " names it");
  return false;
}

bool GuardedRankControl::force_bind(int local_rank, std::span<const int> cores) {
  const auto it = who_.find(local_rank);
  if (it == who_.end() || !may_act_on(it->second.first)) return false;
  return inner_.force_bind(local_rank, cores);
}

}  // namespace symmer::daemon
