// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Conversions between the wrappers' ABI-neutral handles and the MPI library's types.

#include <cstdint>
#include <type_traits>

#include "abi.hpp"
#include "mpi_include.hpp"

namespace symmer::shim {

/// The typed handle a neutral one stands for (MPICH: low 32 bits; Open MPI: the pointer).
template <typename T>
T from_handle(symmer_handle h) noexcept {
  if constexpr (std::is_pointer_v<T>)
    return reinterpret_cast<T>(h);
  else
    return static_cast<T>(static_cast<std::uint32_t>(h));
}

/// A handle as a table key: the same bits for the same handle, never sign-extended.
template <typename T>
std::uint64_t handle_key(T h) noexcept {
  if constexpr (std::is_pointer_v<T>)
    return reinterpret_cast<std::uintptr_t>(h);
  else
    return static_cast<std::uint32_t>(h);
}

}  // namespace symmer::shim
