// SPDX-License-Identifier: BSD-3-Clause
// Segment samples -> WindowSample (see segment_window.hpp).
#include "symmer/analysis/segment_window.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "symmer/topology/core_load.hpp"

namespace symmer::analysis {
namespace {

using segment::CallClass;
using segment::SlotState;

bool same_process(const segment::SlotSnapshot& a, const segment::SlotSnapshot& b) {
  return a.identity.pid == b.identity.pid && a.identity.start_ticks == b.identity.start_ticks;
}

// after - before, or nullopt when a cumulative counter went backwards (corruption).
std::optional<std::uint64_t> delta(std::uint64_t after, std::uint64_t before) {
  if (after < before) return std::nullopt;
  return after - before;
}

}  // namespace

std::uint64_t silent_ns(const segment::SegmentSnapshot& s, const segment::SlotSnapshot& slot) {
  const std::uint64_t period =
      std::clamp<std::uint64_t>(s.header.publish_period_ns, 1'000'000, 1'000'000'000);
  const std::uint64_t last = slot.counters.last_publish_ns;
  if (s.read_monotonic_ns <= last + 2 * period) return 0;
  return s.read_monotonic_ns - last - 2 * period;
}

std::optional<double> process_cpu_seconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!in || !std::getline(in, text)) return std::nullopt;
  // The command name (field 2) may hold spaces and parentheses: fields follow the last ')'.
  const auto close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  if (close + 2 > text.size()) return std::nullopt;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  std::uint64_t ticks = 0;
  int i = 3;
  for (; i <= 15 && fields >> field; ++i) {
    if (i < 14) continue;  // utime is field 14, stime field 15
    std::uint64_t v = 0;
    const auto r = std::from_chars(field.data(), field.data() + field.size(), v);
    if (r.ec != std::errc() || r.ptr != field.data() + field.size()) return std::nullopt;
    ticks += v;
  }
  if (i <= 15) return std::nullopt;  // truncated
  return static_cast<double>(ticks) / topology::clock_ticks_per_second();
}

Expected<SegmentSample> read_segment_sample(const std::string& path,
                                            const topology::ProcReader& proc,
                                            const segment::ReadOptions& options) {
  auto snapshot = segment::read_segment(path, options);
  if (!snapshot) return std::move(snapshot).error();
  SegmentSample sample{std::move(*snapshot), std::nullopt, {}};
  if (auto p = proc.read()) sample.proc = std::move(*p);
  for (const auto& slot : sample.segment.slots)
    if (slot.state() == SlotState::kActive)
      if (auto cpu = process_cpu_seconds(static_cast<int>(slot.identity.pid)))
        sample.cpu_seconds[static_cast<int>(slot.identity.pid)] = *cpu;
  return sample;
}

std::vector<RankCpus> rank_cpus(const segment::SegmentSnapshot& snapshot) {
  std::vector<RankCpus> out;
  for (std::size_t i = 0; i < snapshot.slots.size(); ++i) {
    const auto& slot = snapshot.slots[i];
    if (slot.state() != SlotState::kActive) continue;
    RankCpus r;
    r.local_rank = static_cast<int>(i);
    r.current = segment::mask_cpus(slot.placement.current);
    r.launch = segment::mask_cpus(slot.placement.launch);
    r.runtime_control = segment::mask_cpus(slot.placement.runtime_control);
    r.last_cpu = static_cast<int>(slot.identity.cpu);
    r.compute_threads = static_cast<int>(slot.placement.compute_threads);
    out.push_back(std::move(r));
  }
  return out;
}

