// SPDX-License-Identifier: BSD-3-Clause
#include "memory/host_check.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "api/error.hpp"
#include "memory/address_range.hpp"
#include "memory/registry.hpp"

namespace tsar::core {
namespace {

/// FNV-1a over the host's bytes of one row (`cols`: one column) of `data`.
std::uint64_t item_hash(const BufferData& data, std::int64_t item, bool cols) {
  const tsar_mem_desc& s = data.shape;
  const auto* base = static_cast<const unsigned char*>(data.host);
  const auto i = static_cast<std::size_t>(item);
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](const unsigned char* p, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) h = (h ^ p[k]) * 1099511628211ull;
  };
  if (cols) {
    for (std::size_t r = 0; r < s.rows; ++r)
      mix(base + (r * s.row_stride + i) * s.elem_size, s.elem_size);
  } else {
    mix(base + i * s.row_stride * s.elem_size, s.cols * s.elem_size);
  }
  return h;
}

/// The items of copy `c` that count as held rows (`cols`: columns) under association
/// `assoc`: a COLS copy's items are columns, a ROWS_COLS copy holds rows and columns.
void add_held(const DeviceCopy& c, int assoc, bool cols, IntervalSet& held) {
  const auto add = [&held](const IntervalSet& s) {
    for (const Range& r : s.parts()) held.add(r);
  };
  if (cols && assoc == TSAR_ASSOC_ROWS_COLS) {
    add(c.valid_cols);
  } else if (cols == (assoc == TSAR_ASSOC_COLS)) {
    add(c.valid);
    add(c.dirty);
  }
}

/// The rows (`cols`: columns) some copy of `data` holds, valid or owned.
IntervalSet held_items(const BufferData& data, int assoc, bool cols) {
  IntervalSet held;
  for (const auto& c : data.copies) add_held(*c, assoc, cols, held);
  return held;
}

/// The device of the first copy holding row (`cols`: column) `item`; *owned: whether it
/// owns it.
std::string holder_of(const BufferData& data, int assoc, bool cols, std::int64_t item,
                      bool* owned) {
  const Range one{item, item + 1};
  for (const auto& c : data.copies) {
    IntervalSet held;
    add_held(*c, assoc, cols, held);
    if (held.covers(one)) {
      *owned = c->dirty.covers(one) && cols == (assoc == TSAR_ASSOC_COLS);
      return c->device ? c->device->description().key : "a device";
    }
  }
  *owned = false;
  return "a device";
}

void record_items(BufferData& data, bool cols, Range items) {
  HostItemHashes& h = cols ? data.check.cols : data.check.rows;
  const std::size_t count = cols ? data.shape.cols : data.shape.rows;
  if (h.hash.size() != count) h.hash.assign(count, 0);
  for (std::int64_t i = items.begin; i < items.end; ++i)
    h.hash[static_cast<std::size_t>(i)] = item_hash(data, i, cols);
  h.known.add(items);
}

/// The held rows (`cols`: columns) of `data` whose host contents differ from their record.
IntervalSet changed_items(const BufferData& data, int assoc, bool cols) {
  const HostItemHashes& h = cols ? data.check.cols : data.check.rows;
  IntervalSet checked = held_items(data, assoc, cols);
  IntervalSet unrecorded = checked;
  unrecorded.subtract(h.known);
  checked.subtract(unrecorded);
  IntervalSet changed;
  for (const Range& r : checked.parts())
    for (std::int64_t i = r.begin; i < r.end; ++i)
      if (h.hash[static_cast<std::size_t>(i)] != item_hash(data, i, cols)) changed.add({i, i + 1});
  return changed;
}

}  // namespace

bool check_requested() {
  const char* v = std::getenv("TSAR_CHECK");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

void record_host_rows(BufferData& data, Range rows) { record_items(data, false, rows); }

void record_held(BufferData& data, int assoc) {
  for (const bool cols : {false, true}) {
    const IntervalSet held = held_items(data, assoc, cols);
    for (const Range& r : held.parts()) record_items(data, cols, r);
  }
}

void verify_held(const BufferData& data, int assoc) {
  for (const bool cols : {false, true}) {
    const IntervalSet changed = changed_items(data, assoc, cols);
    if (changed.empty()) continue;
    const Range first = changed.parts().front();
    bool owned = false;
    const std::string device = holder_of(data, assoc, cols, first.begin, &owned);
    std::string items = std::string(cols ? "columns " : "rows ") + std::to_string(first.begin) +
                        "-" + std::to_string(first.end - 1);
    if (changed.parts().size() > 1)
      items += " (" + std::to_string(changed.count()) + (cols ? " columns" : " rows") + " in all)";
    const std::string what =
        "TSAR_CHECK: buffer " + address_text(data.host) + ": " + items +
        " changed on the host since TSAR last copied them, while " + device +
        (owned ? " owns them (the host's were stale: call tsar_mem_sync or tsar_data_update_host "
                 "before changing them, then tsar_mem_invalidate or tsar_data_update_device)"
               : " holds a copy with the old values (call tsar_mem_invalidate, or "
                 "tsar_data_update_device for a data environment, after changing a registered "
                 "buffer between passes)");
    std::fprintf(stderr, "tsar: %s\n", what.c_str());
    throw Error(TSAR_ERR_STATE, what);
  }
}

void fill_unwritten(Device& device, void* dev, const RectCopy& to_device,
                    std::vector<unsigned char>& scratch) {
  scratch.assign(to_device.volume[0] * to_device.volume[1] * to_device.elem_size, kFillByte);
  if (scratch.empty()) return;
  device.copy_rect_to_device(dev, scratch.data(), to_device);
  device.synchronize();  // the scratch buffer is the caller's again
}

void verify_written(const Registration& reg, Device& device, const void* dev,
                    const RectCopy& from_device, Range items, std::vector<unsigned char>& scratch) {
  const std::size_t e = from_device.elem_size;
  const std::size_t width = from_device.volume[1];
  scratch.resize(from_device.volume[0] * width * e);
  if (scratch.empty()) return;
  device.copy_rect_from_device(scratch.data(), dev, from_device);
  device.synchronize();
  for (std::size_t k = 0; k < scratch.size() / e; ++k) {
    const unsigned char* p = scratch.data() + k * e;
    if (std::any_of(p, p + e, [](unsigned char b) { return b != kFillByte; })) continue;
    const bool cols = reg.desc.assoc == TSAR_ASSOC_COLS;
    const auto row = static_cast<std::int64_t>(k / width) + (cols ? 0 : items.begin);
    const auto col = static_cast<std::int64_t>(k % width) + (cols ? items.begin : 0);
    const std::string what =
        "TSAR_CHECK: buffer " + address_text(reg.host()) +
        " is registered TSAR_MEM_OVERWRITE, but the loop did not write its element (" +
        std::to_string(row) + ", " + std::to_string(col) + ") on " + device.description().key +
        ": without the check it would come back holding whatever device memory held (drop "
        "TSAR_MEM_OVERWRITE, so the copy starts from the host's values, or write every "
        "element of the " +
        (cols ? "columns)" : "rows)");
    std::fprintf(stderr, "tsar: %s\n", what.c_str());
    throw Error(TSAR_ERR_STATE, what);
  }
}

}  // namespace tsar::core
