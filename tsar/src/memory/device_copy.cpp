// SPDX-License-Identifier: BSD-3-Clause
#include "memory/device_copy.hpp"

#include <utility>

namespace tsar::core {

DeviceCopy& DeviceCopy::operator=(DeviceCopy&& other) noexcept {
  if (this == &other) return *this;
  release();
  device = std::move(other.device);
  worker = other.worker;
  data = std::exchange(other.data, nullptr);
  bytes = std::exchange(other.bytes, 0);
  window = std::exchange(other.window, Range{});
  stride = other.stride;
  valid = std::move(other.valid);
  valid_cols = std::move(other.valid_cols);
  dirty = std::move(other.dirty);
  leaving = std::move(other.leaving);
  moved_in = other.moved_in;
  moved_out = other.moved_out;
  snap_rows = other.snap_rows;
  snap_cols = other.snap_cols;
  row_snapshot = std::move(other.row_snapshot);
  col_snapshot = std::move(other.col_snapshot);
  scratch = std::move(other.scratch);
  return *this;
}

void DeviceCopy::release() noexcept {
  if (data != nullptr && device) device->release(data, bytes);
  data = nullptr;
  bytes = 0;
  window = {};
  forget();
}

}  // namespace tsar::core
