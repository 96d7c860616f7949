// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A small, explicit model of an MPI job on a node, used as the independent reference in the
// analyzer's tests: ranks in pairs exchange every iteration and compute in between; a pair
// advances at the pace of its slower member (or, out of sync, at the sum of both compute
// phases). It produces the WindowSample the node segment would show for a mapping.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "symmer/analysis/window_sample.hpp"

namespace symmer::analysis::testing {

struct SyntheticJob {
  std::vector<double> demand;      ///< compute per iteration (s on a full core), per local rank
  std::vector<int> partner;        ///< local rank it exchanges with, per local rank
  std::vector<int> core;           ///< current logical core (place key), per local rank
  std::vector<double> capability;  ///< per logical core
  /// Places of several cores (hybrid ranks: key -> logical cores, every thread busy); empty:
  /// each rank on one core. Every place is listed, free ones too.
  std::map<int, std::vector<int>> places;
  /// The job's domain (logical cores); empty: the window does not say (every core).
  std::vector<int> domain;
  /// Slowdown per core that capability does not show (cache thrash, SMT sibling): a rank
  /// there computes this many times slower. Used to make a move hurt.
  std::map<int, double> hidden_slowdown;
  double comm_s = 0.0005;          ///< exchange cost per iteration
  std::uint64_t bytes = 0;         ///< bytes sent to the partner per iteration
  std::uint64_t remote_bytes = 0;  ///< bytes sent off-node per iteration, per rank
  bool outofsync = false;          ///< sends buffered while computing (above eager limit)
  bool collective = false;         ///< every iteration ends in a collective over all ranks
  std::optional<std::uint64_t> cache_misses;  ///< per rank per window, when counters exist

  int ranks() const { return static_cast<int>(demand.size()); }

  /// A place's pace: its slowest core's capability (every thread of the rank busy).
  double place_capability(int key) const {
    const auto p = places.find(key);
    if (p == places.end()) return capability[key];
    double cap = 1.0;
    for (int c : p->second) cap = std::min(cap, capability[c]);
    return cap;
  }

  double compute_time(int r) const {
    const int c = core[r];
    int sharers = 0;
    for (int x : core) sharers += x == c ? 1 : 0;
    const double cap = std::max(0.05, place_capability(c) / sharers);
    const auto h = hidden_slowdown.find(c);
    return demand[r] / cap * (h == hidden_slowdown.end() ? 1.0 : h->second);
  }

  /// Iteration time of rank r's pair (of the whole job with a collective every iteration).
  double iteration(int r) const {
    if (collective) {
      double t = 0;
      for (int x = 0; x < ranks(); ++x) t = std::max(t, compute_time(x));
      return t + comm_s;
    }
    const int p = partner[r];
    if (p < 0) return compute_time(r) + comm_s;
    if (desynchronised(r)) return compute_time(r) + compute_time(p) + comm_s;
    return std::max(compute_time(r), compute_time(p)) + comm_s;
  }

  bool desynchronised(int r) const {
    const int p = partner[r];
    return outofsync && p >= 0 &&
           std::abs(place_capability(core[r]) - place_capability(core[p])) > 0.05;
  }

  /// Seconds the job needs for `iterations` iterations (its slowest pair).
  double runtime(int iterations) const {
    double t = 0;
    for (int r = 0; r < ranks(); ++r) t = std::max(t, iteration(r) * iterations);
    return t;
  }

