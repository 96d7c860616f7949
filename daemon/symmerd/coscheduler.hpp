// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Node-level placement across jobs: each job's own analyzer moves its ranks among the cores
// it is allowed; this places ranks with every job's ranks in view.
//
//   - Two ranks bound to one core (of one job or of two) are separated: the rank of the job
//     adopted first keeps the core, the others go to free cores.
//   - Cores reserved for GPU-driving threads (a TSAR process registered them) hold no rank.
//   - A communication-heavy rank (off-node traffic above nic_bytes_per_s) goes to a core near
//     the NIC's interrupt cores (sharing a cache with one) only when the model says it gains:
//     its compute at the target's capability plus its wait, reduced by nic_wait_saving near
//     the NIC, must beat its current time by min_gain.
//   - Otherwise a rank goes to the free core where the same model predicts the least time.
// The model: a rank's compute demand is its compute time times the share of a core it got;
// on another core it computes demand / that core's capability; its MPI wait stays (scaled
// near the NIC as above).
// Each job gets the cores it may use in its own planning: the usable ones, minus reserved
// ones, minus those other jobs' ranks are bound to.

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "symmer/topology/node_model.hpp"

namespace symmer::daemon {

/// One live rank of a managed job, as the coscheduler sees it.
struct PlacedRank {
  std::string job;  ///< job key (segment file name)
  uid_t owner_uid = 0;
  int local_rank = -1;
  int pid = 0;
  int core = -1;         ///< logical core the rank is bound to; -1 when not bound to one core
  int order = 0;         ///< adoption order of its job (earlier jobs keep their cores)
  bool movable = false;  ///< its job may be moved now (managed, not paused, idle, not held)
  double window_s = 0;   ///< latest window of evidence (0: none yet)
  double compute_s = 0;  ///< compute time in that window
  double idle_s = 0;     ///< time waiting in MPI in that window
  double offnode_bytes_per_s = 0;
  /// Share of a core the rank's process got in the window (its CPU time / window); 0 when
  /// unknown (then its core's capability split among the ranks bound there).
  double cpu_share = 0;
};

/// Cores a process registered as driving GPUs (TSAR): no rank may be placed there.
struct CoreReservation {
  std::vector<int> cores;  ///< logical cores
  pid_t pid = 0;           ///< the registering process; the reservation ends with it
  uid_t uid = 0;           ///< its user
  bool all_jobs = false;   ///< made by root/the daemon's user: binds every job, else its user's
  std::string reason;
};

struct NodeState {
  std::vector<int> usable;  ///< logical cores ranks may be placed on
  /// Per logical core, in [0, 1]: the share of the core a rank placed there would get (what
  /// interrupts and steal leave, with busy foreign processes sharing the rest fairly); empty
  /// or short: 1.
  std::vector<double> capability;
  std::set<int> nic_irq_cores;  ///< logical cores handling the NICs' interrupts
  std::vector<CoreReservation> reservations;
};

struct CoscheduleOptions {
  double min_gain = 0.05;
  double nic_bytes_per_s = 32.0 * 1024 * 1024;
  double nic_wait_saving = 0.10;
};

/// One move the coscheduler wants, with why.
struct CoscheduleMove {
  std::string job;
  int local_rank = -1;
  int pid = 0;
  int from_core = -1;
  int to_core = -1;
  double gain = 0;  ///< predicted share of the rank's time saved
  std::string reason;
  nlohmann::json evidence;
};

struct CoscheduleResult {
  std::vector<CoscheduleMove> moves;
  std::vector<std::string> notes;  ///< conflicts it could not or would not resolve, and why
};

/// Whether logical core `core` is reserved for jobs of `owner`.
bool reserved_for(const NodeState& state, int core, uid_t owner);

/// Cores near the NIC: those sharing a cache (the smallest shared by more than one core) with
/// a NIC interrupt core, and the interrupt cores themselves.
std::set<int> cores_near_nic(const topology::NodeModel& node, const std::set<int>& irq_cores);

/// The moves that resolve shared and reserved cores and bring communication-heavy ranks near
/// the NIC where they gain.
CoscheduleResult coschedule(const topology::NodeModel& node, const NodeState& state,
                            const std::vector<PlacedRank>& ranks, const CoscheduleOptions& options);

/// The cores job `job` (owned by `owner`) may use in its own planning.
std::vector<int> allowed_cores(const NodeState& state, const std::vector<PlacedRank>& ranks,
                               const std::string& job, uid_t owner);

}  // namespace symmer::daemon
