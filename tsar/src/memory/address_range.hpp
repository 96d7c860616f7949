// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Whether a caller's (pointer, bytes) names memory at all: every buffer, reduction result and
// queried range is checked with it before TSAR computes an address inside it.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

namespace tsar::core {

/// True when [p, p + bytes) neither runs past the top of the address space nor spans more
/// than PTRDIFF_MAX bytes (pointer differences inside it stay defined).
inline bool in_address_space(const void* p, std::size_t bytes) {
  const auto lo = reinterpret_cast<std::uintptr_t>(p);
  std::uintptr_t end = 0;
  return !__builtin_add_overflow(lo, bytes, &end) &&
         bytes <= static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max());
}

/// A buffer's address as messages name it ("0x7f3a5c000010").
inline std::string address_text(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

}  // namespace tsar::core
