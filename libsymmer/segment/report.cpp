// SPDX-License-Identifier: BSD-3-Clause
// Snapshots as JSON and as a text table.
#include "symmer/segment/report.hpp"

#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "symmer/topology/cpu_list.hpp"

namespace symmer::segment {
namespace {

using nlohmann::json;

const char* family_name(std::uint64_t f) {
  switch (static_cast<MpiFamily>(f)) {
    case MpiFamily::kMpich:
      return "mpich";
    case MpiFamily::kOpenMpi:
      return "openmpi";
    case MpiFamily::kUnknown:
      break;
  }
  return "unknown";
}

const char* state_name(SlotState s) {
  switch (s) {
    case SlotState::kFree:
      return "free";
    case SlotState::kActive:
      return "active";
    case SlotState::kFinished:
      return "finished";
  }
  return "unknown";
}

const char* counters_name(std::uint64_t s) {
  switch (static_cast<CountersStatus>(s)) {
    case CountersStatus::kAvailable:
      return "available";
    case CountersStatus::kUnavailable:
      return "unavailable";
    case CountersStatus::kDisabled:
      return "disabled";
    case CountersStatus::kUnknown:
      break;
  }
  return "unknown";
}

const char* event_name(std::uint64_t e) {
  switch (static_cast<CacheEvent>(e)) {
    case CacheEvent::kL1Dcm:
      return "PAPI_L1_DCM";
    case CacheEvent::kL2Tcm:
      return "PAPI_L2_TCM";
    case CacheEvent::kL3Tcm:
      return "PAPI_L3_TCM";
    case CacheEvent::kNone:
      break;
  }
  return nullptr;
}

std::string hex(std::uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

json peer_json(const PeerCounters& p) {
  return {{"bytes_sent", p.bytes_sent},         {"bytes_recv", p.bytes_recv},
          {"msgs_sent", p.msgs_sent},           {"msgs_recv", p.msgs_recv},
          {"late_sender_ns", p.late_sender_ns}, {"send_wait_ns", p.send_wait_ns}};
}

bool peer_empty(const PeerCounters& p) {
  return p.bytes_sent == 0 && p.bytes_recv == 0 && p.msgs_sent == 0 && p.msgs_recv == 0 &&
         p.late_sender_ns == 0 && p.send_wait_ns == 0;
}

// The time and traffic figures of a rank, as absolute values or as differences.
json figures_json(const SlotCounters& k, const SlotCounters* base) {
  auto d = [base, &k](std::uint64_t SlotCounters::*f) {
    const std::uint64_t now = k.*f, then = base ? base->*f : 0;
    return now >= then ? now - then : 0;
  };
  json j = {{"idle_ns", d(&SlotCounters::idle_ns)},
            {"compute_ns", d(&SlotCounters::compute_ns)},
            {"other_mpi_ns", d(&SlotCounters::other_mpi_ns)},
            {"out_of_sync_ns", d(&SlotCounters::out_of_sync_ns)},
            {"pending_send_compute_ns", d(&SlotCounters::pending_send_compute_ns)},
            {"send_wait_ns", d(&SlotCounters::send_wait_ns)},
            {"late_sender_ns", d(&SlotCounters::late_sender_ns)},
            {"shim_ns", d(&SlotCounters::shim_ns)},
            {"bytes_sent", d(&SlotCounters::bytes_sent)},
            {"bytes_recv", d(&SlotCounters::bytes_recv)},
            {"msgs_sent", d(&SlotCounters::msgs_sent)},
            {"msgs_recv", d(&SlotCounters::msgs_recv)}};
  j["idle_share"] = idle_share(j["idle_ns"].get<std::uint64_t>(), j["compute_ns"].get<std::uint64_t>());
  json calls = json::object();
  for (std::size_t c = 0; c < kCallClassCount; ++c) {
    const std::uint64_t then = base ? base->calls[c] : 0;
    calls[call_class_name(static_cast<CallClass>(c))] = k.calls[c] >= then ? k.calls[c] - then : 0;
  }
  j["calls"] = calls;
  if (k.counters_status == static_cast<std::uint64_t>(CountersStatus::kAvailable)) {
    const std::uint64_t then = base ? base->cache_misses : 0;
    j["cache_misses"] = k.cache_misses >= then ? k.cache_misses - then : 0;
  } else {
    j["cache_misses"] = nullptr;
  }
  return j;
}

const SegmentSnapshot* matching(const SegmentSnapshot& s,
                                const std::vector<const SegmentSnapshot*>& previous) {
  for (const auto* p : previous)
    if (p && p->path == s.path && p->header.job_id == s.header.job_id) return p;
  return nullptr;
}

std::string human_bytes(std::uint64_t b) {
  const char* units[] = {"B", "K", "M", "G", "T"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024.0 && u < 4) v /= 1024.0, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f%s" : "%.1f%s", v, units[u]);
  return buf;
}

std::string seconds(std::uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) * 1e-9);
  return buf;
}

}  // namespace

