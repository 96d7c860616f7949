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

/// FNV-1a over one row's bytes.
std::uint64_t row_hash(const BufferData& data, std::int64_t row) {
  const tsar_mem_desc& s = data.shape;
  const auto* p = static_cast<const unsigned char*>(data.host) +
                  static_cast<std::size_t>(row) * s.row_stride * s.elem_size;
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t k = 0; k < s.cols * s.elem_size; ++k) h = (h ^ p[k]) * 1099511628211ull;
  return h;
}

/// The rows some copy holds (valid or owned).
IntervalSet held_rows(const BufferData& data) {
  IntervalSet held;
  for (const auto& c : data.copies) {
    for (const Range& r : c->valid.parts()) held.add(r);
    for (const Range& r : c->dirty.parts()) held.add(r);
  }
  return held;
}

/// The device of the first copy holding `row`; *owned: whether it owns the row.
std::string holder_of(const BufferData& data, std::int64_t row, bool* owned) {
  for (const auto& c : data.copies) {
    const Range one{row, row + 1};
    if (c->dirty.covers(one) || c->valid.covers(one)) {
      *owned = c->dirty.covers(one);
      return c->device ? c->device->description().key : "a device";
    }
  }
  *owned = false;
  return "a device";
}

}  // namespace

bool check_requested() {
  const char* v = std::getenv("TSAR_CHECK");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

void record_host_rows(BufferData& data, Range rows) {
  HostRowHashes& h = data.check;
  if (h.hash.size() != data.shape.rows) h.hash.assign(data.shape.rows, 0);
  for (std::int64_t r = rows.begin; r < rows.end; ++r)
    h.hash[static_cast<std::size_t>(r)] = row_hash(data, r);
  h.known.add(rows);
}

void record_held_rows(BufferData& data) {
  const IntervalSet held = held_rows(data);
  for (const Range& r : held.parts()) record_host_rows(data, r);
}

void verify_held_rows(const BufferData& data) {
  // The rows devices hold whose host contents were recorded.
  IntervalSet checked = held_rows(data);
  IntervalSet unrecorded = checked;
  unrecorded.subtract(data.check.known);
  checked.subtract(unrecorded);
  IntervalSet changed;
  for (const Range& r : checked.parts())
    for (std::int64_t row = r.begin; row < r.end; ++row)
      if (data.check.hash[static_cast<std::size_t>(row)] != row_hash(data, row))
        changed.add({row, row + 1});
  if (changed.empty()) return;
  const Range first = changed.parts().front();
  bool owned = false;
  const std::string device = holder_of(data, first.begin, &owned);
  std::string rows = "rows " + std::to_string(first.begin) + "-" + std::to_string(first.end - 1);
  if (changed.parts().size() > 1) rows += " (" + std::to_string(changed.count()) + " rows in all)";
  const std::string what =
      "TSAR_CHECK: buffer " + address_text(data.host) + ": " + rows +
      " changed on the host since TSAR last copied them, while " + device +
      (owned ? " owns them (the host's were stale: call tsar_mem_sync or tsar_data_update_host "
               "before changing them, then tsar_mem_invalidate or tsar_data_update_device)"
             : " holds a copy with the old values (call tsar_mem_invalidate, or "
               "tsar_data_update_device for a data environment, after changing a registered "
               "buffer between passes)");
  std::fprintf(stderr, "tsar: %s\n", what.c_str());
  throw Error(TSAR_ERR_STATE, what);
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
        "element of the rows)";
    std::fprintf(stderr, "tsar: %s\n", what.c_str());
    throw Error(TSAR_ERR_STATE, what);
  }
}

}  // namespace tsar::core
