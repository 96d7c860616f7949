// SPDX-License-Identifier: BSD-3-Clause
// Communicator rank translation (see comm_map.hpp).
#include "comm_map.hpp"

#include <mutex>
#include <new>

#include "handles.hpp"
#include "mpi.hpp"
#include "runtime.hpp"
#include "scratch.hpp"

namespace symmer::shim {

MPI_Comm comm_world;

namespace {

int keyval = MPI_KEYVAL_INVALID;
MPI_Group world_group;
bool ready = false;
std::atomic<std::uint64_t> generation{1};
std::mutex build_mutex;  // only on a thread-cache miss of a new communicator
// Stands for a communicator that could not be translated: every rank is unknown.
CommInfo untranslatable;

// Duplicated communicators translate differently only if their group differs: recompute.
int copy_attr(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int delete_attr(MPI_Comm, int, void* value, void*) {
  generation.fetch_add(1, std::memory_order_acq_rel);
  comm_release(static_cast<CommInfo*>(value));
  return MPI_SUCCESS;
}

CommInfo* build(MPI_Comm comm) noexcept {
  int inter = 0;
  MPI_Group group;
  if (mpi.PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return nullptr;
  if ((inter ? mpi.PMPI_Comm_remote_group(comm, &group) : mpi.PMPI_Comm_group(comm, &group)) !=
      MPI_SUCCESS)
    return nullptr;
  int n = 0;
  mpi.PMPI_Group_size(group, &n);
  auto* info = new (std::nothrow) CommInfo;
  if (info == nullptr) {
    mpi.PMPI_Group_free(&group);
    return nullptr;
  }
  std::vector<int> ranks(n), world(n, MPI_UNDEFINED);
  for (int i = 0; i < n; ++i) ranks[i] = i;
  if (n > 0) mpi.PMPI_Group_translate_ranks(group, n, ranks.data(), world_group, world.data());
  mpi.PMPI_Group_free(&group);
  info->peer.resize(n);
  for (int i = 0; i < n; ++i)
    info->peer[i] = world[i] == MPI_UNDEFINED ? -1 : peer_of_world(world[i]);
  return info;
}

// The communicator's translation, from the thread cache or its attribute (built on first use).
CommInfo* lookup(ThreadState& ts, MPI_Comm comm) noexcept {
  Scratch& s = *ts.scratch;
  const std::uint64_t key = handle_key(comm);
  const std::uint64_t gen = generation.load(std::memory_order_acquire);
  for (const CommCacheEntry& e : s.comm_cache)
    if (e.key == key && e.generation == gen) return e.info;
  if (!ready) return nullptr;
  CommInfo* info = nullptr;
  {
    std::lock_guard lock(build_mutex);
    int found = 0;
    if (mpi.PMPI_Comm_get_attr(comm, keyval, &info, &found) != MPI_SUCCESS) return nullptr;
    if (!found) {
      info = build(comm);
      if (info == nullptr || mpi.PMPI_Comm_set_attr(comm, keyval, info) != MPI_SUCCESS) {
        delete info;
        return nullptr;
      }
    }
  }
  CommCacheEntry& slot = s.comm_cache[s.comm_cache_next++ % std::size(s.comm_cache)];
  slot = {key, gen, info};
  return info;
}

}  // namespace

bool comm_map_init(MPI_Comm world) noexcept {
  comm_world = world;
  if (mpi.PMPI_Comm_group(world, &world_group) != MPI_SUCCESS) return false;
  if (mpi.PMPI_Comm_create_keyval(copy_attr, delete_attr, &keyval, nullptr) != MPI_SUCCESS) {
    mpi.PMPI_Group_free(&world_group);
    return false;
  }
  ready = true;
  return true;
}

void comm_map_shutdown() noexcept {
  if (!ready) return;
  ready = false;
  mpi.PMPI_Comm_free_keyval(&keyval);
  mpi.PMPI_Group_free(&world_group);
}

int comm_peer_other(ThreadState& ts, MPI_Comm comm, int rank) noexcept {
  if (rank < 0) return -1;
  const CommInfo* info = lookup(ts, comm);
  return info ? comm_info_peer(info, rank) : -1;
}

CommInfo* comm_acquire(ThreadState& ts, MPI_Comm comm) noexcept {
  if (comm == comm_world) return nullptr;
  CommInfo* info = lookup(ts, comm);
  if (info == nullptr) return &untranslatable;
  info->refs.fetch_add(1, std::memory_order_relaxed);
  return info;
}

void comm_release(CommInfo* info) noexcept {
  if (info && info != &untranslatable && info->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete info;
}

int comm_info_peer(const CommInfo* info, int rank) noexcept {
  if (rank < 0) return -1;
  if (info == nullptr) return peer_of_world(rank);
  return static_cast<std::size_t>(rank) < info->peer.size() ? info->peer[rank] : -1;
}

}  // namespace symmer::shim