double idle_share(std::uint64_t idle_ns, std::uint64_t compute_ns) {
  const std::uint64_t busy = idle_ns + compute_ns;
  return busy ? static_cast<double>(idle_ns) / static_cast<double>(busy) : 0.0;
}

double compute_share(std::uint64_t idle_ns, std::uint64_t compute_ns) {
  const std::uint64_t busy = idle_ns + compute_ns;
  return busy ? static_cast<double>(compute_ns) / static_cast<double>(busy) : 0.0;
}

json to_json(const SegmentSnapshot& s, const SegmentSnapshot* previous) {
  const SegmentHeader& h = s.header;
  if (previous && (previous->header.job_id != h.job_id || previous->slots.size() != s.slots.size()))
    previous = nullptr;
  json j = {{"path", s.path},
            {"job_id", hex(h.job_id)},
            {"node_id", h.node_id},
            {"node_index", h.node_index},
            {"node_count", h.node_count},
            {"local_ranks", h.local_ranks},
            {"world_size", h.world_size},
            {"owner_uid", h.owner_uid},
            {"creator_pid", h.creator_pid},
            {"hostname", std::string(h.hostname)},
            {"app", std::string(h.app_name)},
            {"mpi_family", family_name(h.mpi_family)},
            {"mpi_library", std::string(h.mpi_library)},
            {"thread_level", h.thread_level},
            {"eager_limit", {{"local", h.eager_limit_local}, {"remote", h.eager_limit_remote}}},
            {"publish_period_ns", h.publish_period_ns},
            {"created_realtime_ns", h.created_realtime_ns},
            {"read_monotonic_ns", s.read_monotonic_ns}};
  json nodes = json::array();
  for (const NodeSummary& n : s.summaries) {
    if (!n.valid) continue;
    nodes.push_back({{"node_id", n.node_id},
                     {"node_index", n.node_index},
                     {"local_ranks", n.local_ranks},
                     {"idle_ns", n.idle_ns},
                     {"compute_ns", n.compute_ns},
                     {"out_of_sync_ns", n.out_of_sync_ns},
                     {"late_sender_ns", n.late_sender_ns},
                     {"send_wait_ns", n.send_wait_ns},
                     {"bytes_sent_remote", n.bytes_sent_remote},
                     {"bytes_recv_remote", n.bytes_recv_remote},
                     {"worst_out_of_sync",
                      {{"rank", n.worst_out_of_sync_rank}, {"ns", n.worst_out_of_sync_ns}}},
                     {"worst_late_sender",
                      {{"rank", n.worst_late_sender_rank}, {"ns", n.worst_late_sender_ns}}},
                     {"exchange", n.exchange}});
  }
  j["nodes"] = {{"exchanges", s.summary_area.exchanges}, {"summaries", nodes}};

  json ranks = json::array();
  for (std::size_t i = 0; i < s.slots.size(); ++i) {
    const SlotSnapshot& slot = s.slots[i];
    const auto& id = slot.identity;
    const auto& k = slot.counters;
    json r = {{"local_rank", i}, {"state", state_name(slot.state())}};
    if (slot.state() == SlotState::kFree) {
      ranks.push_back(r);
      continue;
    }
    r["global_rank"] = id.global_rank;
    r["pid"] = id.pid;
    r["cpu"] = id.cpu;
    r["threads"] = id.threads;
    const SlotPlacement& pl = slot.placement;
    r["cpus"] = topology::format_cpu_list(mask_cpus(pl.current));
    r["launch_cpus"] = topology::format_cpu_list(mask_cpus(pl.launch));
    r["compute_threads"] = pl.compute_threads;
    r["set_generation"] = pl.set_generation;
    if (pl.runtime_updates != 0)
      r["runtime"] = {{"updates", pl.runtime_updates},
                      {"workers", topology::format_cpu_list(mask_cpus(pl.runtime_workers))},
                      {"control", topology::format_cpu_list(mask_cpus(pl.runtime_control))}};
    r["publish_count"] = k.publish_count;
    r["last_publish_age_ns"] =
        s.read_monotonic_ns > k.last_publish_ns ? s.read_monotonic_ns - k.last_publish_ns : 0;
    r.update(figures_json(k, nullptr));
    r["counters"] = counters_name(k.counters_status);
    if (const char* ev = event_name(k.counters_event)) r["counters_event"] = ev;
    r["untracked_requests"] = k.untracked_requests;
    r["in_mpi_threads"] = k.in_mpi_threads;
    const Command cmd = decode_command(slot.control.command);
    const Ack ack = decode_ack(slot.control.ack);
    r["command"] = {{"generation", cmd.generation},
                    {"kind", command_kind_name(cmd.kind)},
                    {"cpus", cmd.kind == CommandKind::kBind
                                 ? topology::format_cpu_list(mask_cpus(slot.target.cpus))
                                 : ""}};
    r["ack"] = {
        {"generation", ack.generation}, {"status", ack_status_name(ack.status)}, {"cpu", ack.cpu}};
    r["rebinds_ok"] = slot.control.rebinds_ok;
    r["rebinds_failed"] = slot.control.rebinds_failed;
    json local = json::array();
    for (std::size_t p = 0; p < slot.local_peers.size(); ++p)
      if (!peer_empty(slot.local_peers[p])) {
        json e = peer_json(slot.local_peers[p]);
        e["local_rank"] = p;
        local.push_back(e);
      }
    json remote = json::array();
    for (std::size_t p = 0; p < slot.remote_nodes.size(); ++p)
      if (!peer_empty(slot.remote_nodes[p])) {
        json e = peer_json(slot.remote_nodes[p]);
        e["node_index"] = p;
        remote.push_back(e);
      }
    r["local_peers"] = local;
    r["remote_nodes"] = remote;
    if (previous && previous->slots[i].identity.pid == id.pid) {
      json w = figures_json(k, &previous->slots[i].counters);
      w["duration_ns"] = s.read_monotonic_ns - previous->read_monotonic_ns;
      r["window"] = w;
    }
    ranks.push_back(r);
  }
  j["ranks"] = ranks;
  return j;
}

