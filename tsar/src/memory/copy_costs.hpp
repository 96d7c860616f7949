// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What registered buffers make an accelerator copy, in bytes, for the split's cost model
// (schedule/split_hysteresis.hpp) and for probing accelerators (region.cpp): the part of the
// copies that comes with any share every pass, the part that comes with changing the
// share, the part that comes with every boundary between two devices' ranges (halos), and
// -- for a data environment's buffers, placed by other regions' passes -- the split that
// moves nothing. Padding and reductions are left out: they are small next to the rest.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

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
  /// What a boundary between two devices' ranges costs every pass while the split holds: the
  /// halo items of persistent inputs each side reads of the other's (both ways), in bytes
  /// and in separate copies. A device with its own memory pays it for each neighbour its
  /// range has; a split that gives one device everything has none.
  double boundary_bytes = 0.0;
  int boundary_copies = 0;
  /// Per worker, the iterations of the split that moves nothing: each accelerator takes the
  /// rows its device holds of the region's widest data-environment buffer -- the consumer
  /// stays with its producer (OpenStream's largest-dependence walk) --, host-memory workers
  /// the rows between. Empty when the region shares no buffer its accelerators hold, or no
  /// ratio split (ranges in worker order) gives each accelerator only rows it holds.
  std::vector<std::int64_t> resident;
  /// The region only follows other regions' splits (DataEnvironment::follows_only): rows of
  /// its inputs it takes off `resident` are copied again every pass.
  bool follows_only = false;
  /// Copies any range of a device with its own memory makes whatever its size: one for each
  /// buffer of rows or columns it copies in, one for each it copies back (what a piece of
  /// work an accelerator takes over costs beside its bytes; FULL inputs come once a pass).
  int range_copies = 0;
  /// Some output stays resident and has a halo: its boundary rows may go straight into
  /// another device's copy (the copy engine's peer copies).
  bool resident_halos = false;
  /// The program wrote host rows of these buffers since the region's last pass
  /// (MemoryRegistry::host_writes): the pass copies them in again, whatever the split.
  bool host_written = false;
};

CopyCosts copy_costs(std::span<const Registration> registrations);

/// CopyCosts::resident for a pass over iterations [origin, origin + n) of workers on
/// `devices` (in worker order).
std::vector<std::int64_t> resident_split(std::span<const Registration> registrations,
                                         std::span<const std::shared_ptr<Device>> devices,
                                         std::int64_t origin, std::int64_t n);

}  // namespace tsar::core
