// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What registered buffers make an accelerator copy, in bytes, for the split's cost model
// (schedule/split_hysteresis.hpp) and for probing accelerators (region.cpp): the part of the
// copies that comes with any share every pass, and the part that comes with changing the
// share. Halos, padding and reductions are left out: they are small next to both.

#include <span>

#include "memory/registry.hpp"

namespace tsar::core {

struct CopyCosts {
  /// Bytes a device with any iteration copies in every pass whatever its share: inputs every
  /// device needs whole (FULL) and that are not persistent.
  double fixed_bytes = 0.0;
  /// Bytes that travel per iteration changing owner: its rows or columns of persistent
  /// inputs, into a new owner with its own memory, or back out of an old one that held them
  /// resident (a double buffer's input was last pass's resident output). Outputs themselves
  /// do not travel: the new owner overwrites them and the old owner's rows go stale.
  /// Non-persistent data travels every pass wherever the split lies, so it does not count.
  double moved_bytes_per_iteration = 0.0;
};

CopyCosts copy_costs(std::span<const Registration> registrations);

}  // namespace tsar::core
