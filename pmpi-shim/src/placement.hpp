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

/// The threads the rank computes with: its OpenMP runtime's omp_get_max_threads() when the
/// application has one (it honours OMP_NUM_THREADS and the affinity mask), else the first
/// level of OMP_NUM_THREADS ("4" or "4,2" -> 4); 0 when neither says.
std::uint64_t compute_threads();

/// Moves every thread of the process (but `skip_tid`, the embedded analyzer) from set `from`
/// to set `to` (both sorted), each to its relative place (topology::move_process_threads;
/// threads the analyzer already bound inside `to` stay). All or nothing: when a thread cannot
/// move, the threads already moved go back. Returns kOk, kInvalidCpu (empty set, CPU this
/// node lacks), kNotAllowed (outside the cpuset) or kFailed.
segment::AckStatus move_all_threads(const std::vector<int>& from, const std::vector<int>& to,
                                    long skip_tid) noexcept;

}  // namespace symmer::shim
