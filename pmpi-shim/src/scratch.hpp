// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Per-thread working memory of the typed hooks. Buffers only grow (to the largest request
// array a thread has completed), so steady-state calls never allocate.

#include <cstdint>
#include <vector>

#include "comm_map.hpp"
#include "mpi_include.hpp"
#include "request_table.hpp"

namespace symmer::shim {

/// A request of the call being completed, as it was before the real call.
struct CompletionEntry {
  std::int64_t index = -1;  ///< request table entry, -1: not tracked
  std::uint64_t key = 0;
  std::uint64_t serial = 0;
  RequestInfo info;
};

struct CommCacheEntry {
  std::uint64_t key = 0;
  std::uint64_t generation = 0;
  CommInfo* info = nullptr;
};

struct Scratch {
  MPI_Status status;                        ///< stands in for MPI_STATUS_IGNORE
  std::vector<MPI_Status> statuses;         ///< stands in for MPI_STATUSES_IGNORE
  std::vector<CompletionEntry> completing;  ///< before_complete's view of the call's requests
  int completing_count = 0;
  bool completing_recv = false;          ///< a tracked receive is among them
  std::vector<std::int32_t> wait_peers;  ///< peers the current completion waited for
  CommCacheEntry comm_cache[8];
  unsigned comm_cache_next = 0;
  MPI_Comm mprobe_comm;  ///< communicator of the last (I)Mprobe
  bool have_mprobe_comm = false;
  // Fortran bindings: C copies of Fortran arguments.
  std::vector<MPI_Request> fortran_requests;
  std::vector<MPI_Status> fortran_statuses;
  std::vector<int> fortran_indices;
  std::vector<MPI_Fint> fortran_status_store;  ///< for MPI_F_STATUSES_IGNORE
};

}  // namespace symmer::shim
