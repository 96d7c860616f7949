// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Inter-node exchange of node summaries (segment/layout.hpp NodeSummary) between the local
// rank 0s, over private duplicates of their communicator. Progressed only from inside calls
// the application makes (publish_slow), on a thread allowed to call MPI at the application's
// thread level; never from a helper thread.

#include <cstdint>

#include "mpi_include.hpp"

namespace symmer::shim {

struct ThreadState;

/// Leaders of multi-node jobs: sets up the private communicators. False on failure.
bool exchange_init(MPI_Comm leaders) noexcept;

/// Completes a finished exchange (writing the summaries into the segment) and starts the next
/// one when due. Cheap and non-blocking; does nothing on ranks that are not leaders.
void exchange_progress(ThreadState& ts, std::uint64_t now_ticks) noexcept;

/// At MPI_Finalize: brings every leader to the same number of exchanges and completes them.
void exchange_finish() noexcept;

}  // namespace symmer::shim
