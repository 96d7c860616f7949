// SPDX-License-Identifier: BSD-3-Clause
// Window sanity checks and aggregation (see window_sample.hpp).
#include "symmer/analysis/window_sample.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "symmer/topology/node_model.hpp"

namespace symmer::analysis {

const RankWindow* WindowSample::find_local(int local_rank) const {
  for (const auto& r : ranks)
    if (r.local_rank == local_rank) return &r;
  return nullptr;
}

double WindowSample::capability(int key) const {
  const auto core_capability_of = [this](int core) {
    if (core < 0 || static_cast<std::size_t>(core) >= core_capability.size()) return 1.0;
    return core_capability[static_cast<std::size_t>(core)];
  };
  const auto it = places.find(key);
  if (it == places.end() || it->second.cores.size() <= 1) return core_capability_of(key);
  std::vector<double> caps;
  for (int c : it->second.cores) caps.push_back(core_capability_of(c));
  std::sort(caps.begin(), caps.end(), std::greater<>());
  const auto threads = static_cast<std::size_t>(std::max(1, it->second.threads));
  return caps[std::min(threads, caps.size()) - 1];
}

std::vector<int> WindowSample::place_cores(int key) const {
  if (key < 0) return {};
  const auto it = places.find(key);
  return it == places.end() ? std::vector<int>{key} : it->second.cores;
}

std::vector<int> WindowSample::free_places() const {
  std::vector<int> out;
  for (const auto& [key, place] : places)
    if (std::none_of(ranks.begin(), ranks.end(),
                     [k = key](const RankWindow& r) { return r.core == k; }))  // clang 14
      out.push_back(key);
  return out;
}

std::vector<std::string> validate(const WindowSample& w, const topology::NodeModel& node) {
  std::vector<std::string> problems;
  const int ncores = static_cast<int>(node.cores().size());
  const auto bad = [&](const std::string& what) { problems.push_back(what); };

  if (w.duration_ns == 0) bad("window duration is 0");
  if (!w.core_capability.empty() && static_cast<int>(w.core_capability.size()) != ncores)
    bad("core_capability has " + std::to_string(w.core_capability.size()) +
        " entries, the node has " + std::to_string(ncores) + " cores");
  for (std::size_t c = 0; c < w.core_capability.size(); ++c)
    if (!(w.core_capability[c] >= 0.0 && w.core_capability[c] <= 1.0))
      bad("core_capability[" + std::to_string(c) + "] = " + std::to_string(w.core_capability[c]) +
          " is outside [0, 1]");
  if (!(w.capability_resolution >= 0.0 && w.capability_resolution <= 1.0))
    bad("capability_resolution = " + std::to_string(w.capability_resolution) +
        " is outside [0, 1]");
  if (!w.core_ticks.empty() && w.core_ticks.size() != w.core_capability.size())
    bad("core_ticks and core_capability differ in length");
  for (std::size_t c = 0; c < w.core_ticks.size(); ++c)
    if (!(w.core_ticks[c].job >= 0.0 && std::isfinite(w.core_ticks[c].job)))
      bad("core_ticks[" + std::to_string(c) + "].job is not a count of ticks");
  if (!w.core_irq_share.empty() && w.core_irq_share.size() != w.core_capability.size())
    bad("core_irq_share and core_capability differ in length");
  for (std::size_t c = 0; c < w.core_irq_share.size(); ++c)
    if (!(w.core_irq_share[c] >= 0.0 && w.core_irq_share[c] <= 1.0))
      bad("core_irq_share[" + std::to_string(c) + "] is outside [0, 1]");

  for (const auto& [key, place] : w.places) {
    const auto& cs = place.cores;
    if (cs.empty() || cs.front() != key || !std::is_sorted(cs.begin(), cs.end()) ||
        cs.back() >= ncores || cs.front() < 0)
      bad("place " + std::to_string(key) + " is not an ascending list of this node's cores "
          "starting with its key");
  }

  std::set<int> locals;
  std::set<int> globals;
  for (const auto& r : w.ranks) {
    // Counters may run past the window: a phase is credited when it ends (span_ns covers
    // that), a call may end just after the snapshot, and a sampler may be preempted between
    // reading the slots and its clock on a busy machine. Anything far beyond is corruption.
    const double limit =
        static_cast<double>(std::max(w.duration_ns, r.span_ns)) * 1.5 + 1e8;
    const std::string who = "local rank " + std::to_string(r.local_rank);
    if (r.local_rank < 0) bad("a rank has local_rank " + std::to_string(r.local_rank));
    if (!locals.insert(r.local_rank).second) bad(who + " appears twice");
    if (r.global_rank < 0) bad(who + ": global_rank " + std::to_string(r.global_rank));
    if (!globals.insert(r.global_rank).second)
      bad("global rank " + std::to_string(r.global_rank) + " appears twice");
    if (r.pid <= 0) bad(who + ": pid " + std::to_string(r.pid));
    if (r.core < -1 || r.core >= ncores)
      bad(who + ": core " + std::to_string(r.core) + " is not a core of this node (0.." +
          std::to_string(ncores - 1) + ")");
    if (r.core >= 0 && !w.places.empty() && w.places.count(r.core) == 0)
      bad(who + ": place " + std::to_string(r.core) + " is not among the window's places");
    for (int c : r.cores)
      if (c < 0 || c >= ncores) bad(who + ": its set holds core " + std::to_string(c));
    if (static_cast<double>(r.idle_ns) + static_cast<double>(r.compute_ns) > limit)
      bad(who + ": idle + compute time exceeds the window");
    if (static_cast<double>(r.silent_ns) > limit) bad(who + ": silent time exceeds the window");
    if (static_cast<double>(r.outofsync_compute_ns) > limit)
      bad(who + ": out-of-sync compute time exceeds the window");
    if (static_cast<double>(r.blocking_send_wait_ns) > limit)
      bad(who + ": blocking send wait exceeds the window");
    for (const auto& [peer, ns] : r.late_sender_wait_local) {
      if (peer < 0 || peer == r.local_rank)
        bad(who + ": late-sender wait on invalid local peer " + std::to_string(peer));
      if (static_cast<double>(ns) > limit) bad(who + ": late-sender wait exceeds the window");
    }
    for (const auto& [remote, ns] : r.late_sender_wait_node) {
      if (remote < 0) bad(who + ": late-sender wait on invalid node " + std::to_string(remote));
      if (static_cast<double>(ns) > limit) bad(who + ": late-sender wait exceeds the window");
    }
    for (const auto& [peer, bytes] : r.bytes_to_local) {
      (void)bytes;
      if (peer < 0 || peer == r.local_rank)
        bad(who + ": bytes to invalid local peer " + std::to_string(peer));
    }
    for (const auto& [remote, bytes] : r.bytes_to_node) {
      (void)bytes;
      if (remote < 0) bad(who + ": bytes to invalid node " + std::to_string(remote));
    }
  }
  return problems;
}

WindowSample aggregate(std::span<const WindowSample> windows) {
  WindowSample out;
  if (windows.empty()) return out;
  out.start_ns = windows.front().start_ns;
  std::vector<double> cap_weight;
  double resolution_weight = 0.0;
  bool ticked = true;          // every window with capabilities has their ticks
  double ticks_of_span = 0.0;  // one CPU's ticks in the span: 1 / resolution of each window
  std::map<int, RankWindow> by_local;
  for (const auto& w : windows) {
    out.duration_ns += w.duration_ns;
    const double d = static_cast<double>(w.duration_ns);
    if (!w.core_capability.empty()) {
      out.capability_resolution += w.capability_resolution * d;
      resolution_weight += d;
      ticked = ticked && w.core_ticks.size() == w.core_capability.size();
      if (w.capability_resolution > 0) ticks_of_span += 1.0 / w.capability_resolution;
    }
    if (w.core_capability.size() > out.core_capability.size()) {
      out.core_capability.resize(w.core_capability.size(), 0.0);
      cap_weight.resize(w.core_capability.size(), 0.0);
    }
    for (std::size_t c = 0; c < w.core_capability.size(); ++c) {
      out.core_capability[c] += w.core_capability[c] * d;
      cap_weight[c] += d;
    }
    if (w.core_ticks.size() > out.core_ticks.size()) out.core_ticks.resize(w.core_ticks.size());
    for (std::size_t c = 0; c < w.core_ticks.size(); ++c) out.core_ticks[c] += w.core_ticks[c];
    if (w.core_irq_share.size() > out.core_irq_share.size())
      out.core_irq_share.resize(w.core_irq_share.size(), 0.0);
    for (std::size_t c = 0; c < w.core_irq_share.size(); ++c)
      out.core_irq_share[c] += w.core_irq_share[c] * d;

    for (const auto& r : w.ranks) {
      auto [it, fresh] = by_local.try_emplace(r.local_rank, r);
      if (fresh) continue;
      RankWindow& s = it->second;
      s.global_rank = r.global_rank;
      s.pid = r.pid;
      s.core = r.core;
      s.cores = r.cores;
      s.idle_ns += r.idle_ns;
      s.compute_ns += r.compute_ns;
      s.silent_ns += r.silent_ns;
      s.outofsync_compute_ns += r.outofsync_compute_ns;
      s.blocking_send_wait_ns += r.blocking_send_wait_ns;
      for (const auto& [k, v] : r.late_sender_wait_local) s.late_sender_wait_local[k] += v;
      for (const auto& [k, v] : r.late_sender_wait_node) s.late_sender_wait_node[k] += v;
      for (const auto& [k, v] : r.bytes_to_local) s.bytes_to_local[k] += v;
      for (const auto& [k, v] : r.bytes_to_node) s.bytes_to_node[k] += v;
      if (s.cache_misses && r.cache_misses)
        *s.cache_misses += *r.cache_misses;
      else
        s.cache_misses.reset();  // a total over part of the span would mislead
      s.calls += r.calls;
      s.span_ns += r.span_ns;
    }
  }
  if (ticked) {
    for (std::size_t c = 0; c < out.core_capability.size(); ++c)
      out.core_capability[c] = topology::capability_of(out.core_ticks[c]);
    out.capability_resolution = ticks_of_span > 0 ? 1.0 / ticks_of_span : 0.0;
  } else {
    out.core_ticks.clear();
    for (std::size_t c = 0; c < out.core_capability.size(); ++c)
      out.core_capability[c] = cap_weight[c] > 0 ? out.core_capability[c] / cap_weight[c] : 1.0;
    if (resolution_weight > 0) out.capability_resolution /= resolution_weight;
  }
  const double total = static_cast<double>(out.duration_ns);
  for (auto& s : out.core_irq_share) s = total > 0 ? s / total : 0.0;
  for (auto& [local, r] : by_local) out.ranks.push_back(std::move(r));
  out.places = windows.back().places;  // where the ranks are now
  out.domain = windows.back().domain;
  return out;
}

bool mapping_changed(const WindowSample& before, const WindowSample& after) {
  if (before.ranks.size() != after.ranks.size()) return true;
  for (const auto& r : after.ranks) {
    const RankWindow* b = before.find_local(r.local_rank);
    if (b == nullptr || b->pid != r.pid || b->core != r.core || b->cores != r.cores) return true;
  }
  return false;
}

}  // namespace symmer::analysis
