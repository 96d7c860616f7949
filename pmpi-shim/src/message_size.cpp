// SPDX-License-Identifier: BSD-3-Clause
// Predefined datatype sizes and status byte counts (see message_size.hpp).
#include "message_size.hpp"

#include <initializer_list>

#include "handles.hpp"
#include "mpi.hpp"

namespace symmer::shim {

type_sizes::Entry type_sizes::table[type_sizes::kEntries];

namespace {

using type_sizes::kEntries;
using type_sizes::slot_of;
using type_sizes::table;

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

std::uint64_t datatype_bytes_slow(MPI_Datatype datatype, long long count) noexcept {
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

#if defined(OPEN_MPI)
std::uint64_t received_bytes(const MPI_Status* status) noexcept {
  int n = 0;
  // Open MPI keeps a status's count in bytes; MPI_BYTE reads it back unchanged.
  if (mpi.PMPI_Get_count(status, MPI_BYTE, &n) != MPI_SUCCESS || n < 0) return 0;
  return static_cast<std::uint64_t>(n);
}
#endif

}  // namespace symmer::shim
