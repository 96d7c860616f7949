// SPDX-License-Identifier: BSD-3-Clause
// Predefined datatype sizes and status byte counts (see message_size.hpp).
#include "message_size.hpp"

#include <initializer_list>

#include "handles.hpp"
#include "mpi.hpp"

namespace symmer::shim {
namespace {

// Open addressing over the handles' bits; a key of 0 marks a free entry (no valid handle is
// 0 in either MPI's encoding). Written only by message_size_init, before any reader.
constexpr std::uint64_t kEntries = 128;
struct Entry {
  std::uint64_t key = 0;
  std::uint64_t size = 0;
};
Entry table[kEntries];

std::uint64_t slot_of(std::uint64_t key) noexcept {
  return (key * 0x9E3779B97F4A7C15ull) >> 57;  // 7 bits: kEntries
}

void remember(MPI_Datatype type) noexcept {
  int size = 0;
  // Absent ones: MPI_DATATYPE_NULL (MPICH without Fortran), a null weak symbol (Open MPI).
  if (handle_key(type) == 0 || type == MPI_DATATYPE_NULL ||
      mpi.PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0)
    return;
  const std::uint64_t key = handle_key(type);
  for (std::uint64_t i = slot_of(key);; i = (i + 1) % kEntries) {
    if (table[i].key == key) return;
    if (table[i].key == 0) {
      table[i] = {key, static_cast<std::uint64_t>(size)};
      return;
    }
  }
}

}  // namespace

void message_size_init() noexcept {
  // The C and Fortran basic types: what applications send nearly always (under kEntries / 2,
  // so probes stay short).
  for (MPI_Datatype t : {MPI_BYTE,
                         MPI_CHAR,
                         MPI_SIGNED_CHAR,
                         MPI_UNSIGNED_CHAR,
                         MPI_SHORT,
                         MPI_UNSIGNED_SHORT,
                         MPI_INT,
                         MPI_UNSIGNED,
                         MPI_LONG,
                         MPI_UNSIGNED_LONG,
                         MPI_LONG_LONG_INT,
                         MPI_UNSIGNED_LONG_LONG,
                         MPI_FLOAT,
                         MPI_DOUBLE,
                         MPI_LONG_DOUBLE,
                         MPI_INT8_T,
                         MPI_INT16_T,
                         MPI_INT32_T,
                         MPI_INT64_T,
                         MPI_UINT8_T,
                         MPI_UINT16_T,
                         MPI_UINT32_T,
                         MPI_UINT64_T,
                         MPI_C_BOOL,
                         MPI_C_DOUBLE_COMPLEX,
                         MPI_CHARACTER,
                         MPI_LOGICAL,
                         MPI_INTEGER,
                         MPI_REAL,
                         MPI_DOUBLE_PRECISION,
                         MPI_DOUBLE_COMPLEX})
    remember(t);
}

std::uint64_t datatype_bytes(MPI_Datatype datatype, long long count) noexcept {
  if (count <= 0) return 0;
  const std::uint64_t key = handle_key(datatype);
  std::uint64_t size = 0;
  for (std::uint64_t i = slot_of(key);; i = (i + 1) % kEntries) {
    if (table[i].key == key) {
      size = table[i].size;
      break;
    }
    if (table[i].key == 0) {  // a derived datatype: its size may change with its handle
      int n = 0;
      if (mpi.PMPI_Type_size(datatype, &n) != MPI_SUCCESS || n <= 0) return 0;
      size = static_cast<std::uint64_t>(n);
      break;
    }
  }
  return static_cast<std::uint64_t>(count) * size;
}

std::uint64_t received_bytes(const MPI_Status* status) noexcept {
#if defined(OPEN_MPI)
  int n = 0;
  // Open MPI keeps a status's count in bytes; MPI_BYTE reads it back unchanged.
  if (mpi.PMPI_Get_count(status, MPI_BYTE, &n) != MPI_SUCCESS || n < 0) return 0;
  return static_cast<std::uint64_t>(n);
#else
  // MPICH (MPIR_STATUS_GET_COUNT): bytes; the high 32 bits sit above the cancelled flag (bit 0).
  const auto lo = static_cast<std::uint32_t>(status->count_lo);
  const auto hi = static_cast<std::uint32_t>(status->count_hi_and_cancelled) >> 1;
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
#endif
}

}  // namespace symmer::shim
