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

/// Into `counts` (one per worker): the split in which each accelerator takes the block of
/// `data` its device holds, the host-memory workers the rows between. Returns false where no
/// ratio split does that.
bool held_split(const BufferData& data, std::span<const std::shared_ptr<Device>> devices,
                Range pass, std::vector<std::int64_t>& counts) {
  counts.assign(devices.size(), 0);
  std::int64_t at = pass.begin;
  int host = -1;   // the first host-memory worker since the last block
  int owner = -1;  // the worker of the last block
  for (std::size_t w = 0; w < devices.size(); ++w) {
    if (devices[w]->description().host_memory) {
      if (host < 0) host = static_cast<int>(w);
      continue;
    }
    const DeviceCopy* c = data.copy_on(*devices[w]);
    const Range block = c != nullptr ? held_block(*c, pass) : Range{};
    if (block.empty()) continue;
    // Out of worker order, or rows before it no host-memory worker can take without moving
    // them: no ratio split moves nothing.
    if (block.begin < at || (block.begin > at && host < 0)) return false;
    if (host >= 0) counts[static_cast<std::size_t>(host)] += block.begin - at;
    counts[w] += block.size();
    at = block.end;
    host = -1;
    owner = static_cast<int>(w);
  }
  // The rows after the last block: to the host-memory workers after it.
  if (owner < 0 || (at < pass.end && host < 0)) return false;
  if (at < pass.end) counts[static_cast<std::size_t>(host)] += pass.end - at;
  return true;
}

/// A worker's range in a split, and its device (nullptr: host memory).
struct Part {
  Range rows;
  const Device* device;
};

/// Bytes of the region's shared inputs that must be copied before a pass split into `parts`:
/// each accelerator's rows its copy does not hold, each host-memory worker's rows a device
/// owns.
double split_copy_bytes(std::span<const Registration> registrations, std::span<const Part> parts) {
  double bytes = 0.0;
  for (const Registration& reg : registrations) {
    const BufferData& d = *reg.data;
    if (!d.shared || reg.desc.assoc != TSAR_ASSOC_ROWS || (reg.desc.flags & TSAR_MEM_IN) == 0)
      continue;
    std::int64_t rows = 0;
    for (const Part& p : parts) {
      if (p.device == nullptr) {
        for (const auto& c : d.copies) rows += c->dirty.count(p.rows);
      } else {
        const DeviceCopy* c = d.copy_on(*p.device);
        rows += p.rows.size() - (c != nullptr ? c->valid.count(p.rows) : 0);
      }
    }
    bytes += static_cast<double>(rows) * static_cast<double>(d.shape.cols * d.shape.elem_size);
  }
  return bytes;
}

}  // namespace

std::vector<std::int64_t> resident_split(std::span<const Registration> registrations,
                                         std::span<const std::shared_ptr<Device>> devices,
                                         std::int64_t origin, std::int64_t n) {
  // Each shared buffer an accelerator holds rows of proposes the split that leaves its rows
  // where they are; of those, the one whose ranges copy the fewest bytes of the region's
  // inputs (the consumer stays with what it reads most, OpenStream's largest-dependence walk
  // weighed in bytes). A buffer only this region writes proposes this region's own last
  // split: taken as it stands, the cores' rows of inputs other loops left on an accelerator
  // would be copied out every pass. Where two proposals copy as much, the one with fewer host
  // rows: what a host-memory worker writes, an accelerator's next loop copies back in. Then
  // the widest buffer's. Mostly every buffer proposes the same split: it is weighed once.
  const Range pass{origin, origin + n};
  std::vector<std::int64_t> best, counts;
  std::vector<Part> parts;
  double best_bytes = 0.0;
  std::int64_t best_host = 0;
  std::size_t best_width = 0;
  for (const Registration& reg : registrations) {
    const BufferData& d = *reg.data;
    if (!d.shared || reg.desc.assoc != TSAR_ASSOC_ROWS) continue;
    if (!held_split(d, devices, pass, counts) || counts == best) continue;
    parts.clear();
    std::int64_t host = 0, at = pass.begin;
    for (std::size_t w = 0; w < devices.size(); at += counts[w], ++w) {
      if (counts[w] == 0) continue;
      const bool in_host = devices[w]->description().host_memory;
      parts.push_back({{at, at + counts[w]}, in_host ? nullptr : devices[w].get()});
      if (in_host) host += counts[w];
    }
    const double bytes = split_copy_bytes(registrations, parts);
    const std::size_t width = d.shape.cols * d.shape.elem_size;
    const bool better =
        best.empty() || bytes < best_bytes ||
        (bytes == best_bytes && (host < best_host || (host == best_host && width > best_width)));
    if (better) {
      best.swap(counts);
      best_bytes = bytes;
      best_host = host;
      best_width = width;
    }
  }
  return best;
}

}  // namespace tsar::core
