// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The rank's CPU sets: what it was launched on, where it is bound now, and the CPUs of a
// runtime inside it (TSAR, through symmer_rank.h). No mpi.h here.

#include <cstdint>
#include <vector>

#include "symmer/segment/layout.hpp"

namespace symmer::shim {

/// The CPUs the process was launched on: the affinity of its threads at MPI_Init, widened by
/// the OpenMP places of its runtime when OMP_PLACES or OMP_PROC_BIND asked the runtime to bind
/// (it binds the initial thread to the first place before main). Sorted; empty when unknown.
std::vector<int> launch_cpus();

/// The first level of OMP_NUM_THREADS ("4" or "4,2" -> 4); 0 when unset or malformed.
std::uint64_t omp_num_threads();

/// Moves every thread of the process (but `skip_tid`, the embedded analyzer) from set `from`
/// to set `to` (both sorted), each to its relative place (topology::map_relative). All or
/// nothing: when a thread cannot move, the threads already moved go back. Returns kOk,
/// kInvalidCpu (empty set, CPU this node lacks), kNotAllowed (outside the cpuset) or kFailed.
segment::AckStatus move_all_threads(const std::vector<int>& from, const std::vector<int>& to,
                                    long skip_tid) noexcept;

}  // namespace symmer::shim
