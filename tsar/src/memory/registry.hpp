// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The buffers registered with a region and how iterations select their parts (thesis
// 5.3.3, 5.4.2): validation of each association descriptor, detection of double and
// overlapping registrations, retargeting, and each worker's view of a buffer.
//
// Devices with host memory (CPU cores, teams, the emulated accelerator) compute on the
// host buffer itself, so their view is the host pointer with the host layout. Devices with
// their own memory get the rows/columns their ranges need, packed and padded, through the
// Device copy interface: MemoryRegistry::needed computes those parts for every association,
// each registration keeps one DeviceCopy per worker, and memory/copy_engine moves the data.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "memory/device_copy.hpp"
#include "queue/chunk_queue.hpp"
#include "tsar/tsar.h"

namespace tsar::core {

class Device;
class Reductions;

/// The page-locking of a registered host buffer, done once by the first device that wants
/// it (Device::pin_host) and undone when the registration ends or moves to another buffer.
struct HostPin {
  std::once_flag once;
  std::shared_ptr<void> handle;
};

/// A validated registration.
struct Registration {
  void* host = nullptr;
  tsar_mem_desc desc{};              ///< row_stride filled in (never 0)
  std::size_t extent = 0;            ///< bytes from host to one past the last element
  std::vector<DeviceCopy> copies{};  ///< per worker, sized by the copy engine on first use
  std::shared_ptr<HostPin> pin = std::make_shared<HostPin>();  ///< follows `host`
};

class MemoryRegistry {
 public:
  /// Validates and adds a registration. Throws Error: TSAR_ERR_NULL, TSAR_ERR_INVALID
  /// (naming the bad field), TSAR_ERR_REGISTERED (same or overlapping buffer, or a buffer
  /// holding the result of one of `reductions`).
  void add(void* host, const tsar_mem_desc& desc, const Reductions* reductions = nullptr);
  /// Throws Error(TSAR_ERR_UNKNOWN) when `host` is not registered.
  void remove(const void* host);
  /// Moves a registration to a new host buffer of the same shape. Device copies keep their
  /// allocations but not their contents (the new buffer is copied in when needed).
  void retarget(const void* old_host, void* new_host);
  /// Exchanges the host buffers of two registrations of the same shape, association and
  /// padding (each keeps its direction, halo and persistence); device copies follow their
  /// host buffer, so a double-buffered loop moves only what changed. Throws Error:
  /// TSAR_ERR_UNKNOWN, TSAR_ERR_INVALID (different shapes, or a == b).
  void swap(const void* a, const void* b);
  /// The host contents of `host` changed outside passes: device copies forget them.
  void invalidate(const void* host);
  /// A registration sharing a byte with [p, p + bytes), or nullptr.
  const Registration* overlapping(const void* p, std::size_t bytes) const;
  /// The registration of `host`, or nullptr.
  const Registration* find(const void* host) const;
  /// Checks that a pass of n iterations stays inside every partial buffer.
  void check_pass(std::int64_t n) const;
  std::size_t size() const { return entries_.size(); }
  /// Every registration, for the copy engine (outside passes, or a worker's own copies).
  std::span<Registration> registrations() { return entries_; }

  /// The view of `reg` for worker `worker` on `device`: the host layout on host-memory
  /// devices, else the layout of the worker's device copy. Throws Error(TSAR_ERR_STATE) when
  /// the worker has no copy yet (it was given no range in this pass).
  static tsar_mem_layout view(const Registration& reg, const Device& device, int worker);

  /// Rows (ROWS, ROWS_COLS) or columns (COLS) a device needs for `range`, halo included,
  /// clipped to the buffer. Empty for FULL buffers (they need everything).
  static Range needed(const Registration& reg, Range range);
  /// The same range of columns for a ROWS_COLS buffer (iteration i also uses column i).
  static Range needed_cols(const Registration& reg, Range range);

 private:
  void check_overlap(const void* host, std::size_t extent, const void* ignore) const;
  std::vector<Registration> entries_;
};

/// Validates a descriptor and returns it with row_stride filled in.
tsar_mem_desc validate_mem_desc(const void* host, const tsar_mem_desc& desc, std::size_t* extent);

}  // namespace tsar::core
