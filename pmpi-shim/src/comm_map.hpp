// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Communicator rank -> peer entry (local rank on this node, or remote node bucket).
//
// MPI_COMM_WORLD is the fast path (a table lookup). Other communicators get their group
// translated to MPI_COMM_WORLD ranks once (PMPI_Group_translate_ranks), kept as an MPI
// attribute of the communicator (freed with it through the delete callback) and cached per
// thread; a global generation bumped by every delete invalidates the thread caches.

#include <atomic>
#include <cstdint>
#include <vector>

#include "mpi_include.hpp"
#include "runtime.hpp"

namespace symmer::shim {

/// Translation of one communicator's ranks (its remote group for intercommunicators).
struct CommInfo {
  std::atomic<int> refs{1};        ///< the attribute + requests still using it
  std::vector<std::int32_t> peer;  ///< comm rank -> peer entry, -1 unknown
};

/// Creates the attribute keyval. Returns false when the MPI refuses.
bool comm_map_init(MPI_Comm world) noexcept;
/// Frees the keyval (before MPI_Finalize).
void comm_map_shutdown() noexcept;

/// MPI_COMM_WORLD, set by comm_map_init.
extern MPI_Comm comm_world __attribute__((visibility("hidden")));

/// comm_peer for communicators other than MPI_COMM_WORLD.
int comm_peer_other(ThreadState& ts, MPI_Comm comm, int rank) noexcept;

/// Peer entry of rank `rank` of `comm`; -1 for MPI_PROC_NULL, MPI_ANY_SOURCE, ranks outside
/// the job or anything unknown.
inline int comm_peer(ThreadState& ts, MPI_Comm comm, int rank) noexcept {
  if (__builtin_expect(comm == comm_world, 1)) return peer_of_world(rank);
  return comm_peer_other(ts, comm, rank);
}

/// The translation of `comm` with a reference taken (for a request that completes later);
/// null for MPI_COMM_WORLD (which needs none), a shared "all unknown" translation when the
/// communicator cannot be translated. Release with comm_release.
CommInfo* comm_acquire(ThreadState& ts, MPI_Comm comm) noexcept;
void comm_release(CommInfo* info) noexcept;

/// Peer entry of `rank` through an acquired translation (null: MPI_COMM_WORLD).
int comm_info_peer(const CommInfo* info, int rank) noexcept;

}  // namespace symmer::shim
