// SPDX-License-Identifier: BSD-3-Clause
#include "memory/copy_costs.hpp"

#include <algorithm>

namespace tsar::core {

CopyCosts copy_costs(std::span<const Registration> registrations) {
  CopyCosts costs;
  for (const Registration& reg : registrations) {
    const tsar_mem_desc& d = reg.desc;
    const bool in = (d.flags & TSAR_MEM_IN) != 0;
    const bool persistent = (d.flags & TSAR_MEM_PERSIST) != 0;
    const auto bytes = static_cast<double>(d.elem_size);
    const bool out = (d.flags & TSAR_MEM_OUT) != 0;
    if (out && (d.flags & TSAR_MEM_RESIDENT) != 0 && d.halo > 0) costs.resident_halos = true;
    if (d.assoc != TSAR_ASSOC_FULL) costs.range_copies += (in ? 1 : 0) + (out ? 1 : 0);
    if (d.assoc == TSAR_ASSOC_FULL) {
      if (in && !persistent) costs.fixed_bytes += bytes * static_cast<double>(d.rows * d.cols);
      continue;
    }
    if (!persistent) continue;
    // An iteration's item: a row (ROWS, and the row half of ROWS_COLS) or a column (COLS).
    const double item = bytes * static_cast<double>(d.assoc == TSAR_ASSOC_COLS ? d.rows : d.cols);
    if (!in) continue;
    costs.moved_bytes_per_iteration += item;
    if (d.halo > 0) {
      costs.boundary_bytes += 2.0 * static_cast<double>(d.halo) * item;
      costs.boundary_copies += 2;
    }
  }
  return costs;
}

namespace {

/// The largest run of rows `c` holds -- those its device owns if any, else its valid ones --
/// inside `pass`.
Range held_block(const DeviceCopy& c, Range pass) {
  IntervalSet rows = c.dirty.empty() ? c.valid : c.dirty;
  rows.clip(pass);
  Range best{};
  for (const Range& r : rows.parts())
    if (r.size() > best.size()) best = r;
  return best;
}

}  // namespace

std::vector<std::int64_t> resident_split(std::span<const Registration> registrations,
                                         std::span<const std::shared_ptr<Device>> devices,
                                         std::int64_t origin, std::int64_t n) {
  // The widest row of a shared buffer that one of the workers' accelerators holds rows of.
  const BufferData* widest = nullptr;
  for (const Registration& reg : registrations) {
    const BufferData& d = *reg.data;
    if (!d.shared || reg.desc.assoc != TSAR_ASSOC_ROWS) continue;
    const bool held = std::any_of(devices.begin(), devices.end(), [&](const auto& dev) {
      const DeviceCopy* c = d.copy_on(*dev);
      return c != nullptr && (!c->valid.empty() || !c->dirty.empty());
    });
    if (held && (widest == nullptr ||
                 d.shape.cols * d.shape.elem_size > widest->shape.cols * widest->shape.elem_size))
      widest = &d;
  }
  if (widest == nullptr) return {};
  // Accelerators' blocks in worker order, host-memory workers taking the rows before each.
  const Range pass{origin, origin + n};
  std::vector<std::int64_t> counts(devices.size(), 0);
  std::int64_t at = pass.begin;
  int host = -1;   // the first host-memory worker since the last block
  int owner = -1;  // the worker of the last block
  for (std::size_t w = 0; w < devices.size(); ++w) {
    if (devices[w]->description().host_memory) {
      if (host < 0) host = static_cast<int>(w);
      continue;
    }
    const DeviceCopy* c = widest->copy_on(*devices[w]);
    const Range block = c != nullptr ? held_block(*c, pass) : Range{};
    if (block.empty()) continue;
    // Out of worker order, or rows before it no host-memory worker can take without moving
    // them: no ratio split moves nothing.
    if (block.begin < at || (block.begin > at && host < 0)) return {};
    if (host >= 0) counts[static_cast<std::size_t>(host)] += block.begin - at;
    counts[w] += block.size();
    at = block.end;
    host = -1;
    owner = static_cast<int>(w);
  }
  // The rows after the last block: to the host-memory workers after it.
  if (owner < 0 || (at < pass.end && host < 0)) return {};
  if (at < pass.end) counts[static_cast<std::size_t>(host)] += pass.end - at;
  return counts;
}

}  // namespace tsar::core