  WindowSample window(double seconds, std::uint64_t start_ns) const {
    WindowSample w;
    w.start_ns = start_ns;
    w.duration_ns = static_cast<std::uint64_t>(seconds * 1e9);
    w.core_capability = capability;
    for (const auto& [key, cores] : places)
      w.places[key] = Place{cores, static_cast<int>(cores.size())};
    w.domain = domain;
    const auto ns = [](double s) { return static_cast<std::uint64_t>(std::llround(s * 1e9)); };
    for (int r = 0; r < ranks(); ++r) {
      RankWindow rw;
      rw.global_rank = r;
      rw.local_rank = r;
      rw.pid = 1000 + r;
      rw.core = core[r];
      rw.cores = places.count(core[r]) != 0 ? places.at(core[r]) : std::vector<int>{core[r]};
      const double t = iteration(r);
      const double n = seconds / t;  // iterations in the window
      const double c = compute_time(r);
      rw.compute_ns = ns(n * c);
      rw.idle_ns = ns(n * (t - c));
      // Calls completed by the window's end minus those by its start: consecutive windows
      // (start_ns = job time) add up to the right count however they cut iterations.
      const double start = static_cast<double>(start_ns) * 1e-9;
      rw.calls = static_cast<std::uint64_t>(
          std::max(0LL, std::llround(2 * (start + seconds) / t) - std::llround(2 * start / t)));
      const int p = partner[r];
      if (p >= 0) {
        if (bytes > 0)
          rw.bytes_to_local[p] = static_cast<std::uint64_t>(n * static_cast<double>(bytes));
        if (desynchronised(r)) {
          // The faster rank computes with its send pending; the slower one waits for it.
          if (compute_time(r) < compute_time(p))
            rw.outofsync_compute_ns = ns(n * c);
          else
            rw.late_sender_wait_local[p] = ns(n * compute_time(p));
        }
      }
      if (remote_bytes > 0)
        rw.bytes_to_node[1] = static_cast<std::uint64_t>(n * static_cast<double>(remote_bytes));
      rw.cache_misses = cache_misses;
      w.ranks.push_back(std::move(rw));
    }
    return w;
  }
};

/// Reads windows' capabilities as window_between does from /proc: per core, busy and idle clock
/// ticks and the job's CPU time are counters read in whole ticks (100 a second) at each window's
/// ends, a few ms off its edges. A core with a rank is busy throughout (ranks busy-poll) and
/// the job gets its capability's share of it; a free core is busy for the rest of its
/// capability. Consecutive windows' ticks add up to the span's, as the real counters' do.
class TickReader {
 public:
  static constexpr double kHz = 100;

  explicit TickReader(unsigned seed) : rng_(seed) {}

  /// Replaces `w`'s capabilities (of one-core places) by their readings and ticks.
  void read(WindowSample& w) {
    std::uniform_real_distribution<double> jitter(-0.003, 0.003), phase(0.0, 1.0);
    const double end = static_cast<double>(w.start_ns + w.duration_ns) * 1e-9 + jitter(rng_);
    if (counters_.empty()) last_read_ = static_cast<double>(w.start_ns) * 1e-9 + jitter(rng_);
    while (counters_.size() < w.core_capability.size())
      counters_.push_back({phase(rng_), phase(rng_), phase(rng_)});
    const double elapsed = kHz * (end - last_read_);
    last_read_ = end;
    // Whole ticks a counter at `at` gains when it grows by `by`.
    const auto advance = [](double& at, double by) {
      const double before = std::floor(at);
      at += by;
      return static_cast<std::uint64_t>(std::floor(at) - before);
    };
    w.core_ticks.assign(w.core_capability.size(), {});
    for (std::size_t c = 0; c < w.core_capability.size(); ++c) {
      const double cap = w.core_capability[c];
      const bool taken = std::any_of(w.ranks.begin(), w.ranks.end(), [&](const RankWindow& r) {
        return r.core == static_cast<int>(c);
      });
      Counters& k = counters_[c];
      topology::CoreTicks& t = w.core_ticks[c];
      t.busy = advance(k.busy, taken ? elapsed : elapsed * (1.0 - cap));
      t.idle = advance(k.idle, taken ? 0.0 : elapsed * cap);
      t.job = static_cast<double>(advance(k.job, taken ? elapsed * cap : 0.0));
      w.core_capability[c] = topology::capability_of(t);
    }
    w.capability_resolution = 1.0 / (kHz * w.duration_s());
  }

 private:
  struct Counters {
    double busy, idle, job;
  };
  std::mt19937 rng_;
  std::vector<Counters> counters_;
  double last_read_ = 0;
};

/// Pairs (0,1), (2,3), ... with the given demands, rank i on core i.
inline SyntheticJob paired_job(std::vector<double> demand, std::vector<double> capability) {
  SyntheticJob job;
  job.demand = std::move(demand);
  job.capability = std::move(capability);
  for (int r = 0; r < job.ranks(); ++r) {
    job.partner.push_back(r ^ 1);
    job.core.push_back(r);
  }
  if (job.ranks() % 2 == 1) job.partner.back() = -1;
  return job;
}

}  // namespace symmer::analysis::testing
