// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The analyzer's input: what every local rank of one job did during one sampling window, and
// what each core of the node could give the job during it.
//
// The node segment keeps cumulative counters per rank; the analyzer subtracts two snapshots to
// get a window. Everything here is already a delta. A window is untrusted input (it comes from
// shared memory other processes write): validate() it before any metric sees it.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "symmer/analysis/placement.hpp"
#include "symmer/topology/core_load.hpp"

namespace symmer::topology {
class NodeModel;
}

namespace symmer::analysis {

/// One local rank's activity during one window. Durations are nanoseconds of wall time.
struct RankWindow {
  int global_rank = -1;  ///< rank in MPI_COMM_WORLD
  int local_rank = -1;   ///< index of the rank's slot on this node, 0..ranks-1
  int pid = 0;           ///< process id (liveness checks, page migration)
  /// Its place (placement.hpp): the lowest logical core of the set it is bound to, which is
  /// its core when the set is one core; -1 when unknown or not placed (a floating hybrid rank).
  int core = -1;
  /// Logical cores of its whole CPU set now (a floating rank's whole launch set), ascending.
  std::vector<int> cores;

  std::uint64_t idle_ns = 0;     ///< inside blocking MPI calls (waiting)
  std::uint64_t compute_ns = 0;  ///< between MPI calls
  /// Time the rank spent without publishing beyond two publish periods: it made no MPI call,
  /// so it computed or waited in one long call. Not yet in idle_ns or compute_ns; the window
  /// the phase ends in credits it there.
  std::uint64_t silent_ns = 0;
  /// Compute time while the rank's own sends were still incomplete (pending nonblocking
  /// sends, sends above the eager limit): the sender side of out-of-sync communication.
  std::uint64_t outofsync_compute_ns = 0;
  std::uint64_t blocking_send_wait_ns = 0;  ///< inside blocking sends waiting for the receiver
  /// Receiver side of out-of-sync communication: time waited for a message, by the local
  /// rank of the late sender (MPI_SOURCE of the completed receive, when on this node) ...
  std::map<int, std::uint64_t> late_sender_wait_local;
  /// ... and by remote node index, when the late sender runs on another node.
  std::map<int, std::uint64_t> late_sender_wait_node;
  std::map<int, std::uint64_t> bytes_to_local;  ///< bytes sent, by peer local rank
  std::map<int, std::uint64_t> bytes_to_node;   ///< bytes sent off-node, by remote node id
  std::optional<std::uint64_t> cache_misses;    ///< last-level misses; nullopt: no counters
  std::uint64_t calls = 0;                      ///< MPI calls completed in the window
  /// Time between the rank's last publishes before and at the window's end: the span its
  /// counter deltas cover. A long compute phase or call is credited when it ends, so this may
  /// exceed the window (and then idle + compute may too) without anything being wrong.
  std::uint64_t span_ns = 0;
};

/// All local ranks of one job during one window, plus the cores' capability.
struct WindowSample {
  std::uint64_t start_ns = 0;     ///< CLOCK_MONOTONIC at the window's start
  std::uint64_t duration_ns = 0;  ///< window length
  std::vector<RankWindow> ranks;  ///< one entry per live local rank, any order
  /// Effective capability of each logical core during the window: the share of the core left
  /// to the job after interrupts, soft-irqs, steal and foreign processes, in [0, 1].
  std::vector<double> core_capability;
  /// Per logical core, the /proc clock ticks `core_capability` was read from; empty in windows
  /// made without them (by hand).
  std::vector<topology::CoreTicks> core_ticks;
  /// How far apart two cores' capabilities may read while being equal: a reading is a ratio of
  /// /proc clock ticks, right to about one tick of the span it covers (1 / (ticks per second x
  /// span)). 0: exact figures.
  double capability_resolution = 0.0;
  /// Optional, per logical core: share taken by interrupt and soft-irq processing, in [0, 1]
  /// (locates the protocol-processing core). Empty when unknown.
  std::vector<double> core_irq_share;
  /// The job's places by key: every rank's, and free ones of the ranks' sizes in its domain.
  /// A key missing here is a one-core place (windows built without placement, tests).
  std::map<int, Place> places;
  /// Logical cores placements may use (the job's domain); empty: every core of the node.
  std::vector<int> domain;

  double duration_s() const { return static_cast<double>(duration_ns) * 1e-9; }
  /// The entry of local rank `local_rank`, or nullptr.
  const RankWindow* find_local(int local_rank) const;
  /// Capability of place `key`: for a one-core place its core's; for a wider place the
  /// capability of its `threads`-th best core (the slowest thread of a parallel region sets
  /// the pace). 1.0 when unknown (-1) or not covered.
  double capability(int key) const;
  /// The logical cores of place `key` ({key} when it is not in `places`; empty for -1).
  std::vector<int> place_cores(int key) const;
  /// Places no rank is on, ascending by key.
  std::vector<int> free_places() const;
};

/// Problems that make a window unusable, each naming the field and rank at fault (duplicate
/// local ranks, cores outside the model, capabilities outside [0, 1], times longer than the
/// window, a peer index out of range). Empty when the window is sound.
std::vector<std::string> validate(const WindowSample& window, const topology::NodeModel& node);

/// The sum of consecutive windows (oldest first) as one window: counters add up, durations
/// add up, pid/core come from the newest window. Capabilities are read once from the windows'
/// summed ticks, so their rounding cancels and the resolution is one tick of the whole span;
/// windows without ticks give duration-weighted means of their readings and resolutions (each
/// reading was clamped to [0, 1] on its own, so their errors need not cancel).
/// Ranks missing from some windows are summed over the windows they appear in. Empty input
/// gives an empty window.
WindowSample aggregate(std::span<const WindowSample> windows);

/// True when ranks, pids or CPU sets differ between the two windows (the mapping changed,
/// so evidence from before no longer describes the job).
bool mapping_changed(const WindowSample& before, const WindowSample& after);

}  // namespace symmer::analysis
