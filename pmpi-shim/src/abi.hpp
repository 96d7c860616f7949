// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// ABI-neutral spellings of MPI types, for the generated wrappers (which never include mpi.h).
//
// On x86-64 and AArch64 every argument occupies a full register or 8-byte stack slot, so a
// handle received as uintptr_t and forwarded as uintptr_t reaches the library bit for bit,
// whether the MPI's handles are 32-bit integers (MPICH) or pointers (Open MPI). Only the typed
// accounting code (hooks.cpp, with mpi.h) interprets them.

#include <cstdint>
#include <cstring>

/// An MPI handle passed by value (MPI_Comm, MPI_Datatype, MPI_Request, ...).
using symmer_handle = std::uintptr_t;

/// The key of the request handle at `request`: handle_key's bits (handles.hpp), read without
/// mpi.h. SYMMER_REQUEST_BYTES comes from the build (signature_check.cpp checks it).
inline std::uint64_t request_key(const void* request) noexcept {
#if SYMMER_REQUEST_BYTES == 4
  std::uint32_t key;
#else
  std::uintptr_t key;
#endif
  std::memcpy(&key, request, sizeof key);
  return key;
}

/// A handle's bits as handles.hpp's handle_key gives them (the high half of an int handle's
/// register is not part of it). SYMMER_REQUEST_BYTES is every handle's size (signature_check).
inline std::uint64_t handle_bits(symmer_handle h) noexcept {
#if SYMMER_REQUEST_BYTES == 4
  return static_cast<std::uint32_t>(h);
#else
  return h;
#endif
}

static_assert(sizeof(void*) == 8, "the ABI-neutral wrappers assume a 64-bit ABI");

/// Symbols the shim exports (MPI_*, mpi_*_); everything else stays hidden.
#define SYMMER_EXPORT __attribute__((visibility("default")))
