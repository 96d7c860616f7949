// SPDX-License-Identifier: BSD-3-Clause
// symmerd: one period -- claims, each job's sample, the node's state, coscheduling across
// jobs, then each job's own analysis (see daemon.hpp).
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>

#include "daemon.hpp"
#include "symmer/analysis/placement.hpp"
#include "symmer/segment/process_identity.hpp"
#include "symmer/topology/core_load.hpp"
#include "symmer/topology/device_interrupts.hpp"

namespace symmer::daemon {
namespace {

using analysis::Clock;
using analysis::TimePoint;

// Recent decision events kept for `decisions` requests.
constexpr std::size_t kKeepDecisions = 1000;

}  // namespace

void Daemon::run_period() {
  const auto now = Clock::now();
  ++state_.periods;
  read_this_period_.clear();
  scan(now);
  renew_claims(now);
  sample_jobs(now);
  end_reservations();
  sample_node(now);
  analyze_jobs(place(now), now);
}

void Daemon::sample_jobs(TimePoint now) {
  for (auto it = state_.jobs.begin(); it != state_.jobs.end();) {
    const std::string key = it->first;
    ManagedJob& job = *it->second;
    ++it;
    switch (job.sample(proc_, now, read_options())) {
      case ManagedJob::SampleOutcome::kOk:
      case ManagedJob::SampleOutcome::kSkipped:  // over its user's budget: next period
        break;
      case ManagedJob::SampleOutcome::kGone:
        drop(key, "ended (its segment was removed)", now);
        break;
      case ManagedJob::SampleOutcome::kDead:
        job.remove_segment();
        drop(key, "ended without removing its segment; removed it", now);
        break;
      case ManagedJob::SampleOutcome::kUnreadable:
        if (state_.problems[job.path()] != job.sample_error()) {
          state_.problems[job.path()] = job.sample_error();
          spdlog::warn("symmerd: cannot sample {}: {}", job.path(), job.sample_error());
        }
        break;
    }
  }
}

void Daemon::end_reservations() {
  for (auto it = state_.reservations.begin(); it != state_.reservations.end();) {
    // Only a process known to be gone ends its reservation: a /proc read that failed (out of
    // descriptors) says nothing.
    const auto ticks = segment::read_start_ticks(it->first);
    const bool ended =
        ticks ? *ticks != it->second.start_ticks : ticks.error().code == Errc::kNotFound;
    if (ended) {
      spdlog::info("symmerd: pid {} ended; its cores are free for ranks again", it->first);
      it = state_.reservations.erase(it);
    } else {
      ++it;
    }
  }
}

void Daemon::sample_node(TimePoint now) {
  const topology::NodeModel& node = state_.node;
  NodeState& node_state = state_.node_state;
  node_state.usable = state_.config.cores;
  if (node_state.usable.empty())
    for (const auto& c : node.cores()) node_state.usable.push_back(c.index);
  node_state.reservations.clear();
  for (const auto& [pid, r] : state_.reservations) node_state.reservations.push_back(r.reservation);
  // GPU control cores a runtime inside a rank (TSAR) published: no other rank goes there.
  for (const auto& [key, job] : state_.jobs)
    for (const auto& slot : job->snapshot().slots) {
      if (slot.state() != segment::SlotState::kActive) continue;
      const auto control = analysis::cores_of_cpus(
          segment::mask_cpus(slot.placement.runtime_control), node);
      if (!control.empty())
        node_state.reservations.push_back({control, static_cast<pid_t>(slot.identity.pid),
                                           job->owner_uid(), true,
                                           "GPU control core of " + key});
    }

  auto now_proc = proc_.read();
  std::map<int, double> cpu_now;
  std::vector<double> job_seconds(node.cores().size(), 0.0);
  const double elapsed = std::chrono::duration<double>(now - node_sampled_).count();
  cpu_share_.clear();
  for (const auto& [key, job] : state_.jobs)
    for (const auto& r : job->ranks()) {
      const auto cpu = analysis::process_cpu_seconds(r.pid);
      if (!cpu) continue;
      cpu_now[r.pid] = *cpu;
      const auto before = cpu_previous_.find(r.pid);
      if (before == cpu_previous_.end() || *cpu < before->second) continue;
      if (r.bound_core >= 0)
        job_seconds[static_cast<std::size_t>(r.bound_core)] += *cpu - before->second;
      if (elapsed > 0) cpu_share_[r.pid] = std::min(1.0, (*cpu - before->second) / elapsed);
    }
  node_sampled_ = now;
  if (now_proc && proc_previous_) {
    // What a rank placed on each core would get, with every managed rank's own time taken
    // out: interrupts and steal are lost to it; busy processes symmerd does not place share
    // the rest with it (the scheduler splits a core fairly: a core fully busy with one
    // foreign process gives a newcomer half), niced ones yield it.
    if (auto loads = topology::core_loads(node, *proc_previous_, *now_proc, job_seconds)) {
      node_state.capability.clear();
      for (const auto& l : *loads) {
        const double left = 1.0 - l.irq - l.softirq - l.steal;
        node_state.capability.push_back(
            std::clamp(left - (l.foreign - l.background) / 2, 0.0, 1.0));
      }
    }
    std::set<int> irq;
    for (const auto& d :
         topology::device_interrupts(node.nics(), proc_previous_->interrupts, now_proc->interrupts))
      for (int cpu : d.cpus())
        if (const int core = node.core_of_pu(cpu); core >= 0) irq.insert(core);
    if (irq.empty())  // no NIC interrupt in the window: where they went since boot
      for (const auto& d : topology::device_interrupts(node.nics(), now_proc->interrupts))
        for (int cpu : d.cpus())
          if (const int core = node.core_of_pu(cpu); core >= 0) irq.insert(core);
    node_state.nic_irq_cores = irq;
  }
  if (now_proc) proc_previous_ = std::move(*now_proc);
  cpu_previous_ = std::move(cpu_now);
}

std::vector<PlacedRank> Daemon::placed_ranks(TimePoint now) const {
  std::vector<PlacedRank> out;
  for (const auto& [key, job] : state_.jobs) {
    const bool job_movable = job->claimed() && !job->settings().paused && !job->busy();
    const auto& window = job->window();
    for (const auto& r : job->ranks()) {
      PlacedRank p;
      p.job = key;
      p.owner_uid = job->owner_uid();
      p.local_rank = r.local_rank;
      p.pid = r.pid;
      p.core = r.bound_core;
      p.order = job->order();
      p.movable = job_movable && !job->held(r.local_rank, now);
      if (window && r.window) {
        p.window_s = window->duration_s();
        p.compute_s = static_cast<double>(r.window->compute_ns) * 1e-9;
        p.idle_s = static_cast<double>(r.window->idle_ns) * 1e-9;
        std::uint64_t off = 0;
        for (const auto& [node, bytes] : r.window->bytes_to_node) off += bytes;
        p.offnode_bytes_per_s = static_cast<double>(off) / std::max(1e-9, p.window_s);
      }
      if (const auto share = cpu_share_.find(r.pid); share != cpu_share_.end())
        p.cpu_share = share->second;
      out.push_back(p);
    }
  }
  return out;
}

std::set<int> Daemon::place(TimePoint now) {
  state_.coschedule_notes.clear();
  std::set<int> promised;
  if (!state_.config.coschedule || state_.paused) return promised;
  for (const auto& [key, job] : state_.jobs)
    if (job->busy()) {  // a job's moves in flight may be heading for any free core
      state_.coschedule_notes.push_back("waiting for the moves of " + key + " to finish");
      return promised;
    }
  const CoscheduleOptions options{state_.config.analyzer.planner.min_gain,
                                  state_.config.nic_bytes_per_s, state_.config.nic_wait_saving};
  const auto result = coschedule(state_.node, state_.node_state, placed_ranks(now), options);
  state_.coschedule_notes = result.notes;
  std::map<std::string, std::pair<std::vector<analysis::Move>, nlohmann::json>> by_job;
  for (const auto& m : result.moves) {
    auto& [moves, evidence] = by_job[m.job];
    moves.push_back({m.local_rank, m.from_core, m.to_core, false});
    nlohmann::json e = m.evidence;
    e["reason"] = m.reason;
    e["gain"] = m.gain;
    evidence.push_back(std::move(e));
  }
  for (auto& [key, entry] : by_job)
    if (const auto it = state_.jobs.find(key); it != state_.jobs.end())
      if (it->second->coschedule(entry.first, entry.second, now))
        for (const auto& m : entry.first) promised.insert(m.to_core);
  return promised;
}

void Daemon::analyze_jobs(const std::set<int>& promised, TimePoint now) {
  // Jobs plan one at a time across the node: a job plans onto free cores only while no other
  // job has moves in flight (their targets are not bound yet), and never onto a core a
  // coscheduling move of this period is taking.
  bool busy = false;
  const auto ranks = placed_ranks(now);
  for (auto& [key, job] : state_.jobs) {
    if (!job->claimed()) continue;
    bool others_busy = false;
    for (const auto& [other_key, other] : state_.jobs)
      others_busy |= other_key != key && other->busy();
    std::vector<int> allowed;
    for (int c : allowed_cores(state_.node_state, ranks, key, job->owner_uid())) {
      const bool own = std::any_of(job->ranks().begin(), job->ranks().end(),
                                   [c](const RankView& r) { return r.bound_core == c; });
      if (own || (!others_busy && !promised.count(c))) allowed.push_back(c);
    }
    job->analyze(allowed, now);
    busy = job->busy() || busy;
  }
  collect_events();
  if (busy) schedule_tick();
}

void Daemon::collect_events() {
  const double at = wall_clock_s();
  for (auto& [key, job] : state_.jobs) {
    for (auto& e : job->take_new_events()) {
      e["job"] = key;
      e["at"] = at;
      const std::string type = e.value("event", "");
      if (type == "plan" || type == "advice" || type == "actuation" || type == "evaluation" ||
          type == "fault" || (type == "decision" && e.value("verdict", "") == "accepted"))
        spdlog::info("symmerd decision: {}", e.dump());
      else
        spdlog::debug("symmerd decision: {}", e.dump());
      state_.decisions.push_back(std::move(e));
      if (state_.decisions.size() > kKeepDecisions) state_.decisions.pop_front();
    }
  }
}

}  // namespace symmer::daemon
