// SPDX-License-Identifier: BSD-3-Clause
#include "memory/copy_engine.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <utility>

#include "devices/host_device.hpp"
#include "memory/address_range.hpp"

namespace tsar::core {
namespace {

bool reads(const Registration& r) { return (r.desc.flags & TSAR_MEM_IN) != 0; }
bool writes(const Registration& r) { return (r.desc.flags & TSAR_MEM_OUT) != 0; }
bool persistent(const Registration& r) { return (r.desc.flags & TSAR_MEM_PERSIST) != 0; }
bool overwrites(const Registration& r) { return (r.desc.flags & TSAR_MEM_OVERWRITE) != 0; }
bool resident(const Registration& r) { return (r.desc.flags & TSAR_MEM_RESIDENT) != 0; }
bool by_cols(const Registration& r) { return r.desc.assoc == TSAR_ASSOC_COLS; }
bool plus_shaped(const Registration& r) { return r.desc.assoc == TSAR_ASSOC_ROWS_COLS; }

std::int64_t rows_of(const Registration& r) { return static_cast<std::int64_t>(r.desc.rows); }
std::int64_t cols_of(const Registration& r) { return static_cast<std::int64_t>(r.desc.cols); }
std::size_t sz(std::int64_t v) { return static_cast<std::size_t>(v); }

Range clip(Range r, std::int64_t items) {
  return {std::max<std::int64_t>(r.begin, 0), std::min(r.end, items)};
}

RectCopy rect2(std::size_t elem, std::size_t rows, std::size_t cols, std::size_t dst_row,
               std::size_t dst_col, std::size_t dst_rows, std::size_t dst_stride,
               std::size_t src_row, std::size_t src_col, std::size_t src_rows,
               std::size_t src_stride) {
  RectCopy r;
  r.elem_size = elem;
  r.dims = 2;
  r.volume = {rows, cols, 0};
  r.dst_offsets = {dst_row, dst_col, 0};
  r.src_offsets = {src_row, src_col, 0};
  r.dst_dims = {dst_rows, dst_stride, 0};
  r.src_dims = {src_rows, src_stride, 0};
  return r;
}

/// Rows (COLS: columns) `items` of the ROWS or COLS copy `c` and a packed host buffer of
/// them, as one rectangle copy: into the device when `in`, out of it otherwise.
RectCopy packed_items(const Registration& reg, const DeviceCopy& c, Range items, bool in) {
  const tsar_mem_desc& d = reg.desc;
  const std::size_t e = d.elem_size, k = sz(items.size());
  const std::size_t at = sz(items.begin - c.window.begin), win = sz(c.window.size());
  if (by_cols(reg))
    return in ? rect2(e, d.rows, k, 0, at, d.rows, c.stride, 0, 0, d.rows, k)
              : rect2(e, d.rows, k, 0, 0, d.rows, k, 0, at, d.rows, c.stride);
  return in ? rect2(e, k, d.cols, at, 0, win, c.stride, 0, 0, k, d.cols)
            : rect2(e, k, d.cols, 0, 0, k, d.cols, at, 0, win, c.stride);
}

/// Whether TSAR_CHECK holds this output to TSAR_MEM_OVERWRITE's word (host_check.hpp). A
/// ROWS_COLS output brings back only the elements its device changed anyway.
bool checks_overwrite(const Registration& r) {
  return !reads(r) && overwrites(r) && !plus_shaped(r) && r.data->checked;
}

/// Bytes of a device allocation holding `rows` rows of `stride` elements, the last one
/// ending after `last_row_elems` (no padding after the last row).
std::size_t span_bytes(std::size_t rows, std::size_t stride, std::size_t last_row_elems,
                       std::size_t elem) {
  return ((rows - 1) * stride + last_row_elems) * elem;
}

/// Queues rows `rows` of the ROWS copy `from` (on `device`) into `to_base`, an allocation of
/// `to` holding rows from `to_first` in the same stride; returns the bytes.
std::int64_t rows_to_peer(const BufferData& data, const DeviceCopy& from, Device& device,
                          Device& to, void* to_base, std::int64_t to_first, Range rows) {
  const std::size_t e = data.shape.elem_size;
  const std::size_t bytes = span_bytes(sz(rows.size()), from.stride, data.shape.cols, e);
  device.copy_peer(
      to, static_cast<unsigned char*>(to_base) + sz(rows.begin - to_first) * from.stride * e,
      static_cast<const unsigned char*>(from.data) +
          sz(rows.begin - from.window.begin) * from.stride * e,
      bytes);
  return static_cast<std::int64_t>(bytes);
}

/// Copies rows `own` of a ROWS copy back into the host buffer (queued on the device; complete
/// at its next synchronize) and returns the bytes.
std::int64_t rows_to_host(const BufferData& data, const DeviceCopy& c, Device& device, Range own) {
  const tsar_mem_desc& d = data.shape;
  const std::size_t e = d.elem_size;
  auto* host = static_cast<unsigned char*>(data.host);
  const auto* dev = static_cast<const unsigned char*>(c.data);
  const std::size_t k = sz(own.size());
  const std::size_t at = sz(own.begin - c.window.begin);
  if (c.stride == d.row_stride) {
    const std::size_t bytes = span_bytes(k, c.stride, d.cols, e);
    device.copy_from_device(host + sz(own.begin) * d.row_stride * e, dev + at * c.stride * e,
                            bytes);
    return static_cast<std::int64_t>(bytes);
  }
  device.copy_rect_from_device(host, dev,
                               rect2(e, k, d.cols, sz(own.begin), 0, d.rows, d.row_stride, at, 0,
                                     sz(c.window.size()), c.stride));
  return static_cast<std::int64_t>(k * d.cols * e);
}

/// What workers wrote in a pass goes stale in every other copy: their `valid` and resident
/// rows lose it (ROWS_COLS copies are forgotten whole).
void settle(Registration& reg) {
  for (std::size_t w = 0; w < reg.writes.size(); ++w) {
    PassWrites& wrote = reg.writes[w];
    if (!wrote.any) continue;
    const DeviceCopy* writer = w < reg.on.size() ? reg.on[w] : nullptr;  // nullptr: the host
    for (auto& holder : reg.data->copies) {
      if (holder.get() == writer) continue;
      if (plus_shaped(reg)) {
        holder->forget();
      } else {
        holder->valid.subtract(wrote.items);
        holder->dirty.subtract(wrote.items);
      }
    }
    wrote.items.clear();
    wrote.any = false;
  }
}

/// The items a worker running `range` (items) needs its copy of `reg` to hold: its rows and
/// halo, or all of a FULL buffer.
Range window_need(const Registration& reg, Range range) {
  if (reg.desc.assoc == TSAR_ASSOC_FULL) return {0, rows_of(reg)};
  return MemoryRegistry::needed(reg.desc, range);
}

/// Rows a worker running `range` reads of `reg` (window_need), or of an output it writes, the
/// rows whose host values its copy starts from.
Range touched(const Registration& reg, Range range) {
  if (range.empty()) return {};
  if (!reads(reg)) return clip(range, rows_of(reg));
  return window_need(reg, range);
}

/// The worker whose device holds `c` in this pass, or `otherwise`.
int worker_holding(const Registration& reg, const DeviceCopy& c, int otherwise) {
  for (std::size_t w = 0; w < reg.on.size(); ++w)
    if (reg.on[w] == &c) return static_cast<int>(w);
  return otherwise;
}

}  // namespace

std::size_t padded_stride(std::size_t cols, std::size_t elem_size, std::size_t alignment,
                          bool pad) {
  if (!pad || alignment == 0 || alignment % elem_size != 0) return cols;
  const std::size_t per_line = alignment / elem_size;
  return (cols + per_line - 1) / per_line * per_line;
}

CopyEngine::CopyEngine(int workers)
    : workers_(workers), traffic_(static_cast<std::size_t>(workers)) {}

void CopyEngine::begin_pass(MemoryRegistry& memory, Reductions& reductions,
                            std::span<const std::shared_ptr<Device>> devices, std::int64_t origin) {
  origin_ = origin;
  ++pass_;  // every worker's state is the last pass's: cleared when first touched (state)
  // The workers on devices with their own memory, found again only when a device changed.
  if (!std::equal(devices.begin(), devices.end(), pass_devices_.begin(), pass_devices_.end(),
                  [](const std::shared_ptr<Device>& d, const Device* p) { return d.get() == p; })) {
    pass_devices_.clear();
    linked_.clear();
    for (int w = 0; w < workers_; ++w) {
      pass_devices_.push_back(devices[sz(w)].get());
      if (!devices[sz(w)]->description().host_memory) linked_.push_back(w);
    }
  }
  for (int w = 0; w < workers_ && !reductions.empty(); ++w)
    if (devices[sz(w)]->description().host_memory) reductions.release_device(w);
  for (Registration& reg : memory.registrations()) {
    BufferData& data = *reg.data;
    reg.on.assign(sz(workers_), nullptr);
    if (reg.writes.size() != sz(workers_)) reg.writes = std::vector<PassWrites>(sz(workers_));
    if (!data.shared) {
      // A copy on a device no worker drives any more (back-off, out of memory) goes, and a
      // non-persistent one forgets its contents -- rows only it holds reach the host first
      // (no worker runs yet).
      auto& copies = data.copies;
      for (std::size_t k = 0; k < copies.size();) {
        DeviceCopy& c = *copies[k];
        const bool left = std::find(devices.begin(), devices.end(), c.device) == devices.end();
        if (left || !persistent(reg))
          state(c.worker).bytes.from_device += write_back_rows(data, c, {0, rows_of(reg)});
        if (left) {
          copies.erase(copies.begin() + static_cast<std::ptrdiff_t>(k));
          continue;
        }
        if (!persistent(reg)) c.forget();
        ++k;
      }
    }
    for (const int w : linked_) {
      DeviceCopy& c = data.ensure_copy(devices[sz(w)]);
      c.worker = w;
      reg.on[sz(w)] = &c;
    }
  }
}

void CopyEngine::end_pass(MemoryRegistry& memory) {
  for (Registration& reg : memory.registrations()) settle(reg);
  // Rows a neighbour copied straight in are current there (settle made them stale first).
  // Only workers on devices with their own memory copy rows straight into other copies.
  for (const int w : linked_) {
    WorkerState& s = traffic_[sz(w)];
    for (auto& [to, rows] : s.delivered) to->valid.add(rows);
    s.delivered.clear();
  }
  for (Registration& reg : memory.registrations())
    if (reg.data->checked) record_held(*reg.data, reg.desc.assoc);
}

void CopyEngine::exchange(MemoryRegistry& memory, std::span<const Range> ranges) {
  ordered_.clear();
  for (Registration& reg : memory.registrations()) {
    if (!reads(reg) && overwrites(reg)) continue;  // nobody needs the rows' values
    BufferData& data = *reg.data;
    try {
      // Every copy counts, also of devices outside this region (a data environment's).
      for (auto& held : data.copies) {
        DeviceCopy& c = *held;
        if (c.dirty.empty()) continue;
        const int holder = worker_holding(reg, c, -1);
        if (ranges.empty()) {
          state(std::max(holder, 0)).bytes.from_device +=
              queue_rows_back(data, c, {0, rows_of(reg)});
          continue;
        }
        for (int v = 0; v < workers_; ++v) {
          const Range r = items(ranges[sz(v)]);
          DeviceCopy* reader = reg.on[sz(v)];
          if (reader == &c || r.empty()) continue;
          const Range rows = touched(reg, r);
          // What the reader lacks of c's rows goes straight into its copy where c's device can
          // copy there: a data environment's halo rows, which another loop left on one GPU and
          // this one reads on the next, took a write-back the planner waited for and a copy in
          // (docs/results/archive/tsar/two-gpu-halos/2026-11-27-h200x2-25f4ff5.txt). Its window is
          // placed first, as its stage_in would place it, so it keeps them; where its memory
          // runs short, the rows go through the host and its stage_in gives the device up.
          bool peer = reader != nullptr && !by_cols(reg) && !plus_shaped(reg) &&
                      c.device->can_copy_peer(*reader->device);
          try {
            if (peer) place_window(reg, *reader, *reader->device, window_need(reg, r));
          } catch (const DeviceOutOfMemory&) {
            peer = false;
          }
          // A reader's copy that holds rows current (a neighbour copied them in) and keeps its
          // window this pass needs nothing from the host.
          IntervalSet& need = traffic_[sz(v)].need;
          need.clear();
          need.add(rows);
          const bool keeps = reader != nullptr && reader->data != nullptr &&
                             reader->window.begin <= rows.begin && rows.end <= reader->window.end;
          if (keeps) need.subtract(reader->valid);
          const bool straight = peer && keeps && reader->stride == c.stride;
          Traffic& t = state(holder >= 0 ? holder : v).bytes;
          for (const Range& part : need.parts()) {
            if (straight) {
              const std::int64_t bytes = copy_rows_to_peer(data, c, *reader, part);
              t.from_device += bytes;
              t.peer += bytes;
            } else {
              t.from_device += queue_rows_back(data, c, part);
            }
          }
        }
      }
    } catch (...) {
      all_rows_arrived(data);
      throw;
    }
    all_rows_arrived(data);
  }
  // The readers' work waits for the copies into their memory, the host does not (where the
  // backend can order one queue after another).
  for (const auto& [from, to] : ordered_)
    if (!from->order_before(*to)) from->synchronize();
  plan_peer_copies(memory, ranges);
}

std::int64_t CopyEngine::copy_rows_to_peer(const BufferData& data, DeviceCopy& c, DeviceCopy& to,
                                           Range rows) {
  thread_local IntervalSet out;  // as in queue_rows_back
  out = c.dirty;
  out.clip(rows);
  if (out.empty()) return 0;
  std::int64_t moved = 0;
  for (const Range& r : out.parts()) {
    moved += rows_to_peer(data, c, *c.device, *to.device, to.data, to.window.begin, r);
    to.valid.add(r);
  }
  const std::pair<Device*, Device*> pair{c.device.get(), to.device.get()};
  if (std::find(ordered_.begin(), ordered_.end(), pair) == ordered_.end()) ordered_.push_back(pair);
  return moved;
}

void CopyEngine::plan_peer_copies(MemoryRegistry& memory, std::span<const Range> ranges) {
  for (const int w : linked_) traffic_[sz(w)].peer.clear();  // peer copies are theirs alone
  if (ranges.empty()) return;                                // chunks: nobody knows who reads what
  for (Registration& reg : memory.registrations()) {
    const auto halo = static_cast<std::int64_t>(reg.desc.halo);
    if (!resident(reg) || !writes(reg) || halo == 0) continue;
    for (int w = 0; w < workers_; ++w) {
      const DeviceCopy* mine = reg.on[sz(w)];
      const Range own = clip(items(ranges[sz(w)]), rows_of(reg));
      if (mine == nullptr || own.empty()) continue;
      // Each boundary, and the worker whose range reads it as halo (the row beyond it).
      for (const auto& [rows, beyond] :
           {std::pair{Range{own.begin, std::min(own.end, own.begin + halo)}, own.begin - 1},
            std::pair{Range{std::max(own.begin, own.end - halo), own.end}, own.end}}) {
        if (beyond < 0 || beyond >= rows_of(reg)) continue;
        for (int v = 0; v < workers_; ++v) {
          DeviceCopy* to = reg.on[sz(v)];
          const Range r = items(ranges[sz(v)]);
          if (v == w || r.begin > beyond || beyond >= r.end || to == nullptr || to == mine)
            continue;
          // Its copy holds the rows, in the same layout, and keeps its window (stage_buffer
          // moves a window that does not cover the range it needs).
          const Range need = MemoryRegistry::needed(reg.desc, r);
          const bool keeps = to->data != nullptr && to->stride == mine->stride &&
                             to->window.begin <= std::min(need.begin, rows.begin) &&
                             std::max(need.end, rows.end) <= to->window.end;
          if (keeps && mine->device->can_copy_peer(*to->device))
            traffic_[sz(w)].peer.push_back({reg.data.get(), rows, to, to->data, to->window.begin});
        }
      }
    }
  }
}

std::int64_t CopyEngine::copy_to_peer(const BufferData& data, DeviceCopy& c, Device& device,
                                      WorkerState& me, Range rows) {
  for (const PeerTarget& t : me.peer) {
    if (t.data != &data || t.rows.begin != rows.begin || t.rows.end != rows.end) continue;
    const std::int64_t bytes = rows_to_peer(data, c, device, *t.to->device, t.base, t.first, rows);
    me.delivered.emplace_back(t.to, rows);
    return bytes;
  }
  return -1;
}

std::int64_t CopyEngine::write_back(BufferData& data, Range rows) {
  std::int64_t moved = 0;
  try {
    for (auto& c : data.copies) moved += queue_rows_back(data, *c, rows);
  } catch (...) {
    all_rows_arrived(data);
    throw;
  }
  all_rows_arrived(data);
  if (data.checked) record_host_rows(data, rows);  // the host's rows are TSAR's doing
  return moved;
}

std::int64_t CopyEngine::write_back_rows(const BufferData& data, DeviceCopy& c, Range rows) {
  std::int64_t moved = 0;
  try {
    moved = queue_rows_back(data, c, rows);
  } catch (...) {
    c.leaving.clear();  // what was queued stays resident: written back again if needed
    throw;
  }
  rows_arrived(c);
  return moved;
}

std::int64_t CopyEngine::queue_rows_back(const BufferData& data, DeviceCopy& c, Range rows) {
  if (c.dirty.empty() || rows.empty()) return 0;
  // The rows of this call not queued before (halos of two neighbours may overlap), in the
  // thread's scratch set: copied into its capacity, so a steady pass allocates nothing.
  thread_local IntervalSet out;
  out = c.dirty;
  out.clip(rows);
  out.subtract(c.leaving);
  if (out.empty()) return 0;
  std::int64_t moved = 0;
  for (const Range& r : out.parts()) {
    moved += rows_to_host(data, c, *c.device, r);
    c.leaving.add(r);
  }
  c.moved_out += moved;
  return moved;
}

void CopyEngine::rows_arrived(DeviceCopy& c) {
  if (c.leaving.empty()) return;
  c.device->synchronize();
  c.dirty.subtract(c.leaving);
  c.leaving.clear();
}

void CopyEngine::all_rows_arrived(BufferData& data) {
  std::exception_ptr failure;
  for (auto& held : data.copies) {
    DeviceCopy& c = *held;
    try {
      rows_arrived(c);
    } catch (...) {
      c.leaving.clear();  // its rows stay resident
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

void CopyEngine::grow_keeping_resident(const BufferData& data, DeviceCopy& c, Range target,
                                       std::size_t bytes) {
  // ROWS copies keep their row stride whatever their window, and a persistent window only
  // grows: the old allocation lands whole inside the new one.
  void* fresh = c.device->allocate(bytes);
  const std::size_t shift = sz(c.window.begin - target.begin) * c.stride * data.shape.elem_size;
  try {
    c.device->copy_on_device(static_cast<unsigned char*>(fresh) + shift, c.data, c.bytes);
    c.device->synchronize();
  } catch (...) {
    c.device->release(fresh, bytes);
    throw;
  }
  c.device->release(c.data, c.bytes);
  c.data = fresh;
  c.bytes = bytes;
  c.window = target;
}

void CopyEngine::stage_in(MemoryRegistry& memory, Reductions& reductions, int worker,
                          const std::shared_ptr<Device>& device, Range range) {
  range = items(range);
  WorkerState& me = state(worker);
  if (!me.staged) {
    me.bytes.to_device += static_cast<std::int64_t>(reductions.stage_device(worker, device));
    me.staged = true;
  }
  me.collected = false;
  for (Registration& reg : memory.registrations()) stage_buffer(reg, me, worker, device, range);
}

void CopyEngine::place_window(Registration& reg, DeviceCopy& c, Device& device, Range need) {
  const tsar_mem_desc& d = reg.desc;
  const std::size_t e = d.elem_size;
  const bool pad = (d.flags & TSAR_MEM_PAD) != 0;
  const std::size_t align = device.description().alignment;
  const std::int64_t items = by_cols(reg) ? cols_of(reg) : rows_of(reg);
  const bool whole = d.assoc == TSAR_ASSOC_FULL || plus_shaped(reg);
  // The window of items the allocation holds, and the allocation's layout for a window size.
  const auto stride_for = [&](std::size_t window) {
    return by_cols(reg) ? padded_stride(window, e, align, pad)
                        : (pad ? padded_stride(d.cols, e, align, true) : d.row_stride);
  };
  const auto bytes_for = [&](std::size_t window) {
    return by_cols(reg) ? span_bytes(d.rows, stride_for(window), window, e)
                        : span_bytes(window, stride_for(window), d.cols, e);
  };
  Range target = c.window;
  const bool holds = c.data != nullptr && c.window.begin <= need.begin && need.end <= c.window.end;
  if (whole) {
    target = {0, items};
  } else if (!holds) {
    if (persistent(reg)) {
      // Persistent: grow to cover the old and the new range and keep the rows whose contents
      // stay valid. With some slack, the first allocation too, so a split that moves a little
      // never reallocates: growing costs an allocation, a device copy and a free, milliseconds
      // for a pass of tenths of one
      // (docs/results/tsar/pass-trace-jacobi/2026-11-26-h100-10235c4.txt).
      const Range hull = c.data == nullptr ? need
                                           : Range{std::min(c.window.begin, need.begin),
                                                   std::max(c.window.end, need.end)};
      const std::int64_t slack = std::max<std::int64_t>(1, hull.size() / 8);
      target = clip({hull.begin - slack, hull.end + slack}, items);
    } else {
      // Move the window to the new range, keeping the allocation when it is large enough.
      const std::int64_t size =
          std::min(items, std::max(need.size(), c.data != nullptr ? c.window.size() : 0));
      const std::int64_t begin = std::min(need.begin, items - size);
      target = {begin, begin + size};
    }
  }
  if (c.data == nullptr || target.begin != c.window.begin || target.end != c.window.end) {
    // A persistent row copy that grows keeps its rows in the same stride: what they hold is
    // carried over instead of read again (a data environment's loops split differently).
    const bool keeps_valid = persistent(reg) && !by_cols(reg) && !plus_shaped(reg) &&
                             c.data != nullptr && !c.valid.empty() &&
                             target.begin <= c.window.begin && c.window.end <= target.end;
    if (!c.dirty.empty() || keeps_valid) {
      // Rows only the device holds (resident outputs of a persistent copy), or still valid
      // ones: carried over.
      grow_keeping_resident(*reg.data, c, target, bytes_for(sz(target.size())));
    } else if (c.data != nullptr && target.size() == c.window.size()) {
      c.window = target;  // same allocation, other items
      c.forget();
    } else {
      // A new allocation starts empty: what the old one held is read again when needed.
      c.release();
      const std::size_t bytes = bytes_for(sz(target.size()));
      c.data = device.allocate(bytes);
      c.bytes = bytes;
      c.window = target;
      c.stride = stride_for(sz(target.size()));
    }
  }
}

void CopyEngine::stage_buffer(Registration& reg, WorkerState& me, int worker,
                              const std::shared_ptr<Device>& device, Range range) {
  if (reg.on[sz(worker)] == nullptr)
    throw Error(TSAR_ERR_STATE, "buffer " + address_text(reg.host()) + " has no copy for " +
                                    device->description().key + " in this pass");
  DeviceCopy& c = *reg.on[sz(worker)];
  BufferData& data = *reg.data;
  if (device->description().pin_host && (reg.desc.flags & TSAR_MEM_NO_PIN) == 0)
    std::call_once(data.pin->once,
                   [&] { data.pin->handle = device->pin_host(data.host, data.extent); });
  const tsar_mem_desc& d = reg.desc;
  const std::size_t e = d.elem_size;
  const std::int64_t items = by_cols(reg) ? cols_of(reg) : rows_of(reg);
  const Range need = window_need(reg, range);
  const Range need_cols = MemoryRegistry::needed_cols(d, range);
  place_window(reg, c, *device, need);

  unsigned char* dev = static_cast<unsigned char*>(c.data);
  if (plus_shaped(reg) && writes(reg)) {
    stage_plus_output(reg, c, me, *device, need, need_cols);
    return;
  }
  // An output's copy starts from the host's values of the range's own rows or columns, so
  // what the body leaves alone comes back unchanged -- unless the loop writes every element
  // (TSAR_MEM_OVERWRITE) and the device's values may start as anything.
  if (!reads(reg) && overwrites(reg)) {
    if (checks_overwrite(reg))
      fill_unwritten(*device, c.data, packed_items(reg, c, clip(range, items), true), me.check);
    return;
  }
  const Range fill = reads(reg) ? need : clip(range, items);
  const auto* host = static_cast<const unsigned char*>(reg.host());
  const std::size_t rows = d.rows;
  const std::size_t win = sz(c.window.size());
  std::int64_t moved = 0;
  if (!by_cols(reg)) {
    c.valid.missing(fill, me.missing);
    for (const Range& m : me.missing) {
      const std::size_t k = sz(m.size());
      const std::size_t at = sz(m.begin - c.window.begin);
      if (c.stride == d.row_stride) {
        const std::size_t bytes = span_bytes(k, c.stride, d.cols, e);
        device->copy_to_device(dev + at * c.stride * e, host + sz(m.begin) * d.row_stride * e,
                               bytes);
        moved += static_cast<std::int64_t>(bytes);
      } else {
        device->copy_rect_to_device(
            dev, host,
            rect2(e, k, d.cols, at, 0, win, c.stride, sz(m.begin), 0, rows, d.row_stride));
        moved += static_cast<std::int64_t>(k * d.cols * e);
      }
      c.valid.add(m);
    }
  }
  if (by_cols(reg) || plus_shaped(reg)) {
    const Range cols_needed = by_cols(reg) ? fill : need_cols;
    IntervalSet& valid = by_cols(reg) ? c.valid : c.valid_cols;
    const std::int64_t first = by_cols(reg) ? c.window.begin : 0;
    valid.missing(cols_needed, me.missing);
    for (const Range& m : me.missing) {
      const std::size_t k = sz(m.size());
      device->copy_rect_to_device(dev, host,
                                  rect2(e, rows, k, 0, sz(m.begin - first), rows, c.stride, 0,
                                        sz(m.begin), rows, d.row_stride));
      moved += static_cast<std::int64_t>(rows * k * e);
      valid.add(m);
    }
  }
  me.bytes.to_device += moved;
  c.moved_in += moved;
}

void CopyEngine::stage_plus_output(Registration& reg, DeviceCopy& c, WorkerState& me,
                                   Device& device, Range rows_needed, Range cols_needed) {
  // The device starts from a snapshot of the host's rows and columns, so "changed by the
  // device" is exactly "differs from the snapshot" when merging back, even while CPU workers
  // write other elements of those rows and columns in place.
  const tsar_mem_desc& d = reg.desc;
  const std::size_t e = d.elem_size;
  const std::size_t rows = d.rows;
  const auto* host = static_cast<const unsigned char*>(reg.host());
  auto* dev = static_cast<unsigned char*>(c.data);
  const std::size_t kr = sz(rows_needed.size()), kc = sz(cols_needed.size());
  c.snap_rows = rows_needed;
  c.snap_cols = cols_needed;
  c.row_snapshot.resize(kr * d.cols * e);
  c.col_snapshot.resize(rows * kc * e);
  if (kr > 0) {
    copy_rect_host(
        c.row_snapshot.data(), host,
        rect2(e, kr, d.cols, 0, 0, kr, d.cols, sz(rows_needed.begin), 0, rows, d.row_stride));
    device.copy_rect_to_device(
        dev, c.row_snapshot.data(),
        rect2(e, kr, d.cols, sz(rows_needed.begin), 0, rows, c.stride, 0, 0, kr, d.cols));
  }
  if (kc > 0) {
    copy_rect_host(
        c.col_snapshot.data(), host,
        rect2(e, rows, kc, 0, 0, rows, kc, 0, sz(cols_needed.begin), rows, d.row_stride));
    device.copy_rect_to_device(
        dev, c.col_snapshot.data(),
        rect2(e, rows, kc, 0, sz(cols_needed.begin), rows, c.stride, 0, 0, rows, kc));
  }
  c.valid.add(rows_needed);
  c.valid_cols.add(cols_needed);
  const auto moved = static_cast<std::int64_t>((kr * d.cols + rows * kc) * e);
  me.bytes.to_device += moved;
  c.moved_in += moved;
}

void CopyEngine::copy_back(Registration& reg, WorkerState& me, int worker, Device& device,
                           Range range) {
  DeviceCopy& c = *reg.on[sz(worker)];
  PassWrites& wrote = reg.writes[sz(worker)];
  const tsar_mem_desc& d = reg.desc;
  const std::size_t e = d.elem_size;
  const std::size_t rows = d.rows;
  auto* host = static_cast<unsigned char*>(reg.host());
  const auto* dev = static_cast<const unsigned char*>(c.data);
  std::int64_t moved = 0;
  if (plus_shaped(reg)) {
    // Into scratch, merged after the device is synchronised (merge_plus).
    const Range own_rows = clip(range, rows_of(reg));
    const Range own_cols = clip(range, cols_of(reg));
    const std::size_t row_part = sz(own_rows.size()) * d.cols * e;
    c.scratch.resize(row_part + rows * sz(own_cols.size()) * e);
    if (!own_rows.empty()) {
      device.copy_rect_from_device(c.scratch.data(), dev,
                                   rect2(e, sz(own_rows.size()), d.cols, 0, 0, sz(own_rows.size()),
                                         d.cols, sz(own_rows.begin), 0, rows, c.stride));
      moved += static_cast<std::int64_t>(row_part);
    }
    if (!own_cols.empty()) {
      device.copy_rect_from_device(
          c.scratch.data() + row_part, dev,
          rect2(e, rows, sz(own_cols.size()), 0, 0, rows, sz(own_cols.size()), 0,
                sz(own_cols.begin), rows, c.stride));
      moved += static_cast<std::int64_t>(rows * sz(own_cols.size()) * e);
    }
  } else if (by_cols(reg)) {
    const Range own = clip(range, cols_of(reg));
    if (own.empty()) return;
    device.copy_rect_from_device(
        host, dev,
        rect2(e, rows, sz(own.size()), 0, sz(own.begin), rows, d.row_stride, 0,
              sz(own.begin - c.window.begin), rows, c.stride));
    moved += static_cast<std::int64_t>(rows * sz(own.size()) * e);
    c.valid.add(own);
    wrote.items.add(own);
  } else {
    const Range own = clip(range, rows_of(reg));
    if (own.empty()) return;
    // Resident: the rows stay here until someone needs them (exchange, write_back) -- except
    // the boundary rows of an output with a halo: once the program swaps it in, they are its
    // neighbours' halos. Copied back now, under the wait for this range, they are on the host
    // when the next pass starts, instead of the planner copying them back and waiting for
    // every device while all workers wait for it.
    if (resident(reg)) {
      c.dirty.add(own);
      const auto halo = static_cast<std::int64_t>(d.halo);
      // Into the neighbour's copy where exchange arranged it (they stay resident here).
      const std::pair<Range, bool> boundaries[] = {
          {{own.begin, std::min(own.end, own.begin + halo)}, halo > 0 && own.begin > 0},
          {{std::max(own.begin, own.end - halo), own.end}, halo > 0 && own.end < rows_of(reg)}};
      for (const auto& [boundary, bordered] : boundaries) {
        if (!bordered) continue;
        const std::int64_t peer = copy_to_peer(*reg.data, c, device, me, boundary);
        if (peer >= 0) {
          moved += peer;
          me.bytes.peer += peer;
        } else {
          c.leaving.add(boundary);
        }
      }
      for (const Range& r : c.leaving.parts()) moved += rows_to_host(*reg.data, c, device, r);
    } else {
      moved += rows_to_host(*reg.data, c, device, own);
    }
    c.valid.add(own);
    wrote.items.add(own);
  }
  wrote.any = true;
  me.bytes.from_device += moved;
  c.moved_out += moved;
}

namespace {

/// Writes into the host buffer the elements of a ROWS_COLS output the device changed: those
/// that differ from the snapshot taken when they were copied in.
void merge_plus(Registration& reg, DeviceCopy& c, Range range) {
  const tsar_mem_desc& d = reg.desc;
  const std::size_t e = d.elem_size;
  const std::size_t rows = d.rows;
  auto* host = static_cast<unsigned char*>(reg.host());
  const Range own_rows = clip(range, rows_of(reg));
  const Range own_cols = clip(range, cols_of(reg));
  const unsigned char* got = c.scratch.data();
  for (std::int64_t i = own_rows.begin; i < own_rows.end; ++i)
    for (std::size_t j = 0; j < d.cols; ++j) {
      const unsigned char* now = got + (sz(i - own_rows.begin) * d.cols + j) * e;
      const unsigned char* was =
          c.row_snapshot.data() + (sz(i - c.snap_rows.begin) * d.cols + j) * e;
      if (std::memcmp(now, was, e) != 0) std::memcpy(host + (sz(i) * d.row_stride + j) * e, now, e);
    }
  got += sz(own_rows.size()) * d.cols * e;
  const std::size_t ow = sz(own_cols.size());
  const std::size_t sw = sz(c.snap_cols.size());
  for (std::size_t i = 0; i < rows; ++i)
    for (std::int64_t j = own_cols.begin; j < own_cols.end; ++j) {
      const unsigned char* now = got + (i * ow + sz(j - own_cols.begin)) * e;
      const unsigned char* was = c.col_snapshot.data() + (i * sw + sz(j - c.snap_cols.begin)) * e;
      if (std::memcmp(now, was, e) != 0) std::memcpy(host + (i * d.row_stride + sz(j)) * e, now, e);
    }
}

}  // namespace

void CopyEngine::stage_out(MemoryRegistry& memory, Reductions& reductions, int worker,
                           Device& device, Range range, bool last) {
  range = items(range);
  WorkerState& me = state(worker);
  if (device.description().host_memory) {
    // A CPU worker wrote its rows or columns in place: they go stale on the devices.
    if (range.empty()) return;
    for (Registration& reg : memory.registrations()) {
      if (!writes(reg)) continue;
      PassWrites& wrote = reg.writes[sz(worker)];
      if (!plus_shaped(reg))
        wrote.items.add(clip(range, by_cols(reg) ? cols_of(reg) : rows_of(reg)));
      wrote.any = true;
    }
    return;
  }
  bool merge = false;
  const bool collect = last && me.staged;
  try {
    // Before anything comes back, so a failed check leaves the host's values as they were.
    for (Registration& reg : memory.registrations()) {
      if (!checks_overwrite(reg)) continue;
      const Range own = clip(range, by_cols(reg) ? cols_of(reg) : rows_of(reg));
      verify_written(reg, device, reg.on[sz(worker)]->data,
                     packed_items(reg, *reg.on[sz(worker)], own, false), own, me.check);
    }
    for (Registration& reg : memory.registrations()) {
      if (!writes(reg)) continue;
      copy_back(reg, me, worker, device, range);
      merge = merge || plus_shaped(reg);
    }
    // A second wait for the accumulators alone would cost a round trip to the device per pass.
    if (collect)
      me.bytes.from_device += static_cast<std::int64_t>(reductions.collect_device(worker, device));
    device.synchronize();
  } catch (...) {
    for (Registration& reg : memory.registrations())
      if (writes(reg)) reg.on[sz(worker)]->leaving.clear();  // those rows stay resident
    throw;
  }
  for (Registration& reg : memory.registrations()) {
    if (!writes(reg)) continue;
    DeviceCopy& c = *reg.on[sz(worker)];
    c.dirty.subtract(c.leaving);  // boundary rows copied back (copy_back)
    c.leaving.clear();
  }
  me.collected = collect;
  if (!merge) return;
  for (Registration& reg : memory.registrations())
    if (writes(reg) && plus_shaped(reg)) merge_plus(reg, *reg.on[sz(worker)], range);
}

void CopyEngine::collect_reductions(Reductions& reductions, int worker, Device& device) {
  WorkerState& me = state(worker);
  if (!me.staged || me.collected) return;
  me.bytes.from_device += static_cast<std::int64_t>(reductions.collect_device(worker, device));
  device.synchronize();
}

void CopyEngine::abandon_device(MemoryRegistry& memory, Reductions& reductions, int worker,
                                Device& device) {
  try {
    collect_reductions(reductions, worker, device);
  } catch (const Error&) {
    // The device failed as well: its partial results are lost with it.
  }
  for (Registration& reg : memory.registrations()) {
    DeviceCopy* c = std::exchange(reg.on[sz(worker)], nullptr);  // the worker goes on as a CPU
    // Resident rows exist only there: written back when another worker reads them, or when
    // the copy goes at the next pass's start (begin_pass), when no worker writes the host.
    if (c != nullptr && c->dirty.empty()) c->release();
  }
  reductions.release_device(worker);
  state(worker).staged = state(worker).collected = false;
}

}  // namespace tsar::core
