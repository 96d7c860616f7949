// SPDX-License-Identifier: BSD-3-Clause
#include "memory/host_check.hpp"

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

}  // namespace tsar::core
