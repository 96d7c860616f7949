#pragma once
// The buffers registered with a region and how iterations select their parts (thesis
// 5.3.3, 5.4.2): validation of each association descriptor, detection of double and
// overlapping registrations, retargeting, and each worker's view of a buffer.
//
// Devices with host memory (CPU cores, teams, the emulated accelerator) compute on the
// host buffer itself, so their view is the host pointer with the host layout. Devices with
// their own memory get the rows/columns their ranges need, packed and padded, through the
// Device copy interface; MemoryRegistry::needed computes those parts for every association.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "queue/chunk_queue.hpp"
#include "tsar/tsar.h"

namespace tsar::core {

class Device;

/// A validated registration.
struct Registration {
  void* host = nullptr;
  tsar_mem_desc desc{};    ///< row_stride filled in (never 0)
  std::size_t extent = 0;  ///< bytes from host to one past the last element
};

class MemoryRegistry {
 public:
  /// Validates and adds a registration. Throws Error: TSAR_ERR_NULL, TSAR_ERR_INVALID
  /// (naming the bad field), TSAR_ERR_REGISTERED (same or overlapping buffer).
  void add(void* host, const tsar_mem_desc& desc);
  /// Throws Error(TSAR_ERR_UNKNOWN) when `host` is not registered.
  void remove(const void* host);
  /// Moves a registration to a new host buffer of the same shape.
  void retarget(const void* old_host, void* new_host);
  /// The registration of `host`, or nullptr.
  const Registration* find(const void* host) const;
  /// Checks that a pass of n iterations stays inside every partial buffer.
  void check_pass(std::int64_t n) const;
  std::size_t size() const { return entries_.size(); }

  /// The view of `reg` for a device computing `range` (host-memory devices: the host layout).
  /// Throws Error(TSAR_ERR_UNSUPPORTED) for devices with their own memory until a backend
  /// provides the copies.
  static tsar_mem_layout view(const Registration& reg, const Device& device);

  /// Rows (ROWS, ROWS_COLS) or columns (COLS) a device needs for `range`, halo included,
  /// clipped to the buffer. Empty for FULL buffers (they need everything).
  static Range needed(const Registration& reg, Range range);

 private:
  void check_overlap(const void* host, std::size_t extent, const void* ignore) const;
  std::vector<Registration> entries_;
};

/// Validates a descriptor and returns it with row_stride filled in.
tsar_mem_desc validate_mem_desc(const void* host, const tsar_mem_desc& desc, std::size_t* extent);

}  // namespace tsar::core
