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

#include "handles.hpp"
#include "mpi_include.hpp"

namespace symmer::shim {

/// Reads the predefined datatypes' sizes (MPI_Init, after the real call, before monitoring).
void message_size_init() noexcept;

namespace type_sizes {
// Open addressing over the handles' bits; a key of 0 marks a free entry (no valid handle is
// 0 in either MPI's encoding). Written only by message_size_init, before any reader.
struct Entry {
  std::uint64_t key = 0;
  std::uint64_t size = 0;
};
inline constexpr std::uint64_t kEntries = 128;
extern Entry table[kEntries] __attribute__((visibility("hidden")));
inline std::uint64_t slot_of(std::uint64_t key) noexcept {
  return (key * 0x9E3779B97F4A7C15ull) >> 57;  // 7 bits: kEntries
}
}  // namespace type_sizes

/// datatype_bytes past its first probe: collisions, derived datatypes, counts <= 0.
std::uint64_t datatype_bytes_slow(MPI_Datatype datatype, long long count) noexcept;

/// The size of `datatype` when it is a predefined one found at the first probe.
inline bool predefined_size(MPI_Datatype datatype, std::uint64_t& size) noexcept {
  const std::uint64_t key = handle_key(datatype);
  const type_sizes::Entry& e = type_sizes::table[type_sizes::slot_of(key)];
  size = e.size;
  return e.key == key;
}

/// Bytes of `count` elements of `datatype`; 0 for count <= 0 or a datatype MPI refuses.
inline std::uint64_t datatype_bytes(MPI_Datatype datatype, long long count) noexcept {
  std::uint64_t size;
  if (__builtin_expect(predefined_size(datatype, size) && count > 0, 1))
    return static_cast<std::uint64_t>(count) * size;
  return datatype_bytes_slow(datatype, count);
}

/// Bytes a completed receive brought, from its status.
#if defined(OPEN_MPI)
std::uint64_t received_bytes(const MPI_Status* status) noexcept;
#else
inline std::uint64_t received_bytes(const MPI_Status* status) noexcept {
  // MPICH (MPIR_STATUS_GET_COUNT): bytes; the high 32 bits sit above the cancelled flag (bit 0).
  const auto lo = static_cast<std::uint32_t>(status->count_lo);
  const auto hi = static_cast<std::uint32_t>(status->count_hi_and_cancelled) >> 1;
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}
#endif

}  // namespace symmer::shim