std::string to_table(const std::vector<const SegmentSnapshot*>& snapshots,
                     const std::vector<const SegmentSnapshot*>& previous) {
  std::string out;
  char line[320];
  std::snprintf(line, sizeof line,
                "%-16s %5s %5s %5s %8s %4s %-9s %6s %10s %10s %10s %9s %9s %11s %s\n", "JOB",
                "NODE", "RANK", "LOCAL", "PID", "CPU", "CPUS", "IDLE%", "COMPUTE_S", "OOSYNC_S",
                "LATE_S", "SENT", "RECV", "CACHE_MISS", "APP");
  out += line;
  for (const SegmentSnapshot* s : snapshots) {
    const SegmentSnapshot* prev = matching(*s, previous);
    for (std::size_t i = 0; i < s->slots.size(); ++i) {
      const SlotSnapshot& slot = s->slots[i];
      if (slot.state() == SlotState::kFree) continue;
      SlotCounters k = slot.counters;
      if (prev && prev->slots.size() == s->slots.size() &&
          prev->slots[i].identity.pid == slot.identity.pid) {
        const SlotCounters& b = prev->slots[i].counters;
        auto sub = [](std::uint64_t a, std::uint64_t c) { return a >= c ? a - c : 0; };
        k.idle_ns = sub(k.idle_ns, b.idle_ns);
        k.compute_ns = sub(k.compute_ns, b.compute_ns);
        k.out_of_sync_ns = sub(k.out_of_sync_ns, b.out_of_sync_ns);
        k.late_sender_ns = sub(k.late_sender_ns, b.late_sender_ns);
        k.bytes_sent = sub(k.bytes_sent, b.bytes_sent);
        k.bytes_recv = sub(k.bytes_recv, b.bytes_recv);
        k.cache_misses = sub(k.cache_misses, b.cache_misses);
      }
      // Without counters (VMs), say why there is no figure rather than print a zero.
      const std::string misses =
          k.counters_status == static_cast<std::uint64_t>(CountersStatus::kAvailable)
              ? std::to_string(k.cache_misses)
              : counters_name(k.counters_status);
      const double idle = 100.0 * idle_share(k.idle_ns, k.compute_ns);
      const std::string cpus = topology::format_cpu_list(mask_cpus(slot.placement.current));
      std::snprintf(line, sizeof line,
                    "%-16s %5" PRIu64 " %5" PRIu64 " %5zu %8" PRIu64 " %4" PRId64
                    " %-9s %6.1f %10s %10s %10s %9s %9s %11s %s%s\n",
                    hex(s->header.job_id).c_str(), s->header.node_id, slot.identity.global_rank, i,
                    slot.identity.pid, slot.identity.cpu, cpus.c_str(), idle,
                    seconds(k.compute_ns).c_str(),
                    seconds(k.out_of_sync_ns).c_str(), seconds(k.late_sender_ns).c_str(),
                    human_bytes(k.bytes_sent).c_str(), human_bytes(k.bytes_recv).c_str(),
                    misses.c_str(), s->header.app_name,
                    slot.state() == SlotState::kFinished ? " (finished)" : "");
      out += line;
    }
  }
  return out + "(CPU: where the rank last published from; CPUS: its set; Linux CPU numbers)\n";
}

}  // namespace symmer::segment