Expected<WindowSample> window_between(const SegmentSample& before, const SegmentSample& after,
                                      const topology::NodeModel& node,
                                      std::vector<std::string>* notes, Domain domain) {
  const auto& hb = before.segment.header;
  const auto& ha = after.segment.header;
  if (hb.job_id != ha.job_id || hb.node_id != ha.node_id || hb.local_ranks != ha.local_ranks)
    return Error(Errc::kInvalidArgument,
                 "samples of different segments (job, node or ranks differ)");
  if (after.segment.read_monotonic_ns <= before.segment.read_monotonic_ns)
    return Error(Errc::kInvalidArgument, "sample times do not advance");
  const auto note = [&](const std::string& what) {
    if (notes != nullptr) notes->push_back(what);
  };

  const JobPlacement placement = job_placement(rank_cpus(after.segment), node, domain);
  WindowSample w;
  w.places = placement.places;
  w.domain = placement.domain;
  w.start_ns = before.segment.read_monotonic_ns;
  w.duration_ns = after.segment.read_monotonic_ns - before.segment.read_monotonic_ns;
  // Each rank's CPU time and the cores it ran on, to take the job's own time out of the
  // cores' load; a rank whose CPU time is not known in both samples leaves capability unknown.
  std::vector<std::pair<std::vector<int>, double>> rank_seconds;
  std::string unknown_cpu_time;
  const std::size_t slots = std::min(before.segment.slots.size(), after.segment.slots.size());
  for (std::size_t i = 0; i < slots; ++i) {
    const auto& b = before.segment.slots[i];
    const auto& a = after.segment.slots[i];
    const std::string who = "local rank " + std::to_string(i);
    if (a.state() != SlotState::kActive) continue;  // not started yet, or finished
    if (b.state() != SlotState::kActive || !same_process(a, b)) {
      note(who + ": no earlier sample of this process");
      unknown_cpu_time = who;
      continue;
    }
    const auto& cb = b.counters;
    const auto& ca = a.counters;
    bool backwards = false;
    const auto d = [&](std::uint64_t x, std::uint64_t y) {
      const auto v = delta(x, y);
      backwards = backwards || !v;
      return v.value_or(0);
    };
    RankWindow r;
    r.local_rank = static_cast<int>(i);
    r.global_rank = static_cast<int>(a.identity.global_rank);
    r.pid = static_cast<int>(a.identity.pid);
    const auto place = placement.rank_place.find(r.local_rank);
    r.core = place == placement.rank_place.end() ? -1 : place->second;
    r.cores = cores_of_cpus(segment::mask_cpus(a.placement.current), node);
    r.span_ns = delta(ca.last_publish_ns, cb.last_publish_ns).value_or(0);
    r.idle_ns = d(ca.idle_ns, cb.idle_ns);
    r.compute_ns = d(ca.compute_ns, cb.compute_ns);
    r.silent_ns = delta(silent_ns(after.segment, a), silent_ns(before.segment, b)).value_or(0);
    r.outofsync_compute_ns = d(ca.out_of_sync_ns, cb.out_of_sync_ns);
    r.blocking_send_wait_ns = d(ca.send_wait_ns, cb.send_wait_ns);
    for (std::size_t c = 0; c < segment::kCallClassCount; ++c) {
      const auto cls = static_cast<CallClass>(c);
      const std::uint64_t n = d(ca.calls[c], cb.calls[c]);
      if (cls != CallClass::kTest && cls != CallClass::kIprobe) r.calls += n;
    }
    for (std::size_t p = 0; p < std::min(a.local_peers.size(), b.local_peers.size()); ++p) {
      if (p == i) continue;
      const auto bytes = d(a.local_peers[p].bytes_sent, b.local_peers[p].bytes_sent);
      const auto late = d(a.local_peers[p].late_sender_ns, b.local_peers[p].late_sender_ns);
      if (bytes > 0) r.bytes_to_local[static_cast<int>(p)] = bytes;
      if (late > 0) r.late_sender_wait_local[static_cast<int>(p)] = late;
    }
    for (std::size_t n = 0; n < std::min(a.remote_nodes.size(), b.remote_nodes.size()); ++n) {
      const auto bytes = d(a.remote_nodes[n].bytes_sent, b.remote_nodes[n].bytes_sent);
      const auto late = d(a.remote_nodes[n].late_sender_ns, b.remote_nodes[n].late_sender_ns);
      if (bytes > 0) r.bytes_to_node[static_cast<int>(n)] = bytes;
      if (late > 0) r.late_sender_wait_node[static_cast<int>(n)] = late;
    }
    const auto available = static_cast<std::uint64_t>(segment::CountersStatus::kAvailable);
    if (ca.counters_status == available && cb.counters_status == available)
      r.cache_misses = d(ca.cache_misses, cb.cache_misses);
    if (backwards) {
      note(who + ": a cumulative counter went backwards; left out of this window");
      continue;
    }
    const auto cpu_a = after.cpu_seconds.find(r.pid);
    const auto cpu_b = before.cpu_seconds.find(r.pid);
    // The job's own time is not lost capability: spread over the cores its threads run on
    // (its place; a floating hybrid rank's whole set).
    std::vector<int> busy = r.core >= 0 ? w.place_cores(r.core) : r.cores;
    if (!busy.empty() && cpu_a != after.cpu_seconds.end() && cpu_b != before.cpu_seconds.end() &&
        cpu_a->second >= cpu_b->second)
      rank_seconds.emplace_back(std::move(busy), cpu_a->second - cpu_b->second);
    else
      unknown_cpu_time = who;
    w.ranks.push_back(std::move(r));
  }

  if (!unknown_cpu_time.empty()) {
    note("core capability unknown: the CPU time of " + unknown_cpu_time +
         " is not known for this window (its load would count as someone else's)");
  } else if (before.proc && after.proc) {
    // A rank's CPU time goes to the cores of its set in proportion to how busy each was: a
    // hybrid rank in a serial phase runs on one core of its set, and an even split would show
    // the other core's idleness as this one's lost capability.
    const auto job_seconds = [&](const std::vector<topology::CoreLoad>& idle_job) {
      std::vector<double> out(node.cores().size(), 0.0);
      for (const auto& [cores, seconds] : rank_seconds) {
        double busy_total = 0.0;
        const auto busy_s = [&](int c) {
          if (static_cast<std::size_t>(c) >= idle_job.size()) return 1.0;
          const auto& l = idle_job[static_cast<std::size_t>(c)];
          return l.busy * l.window_seconds;
        };
        for (int c : cores) busy_total += busy_s(c);
        for (int c : cores)
          out[static_cast<std::size_t>(c)] += busy_total > 0
                                                  ? seconds * busy_s(c) / busy_total
                                                  : seconds / static_cast<double>(cores.size());
      }
      return out;
    };
    auto loads = topology::core_loads_with_job(node, *before.proc, *after.proc, job_seconds);
    if (loads && loads->size() == node.cores().size()) {
      for (const auto& l : *loads) {
        w.core_capability.push_back(l.capability);
        w.core_ticks.push_back(l.ticks);
        w.core_irq_share.push_back(std::min(1.0, l.irq + l.softirq));
      }
      w.capability_resolution =
          std::min(1.0, 1.0 / (topology::clock_ticks_per_second() * w.duration_s()));
    } else if (!loads) {
      note("core capability unknown: " + loads.error().message);
    }
  } else {
    note("core capability unknown: /proc could not be read");
  }
  return w;
}

}  // namespace symmer::analysis
