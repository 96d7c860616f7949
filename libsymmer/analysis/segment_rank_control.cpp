// SPDX-License-Identifier: BSD-3-Clause
// RankControl on the node segment (see segment_rank_control.hpp).
#include "symmer/analysis/segment_rank_control.hpp"

#include <unistd.h>

#include <string>

#include "symmer/analysis/placement.hpp"
#include "symmer/analysis/segment_window.hpp"
#include "symmer/segment/job_process.hpp"
#include "symmer/topology/thread_binding.hpp"

namespace symmer::analysis {

SegmentRankControl::SegmentRankControl(segment::SegmentControl control, topology::NodeModel node,
                                       const segment::JobClaim* claim,
                                       std::function<void(const std::string&)> refused)
    : control_(std::move(control)),
      node_(std::move(node)),
      claim_(claim),
      refused_(std::move(refused)) {}

void SegmentRankControl::update(const segment::SegmentSnapshot& snapshot) {
  owner_uid_ = snapshot.file_uid;
  for (std::size_t i = 0; i < snapshot.slots.size(); ++i) {
    const auto& id = snapshot.slots[i].identity;
    if (snapshot.slots[i].state() == segment::SlotState::kFree) continue;
    who_[static_cast<int>(i)] = {static_cast<pid_t>(id.pid), id.start_ticks,
                                 snapshot.header.pid_namespace};
    current_[static_cast<int>(i)] = segment::mask_cpus(snapshot.slots[i].placement.current);
    if (silent_ns(snapshot, snapshot.slots[i]) > 0)
      without_calls_.insert(static_cast<int>(i));
    else
      without_calls_.erase(static_cast<int>(i));
  }
}

std::vector<int> SegmentRankControl::cpus_for(int local_rank, std::span<const int> cores) const {
  const auto it = current_.find(local_rank);
  return target_cpus(it == current_.end() ? std::vector<int>{} : it->second, cores, node_);
}

std::uint64_t SegmentRankControl::command(int local_rank, std::span<const int> cores) {
  if (local_rank < 0) return 0;
  const std::vector<int> cpus = cpus_for(local_rank, cores);
  if (cpus.empty() || !may_command()) return 0;
  const auto generation = control_.post_command(static_cast<std::uint64_t>(local_rank), cpus);
  return generation ? *generation : 0;
}

Ack SegmentRankControl::ack(int local_rank) const {
  if (local_rank < 0 || static_cast<std::uint64_t>(local_rank) >= control_.local_ranks()) return {};
  const segment::Ack a = control_.ack(static_cast<std::uint64_t>(local_rank));
  Ack out;
  out.generation = a.generation;
  out.status = a.status == segment::AckStatus::kNone ? AckStatus::kNone
               : a.status == segment::AckStatus::kOk ? AckStatus::kBound
                                                     : AckStatus::kFailed;
  out.core = a.cpu >= 0 ? node_.core_of_pu(a.cpu) : -1;
  return out;
}

bool SegmentRankControl::alive(int local_rank) const {
  const auto it = who_.find(local_rank);
  if (it == who_.end()) return false;
  return segment::liveness(it->second) != segment::Liveness::kDead;
}

bool SegmentRankControl::without_calls(int local_rank) const {
  return without_calls_.count(local_rank) != 0;
}

bool SegmentRankControl::force_bind(int local_rank, std::span<const int> cores) {
  const auto it = who_.find(local_rank);
  const auto from = current_.find(local_rank);
  const std::vector<int> cpus = cpus_for(local_rank, cores);
  if (it == who_.end() || from == current_.end() || cpus.empty() || !may_act_on(it->second.pid))
    return false;
  return bind_process_threads(it->second.pid, from->second, cpus);
}

bool SegmentRankControl::may_command() const {
  if (claim_ == nullptr || claim_->acting()) return true;
  if (refused_) refused_("not acting: this analyzer does not hold the job's claim");
  return false;
}

Status SegmentRankControl::may_act_on(int pid) const {
  Status ok;
  if (claim_ != nullptr && !claim_->acting()) {
    ok = Error(Errc::kUnsupported, "not acting on pid " + std::to_string(pid) +
                                       ": this analyzer does not hold the job's claim");
  } else {
    ok = Error(Errc::kInvalidArgument, "not acting on pid " + std::to_string(pid) +
                                           ": no slot of " + control_.file().path() + " names it");
    for (const auto& [rank, who] : who_) {
      if (who.pid != pid) continue;
      const auto& st = control_.file().status();
      ok = segment::check_job_process(
          {pid, who.start_ticks, owner_uid_, st.st_dev, st.st_ino, control_.file().path()});
      if (!ok) ok = Error(ok.error().code, "not acting on " + ok.error().message);
      break;
    }
  }
  if (!ok && refused_) refused_(ok.error().message);
  return ok;
}

bool bind_process_threads(int pid, const std::vector<int>& from, const std::vector<int>& to) {
  // The embedded analyzer binds the threads of the rank it runs in: not its own.
  const int self = pid == ::getpid() ? static_cast<int>(::gettid()) : 0;
  const auto r = topology::move_process_threads(pid, from, to, {.skip_tid = self});
  return r.error == topology::ThreadMoveError::kNone && r.moved + r.kept > 0;
}

}  // namespace symmer::analysis
