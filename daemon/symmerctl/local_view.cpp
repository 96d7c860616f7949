// SPDX-License-Identifier: BSD-3-Clause
// symmerctl without symmerd (see local_view.hpp).
#include "local_view.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <thread>

#include "symmer/analysis/decision_log.hpp"
#include "symmer/analysis/placement.hpp"
#include "symmer/analysis/segment_window.hpp"
#include "symmer/segment/claim.hpp"
#include "symmer/segment/control.hpp"
#include "symmer/segment/naming.hpp"
#include "symmer/segment/reader.hpp"
#include "symmer/segment/report.hpp"
#include "symmer/topology/core_load.hpp"
#include "symmer/topology/cpu_list.hpp"

namespace symmer::ctl {
namespace {

using nlohmann::json;
using segment::SegmentSnapshot;

std::string file_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string directory(const std::string& dir) {
  return dir.empty() ? segment::segment_directory() : dir;
}

// The live jobs of `dir` (dead ones' segments are removed by the scan, unreadable ones named).
std::vector<SegmentSnapshot> live_jobs(const std::string& dir, json* problems = nullptr) {
  std::vector<SegmentSnapshot> out;
  for (auto& e : segment::scan_segments(directory(dir))) {
    if (e.snapshot && !e.removed_stale)
      out.push_back(std::move(*e.snapshot));
    else if (!e.snapshot && problems != nullptr)
      problems->push_back({{"segment", e.path}, {"error", e.snapshot.error().message}});
  }
  return out;
}

// The decisions a job's embedded analyzer published, each tagged with the job.
std::vector<json> published(const SegmentSnapshot& s) {
  std::vector<json> out;
  std::ifstream in(analysis::published_log_path(s.path));
  for (std::string line; std::getline(in, line);) {
    auto e = json::parse(line, nullptr, false);
    if (!e.is_object()) continue;  // a line being written
    e["job"] = file_name(s.path);
    out.push_back(std::move(e));
  }
  return out;
}

// Who analyses the job: the holder of its claim (segment/claim.hpp), embedded when nobody does.
std::string analysed_by(const SegmentSnapshot& s) {
  const auto& h = s.header;
  const bool held = h.claim_pid != 0 && segment::monotonic_ns() < h.claim_lease_ns;
  return held && h.claim_kind == static_cast<std::uint64_t>(segment::ClaimKind::kDaemon)
             ? "symmerd pid " + std::to_string(h.claim_pid)
             : std::string("embedded");
}

// Two samples of every live job `window` apart: (before, after) per job, and the node's /proc.
struct Sampled {
  std::vector<std::pair<analysis::SegmentSample, analysis::SegmentSample>> jobs;
  std::optional<topology::ProcSnapshot> proc_before, proc_after;
};

Sampled sample(const std::string& dir, std::chrono::milliseconds window) {
  const topology::ProcReader proc("/proc");
  Sampled out;
  std::vector<analysis::SegmentSample> first;
  if (auto p = proc.read()) out.proc_before = std::move(*p);
  for (const auto& s : live_jobs(dir))
    if (auto a = analysis::read_segment_sample(s.path, proc)) first.push_back(std::move(*a));
  std::this_thread::sleep_for(window);
  if (auto p = proc.read()) out.proc_after = std::move(*p);
  for (auto& a : first)
    if (auto b = analysis::read_segment_sample(a.segment.path, proc))
      out.jobs.emplace_back(std::move(a), std::move(*b));
  return out;
}

}  // namespace

json local_status(const std::string& dir) {
  json problems = json::array();
  json jobs = json::array();
  for (const auto& s : live_jobs(dir, &problems))
    jobs.push_back({{"job", file_name(s.path)},
                    {"app", std::string(s.header.app_name)},
                    {"local_ranks", s.header.local_ranks},
                    {"analysed_by", analysed_by(s)}});
  return {{"ok", true},
          {"mode", "embedded"},
          {"segment_dir", directory(dir)},
          {"jobs", jobs.size()},
          {"job_list", jobs},
          {"problems", problems}};
}

json local_jobs(const std::string& dir) {
  json jobs = json::array();
  for (const auto& s : live_jobs(dir)) {
    int moves = 0, advised = 0;
    for (const auto& e : published(s)) {
      if (e.value("event", "") == "advice") ++advised;
      if (e.value("event", "") == "actuation" && e.value("completed", false) &&
          !e.value("rollback", false))
        moves += static_cast<int>(e.value("moves_in_effect", json::array()).size());
    }
    std::string counters = "unknown";
    for (const auto& slot : s.slots)
      if (slot.state() == segment::SlotState::kActive)
        counters = slot.counters.counters_status ==
                           static_cast<std::uint64_t>(segment::CountersStatus::kAvailable)
                       ? "yes"
                       : "no";
    jobs.push_back({{"job_id", hex(s.header.job_id)},
                    {"node_id", s.header.node_id},
                    {"owner_uid", s.header.owner_uid},
                    {"app", std::string(s.header.app_name)},
                    {"local_ranks", s.header.local_ranks},
                    {"state", analysed_by(s)},
                    {"moves", moves},
                    {"advised", advised},
                    {"cache_counters", counters}});
  }
  return {{"ok", true}, {"mode", "embedded"}, {"jobs", jobs}};
}

json local_ranks(const std::string& dir, std::chrono::milliseconds window) {
  const auto node = topology::NodeModel::from_this_node(topology::GpuQuery::kNone);
  json list = json::array();
  for (const auto& [before, after] : sample(dir, window).jobs) {
    auto w = analysis::window_between(before, after, node);
    const auto placement = analysis::job_placement(analysis::rank_cpus(after.segment), node,
                                                   analysis::Domain::kJob);
    for (std::size_t i = 0; i < after.segment.slots.size(); ++i) {
      const auto& slot = after.segment.slots[i];
      if (slot.state() != segment::SlotState::kActive) continue;
      const auto place = placement.rank_place.find(static_cast<int>(i));
      json j = {{"job", file_name(after.segment.path)},
                {"rank", i},
                {"global_rank", slot.identity.global_rank},
                {"pid", slot.identity.pid},
                {"cpu", slot.identity.cpu},
                {"cpus_allowed", segment::mask_cpus(slot.placement.current)},
                {"core", place == placement.rank_place.end() ? -1 : place->second}};
      if (w)
        if (const auto* r = w->find_local(static_cast<int>(i))) {
          j["window_s"] = w->duration_s();
          j["compute_share"] = segment::compute_share(r->idle_ns, r->compute_ns);
          j["idle_share"] = segment::idle_share(r->idle_ns, r->compute_ns);
          j["calls_per_s"] = static_cast<double>(r->calls) / std::max(1e-9, w->duration_s());
        }
      list.push_back(std::move(j));
    }
  }
  return {{"ok", true}, {"mode", "embedded"}, {"ranks", list}};
}

json local_cores(const std::string& dir, std::chrono::milliseconds window) {
  const auto node = topology::NodeModel::from_this_node(topology::GpuQuery::kNone);
  const Sampled sampled = sample(dir, window);
  // The jobs' own CPU time, spread over the cores of each rank's set.
  std::vector<double> job_seconds(node.cores().size(), 0.0);
  std::map<int, json> on_core, reserved;
  int floating = 0;
  for (const auto& [before, after] : sampled.jobs) {
    const std::string job = file_name(after.segment.path);
    const auto placement = analysis::job_placement(analysis::rank_cpus(after.segment), node,
                                                   analysis::Domain::kJob);
    for (std::size_t i = 0; i < after.segment.slots.size(); ++i) {
      const auto& slot = after.segment.slots[i];
      if (slot.state() != segment::SlotState::kActive) continue;
      const int pid = static_cast<int>(slot.identity.pid);
      const auto cores =
          analysis::cores_of_cpus(segment::mask_cpus(slot.placement.current), node);
      const auto a = after.cpu_seconds.find(pid);
      const auto b = before.cpu_seconds.find(pid);
      if (a != after.cpu_seconds.end() && b != before.cpu_seconds.end() && !cores.empty())
        for (int c : cores)
          job_seconds[static_cast<std::size_t>(c)] +=
              std::max(0.0, a->second - b->second) / static_cast<double>(cores.size());
      if (placement.rank_place.count(static_cast<int>(i)) == 0) ++floating;
      for (int c : cores) on_core[c].push_back({{"job", job}, {"rank", i}, {"pid", pid}});
      for (int c : analysis::cores_of_cpus(
               segment::mask_cpus(slot.placement.runtime_control), node))
        reserved[c].push_back({{"pid", pid},
                               {"uid", after.segment.header.owner_uid},
                               {"all_jobs", false},
                               {"reason", "GPU control core of " + job + " rank " +
                                              std::to_string(i)}});
    }
  }
  std::optional<std::vector<topology::CoreLoad>> loads;
  if (sampled.proc_before && sampled.proc_after)
    if (auto l = topology::core_loads(node, *sampled.proc_before, *sampled.proc_after, job_seconds))
      loads = std::move(*l);
  json list = json::array();
  for (const auto& core : node.cores()) {
    const int c = core.index;
    json entry = {{"core", c},
                  {"os_index", core.os_index},
                  {"cpus", core.pus},
                  {"numa_node", core.numa_node},
                  {"usable", true},
                  {"nic_irq", false},
                  {"near_nic", false},
                  {"reserved", reserved.count(c) ? reserved[c] : json::array()},
                  {"ranks", on_core.count(c) ? on_core[c] : json::array()}};
    if (loads && static_cast<std::size_t>(c) < loads->size())
      entry["capability"] = (*loads)[static_cast<std::size_t>(c)].capability;
    list.push_back(std::move(entry));
  }
  return {{"ok", true}, {"mode", "embedded"}, {"cores", list}, {"unbound_ranks", floating}};
}

json local_decisions(const std::string& dir, const std::string& job, std::size_t limit) {
  std::vector<json> all;
  for (const auto& s : live_jobs(dir)) {
    const std::string name = file_name(s.path);
    if (!job.empty() && name.rfind(job, 0) != 0 && hex(s.header.job_id).rfind(job, 0) != 0)
      continue;
    for (auto& e : published(s)) all.push_back(std::move(e));
  }
  if (all.size() > limit) all.erase(all.begin(), all.end() - static_cast<long>(limit));
  return {{"ok", true}, {"mode", "embedded"}, {"decisions", all}};
}

}  // namespace symmer::ctl
