// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Message sizes on the per-call path, without calling into MPI where that can be avoided
// (MPICH's PMPI_Type_size and PMPI_Get_count cost 20-50 ns each, more than the rest of a
// wrapper):
// - the sizes of the predefined datatypes are fixed for the whole job: they are read once at
//   MPI_Init into a small read-only table; derived datatypes are still asked for theirs;
// - MPICH keeps a status's byte count in count_lo / count_hi_and_cancelled, part of its stable
//   ABI (mpif.h mirrors the layout); other MPIs are asked through PMPI_Get_count.

#include <cstdint>

#include "mpi_include.hpp"

namespace symmer::shim {

/// Reads the predefined datatypes' sizes (MPI_Init, after the real call, before monitoring).
void message_size_init() noexcept;

/// Bytes of `count` elements of `datatype`; 0 for count <= 0 or a datatype MPI refuses.
std::uint64_t datatype_bytes(MPI_Datatype datatype, long long count) noexcept;

/// Bytes a completed receive brought, from its status.
std::uint64_t received_bytes(const MPI_Status* status) noexcept;

}  // namespace symmer::shim
