// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where a job's ranks run, as the analysis plans with it.
//
// A rank is the set of CPUs it was launched on (segment/layout.hpp SlotPlacement), seen here
// as the logical cores those CPUs belong to: its *place*. A place is named by its lowest
// logical core (its key), so a one-core rank's key is its core and everything that speaks of
// a rank's "core" speaks of its place. Moves exchange places of equal size or move a rank to a
// free place of its size; the rank's threads keep their relative positions in it.
//
// The job's domain is the union of the cores of its ranks' launch sets (the model itself is
// already limited to the process's cgroup cpuset): free places are carved from the domain's
// cores no rank holds, so no placement leaves it unless the user widens it (Domain::kNode).
//
// Ranks whose sets overlap another rank's (launched unbound: mpiexec -bind-to none, Open MPI's
// --bind-to socket) float: a single-threaded one's place is the core it was last seen on, one
// core wide (symmer may pin it there or elsewhere in the domain); one with several compute
// threads has no place and is never moved (nothing says which cores its threads use).

#include <map>
#include <span>
#include <string>
#include <vector>

#include "symmer/expected.hpp"

namespace symmer::topology {
class NodeModel;
}

namespace symmer::analysis {

/// Where placements may go.
enum class Domain {
  kJob,   ///< the cores of the ranks' launch sets (default)
  kNode,  ///< every core of the node the job may use (its cgroup cpuset)
};

/// "job" -> kJob, "node" -> kNode; kInvalidArgument for anything else.
Expected<Domain> parse_domain(const std::string& text);
const char* to_string(Domain domain);

/// The CPU sets of one rank, as the node segment gives them (Linux CPU numbers).
struct RankCpus {
  int local_rank = -1;
  std::vector<int> current;  ///< bound now
  std::vector<int> launch;   ///< as launched
  std::vector<int> runtime_control;  ///< GPU control cores of a runtime inside it (TSAR)
  int last_cpu = -1;         ///< CPU it last published from
  int compute_threads = 0;   ///< OMP_NUM_THREADS, 0 unknown
};

/// A place: logical cores, ascending; cores.front() is its key.
struct Place {
  std::vector<int> cores;
  /// How many of its cores the rank's threads keep busy: its capability is that many-th best
  /// core's (the slowest thread sets the pace of a parallel region).
  int threads = 1;
  bool operator==(const Place&) const = default;
};

/// The job's places.
struct JobPlacement {
  std::map<int, Place> places;      ///< key -> place: every rank's, then free ones
  std::map<int, int> rank_place;    ///< local rank -> key of its place (known ranks only)
  std::vector<int> domain;          ///< logical cores placements may use, ascending
  std::vector<int> control_cores;   ///< logical cores holding runtime GPU control threads
};

/// The places of `ranks` on `node`. Free places are carved from the domain's cores that no
/// rank holds (and no runtime's control cores), for every place size a rank has: runs of
/// consecutive cores of one NUMA node.
JobPlacement job_placement(std::span<const RankCpus> ranks, const topology::NodeModel& node,
                           Domain domain);

/// The Linux CPUs a rank bound to `current` goes to when its place moves to the logical cores
/// `to`: the i-th core of its place maps to the i-th of `to`, each CPU to the hardware thread
/// at the same position in its core; a rank that used more cores than `to` has (it floated)
/// gets all hardware threads of `to`. Empty when `to` names a core the model lacks.
std::vector<int> target_cpus(std::span<const int> current, std::span<const int> to,
                             const topology::NodeModel& node);

/// The logical cores of Linux CPUs `cpus` (CPUs outside the model left out), ascending.
std::vector<int> cores_of_cpus(std::span<const int> cpus, const topology::NodeModel& node);

}  // namespace symmer::analysis
