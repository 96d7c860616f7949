// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One device's copy of one registered buffer: the allocation, which rows or columns of the
// buffer it holds (its window) and in which layout, which of them equal the host's contents
// and which only it holds up to date. A copy belongs to the buffer's data (BufferData):
// retargeting keeps the allocation but forgets the contents, swapping two registrations moves
// their copies with the host buffers (tsar_swap_mem).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "devices/device.hpp"
#include "memory/interval_set.hpp"

namespace tsar::core {

struct alignas(64) DeviceCopy {
  DeviceCopy() = default;
  DeviceCopy(DeviceCopy&& other) noexcept { *this = std::move(other); }
  DeviceCopy& operator=(DeviceCopy&& other) noexcept;
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
  ~DeviceCopy() { release(); }

  /// Frees the allocation; the copy holds nothing afterwards.
  void release() noexcept;
  /// Forgets which items equal the host's (the host buffer changed or was replaced), and
  /// drops resident items not written back (the caller wrote back what it must keep).
  void forget() {
    valid.clear();
    valid_cols.clear();
    dirty.clear();
    leaving.clear();
  }

  std::shared_ptr<Device> device;  ///< owner of `data`
  int worker = 0;  ///< the worker of the region that last used it (its write-backs' traffic)
  void* data = nullptr;
  std::size_t bytes = 0;
  Range window;            ///< items held: rows (ROWS, FULL, ROWS_COLS) or columns (COLS)
  std::size_t stride = 0;  ///< elements from one row start to the next on the device
  IntervalSet valid;       ///< items (ROWS_COLS: rows) whose device contents equal the host's
  IntervalSet valid_cols;  ///< ROWS_COLS: columns whose device contents equal the host's
  /// Items only this copy holds up to date (resident outputs, TSAR_MEM_RESIDENT): the host's
  /// are stale until the copy engine writes them back. A subset of `valid`; disjoint from
  /// every other copy's once the pass's writes are settled.
  IntervalSet dirty;
  /// Items of `dirty` whose copies to the host are queued on the device, not yet waited for
  /// (CopyEngine writes several devices' rows back at once).
  IntervalSet leaving;
  std::int64_t moved_in = 0;   ///< bytes copied into it since it was made
  std::int64_t moved_out = 0;  ///< bytes copied from it to the host
  // ROWS_COLS outputs: the host contents of the rows and columns as copied in, so only the
  // elements the device changed are merged back (an element of a row one device owns may
  // lie in a column another device owns).
  Range snap_rows, snap_cols;
  std::vector<unsigned char> row_snapshot, col_snapshot, scratch;
};

}  // namespace tsar::core
