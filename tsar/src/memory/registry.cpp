// SPDX-License-Identifier: BSD-3-Clause
#include "memory/registry.hpp"

#include <algorithm>
#include <string>

#include "api/error.hpp"
#include "devices/device.hpp"
#include "memory/address_range.hpp"
#include "memory/copy_engine.hpp"
#include "memory/data_environment.hpp"
#include "memory/reductions.hpp"

namespace tsar::core {
namespace {

bool mul_overflows(std::size_t a, std::size_t b, std::size_t* out) {
  return __builtin_mul_overflow(a, b, out);
}

}  // namespace

tsar_mem_desc validate_mem_desc(const void* host, const tsar_mem_desc& in, std::size_t* extent) {
  if (host == nullptr) throw Error(TSAR_ERR_NULL, "registering memory: host pointer is NULL");
  tsar_mem_desc d = in;
  const std::string what = "buffer " + address_text(host) + ": ";
  if (d.elem_size == 0) throw Error(TSAR_ERR_INVALID, what + "elem_size is 0");
  if (d.rows == 0 || d.cols == 0)
    throw Error(TSAR_ERR_INVALID, what + "rows and cols must be > 0 (got " +
                                      std::to_string(d.rows) + " x " + std::to_string(d.cols) +
                                      ")");
  if (d.row_stride == 0) d.row_stride = d.cols;
  if (d.row_stride < d.cols)
    throw Error(TSAR_ERR_INVALID, what + "row_stride " + std::to_string(d.row_stride) +
                                      " is smaller than cols " + std::to_string(d.cols));
  if (d.assoc < TSAR_ASSOC_FULL || d.assoc > TSAR_ASSOC_ROWS_COLS)
    throw Error(TSAR_ERR_INVALID, what + "unknown association " + std::to_string(d.assoc));
  constexpr unsigned kKnown =
      TSAR_MEM_INOUT | TSAR_MEM_PERSIST | TSAR_MEM_PAD | TSAR_MEM_RESIDENT | TSAR_MEM_OVERWRITE |
      TSAR_MEM_NO_PIN;
  if ((d.flags & ~kKnown) != 0)
    throw Error(TSAR_ERR_INVALID, what + "unknown flag bits " + std::to_string(d.flags & ~kKnown));
  if ((d.flags & TSAR_MEM_INOUT) == 0)
    throw Error(TSAR_ERR_INVALID,
                what + "flags name no direction (TSAR_MEM_IN and/or TSAR_MEM_OUT)");
  if ((d.flags & TSAR_MEM_OVERWRITE) != 0 && (d.flags & TSAR_MEM_INOUT) != TSAR_MEM_OUT)
    throw Error(TSAR_ERR_INVALID,
                what +
                    "TSAR_MEM_OVERWRITE is for outputs the loop does not read (TSAR_MEM_OUT "
                    "alone)");
  if (d.assoc == TSAR_ASSOC_FULL && (d.flags & TSAR_MEM_OUT) != 0)
    throw Error(TSAR_ERR_INVALID,
                what +
                    "a FULL buffer cannot be an output: devices would overwrite each other's "
                    "results (associate it by ROWS or COLS)");
  if ((d.flags & TSAR_MEM_RESIDENT) != 0 &&
      (d.assoc != TSAR_ASSOC_ROWS || (d.flags & TSAR_MEM_OUT) == 0 ||
       (d.flags & TSAR_MEM_PERSIST) == 0))
    throw Error(TSAR_ERR_INVALID,
                what +
                    "TSAR_MEM_RESIDENT needs a ROWS output with TSAR_MEM_PERSIST (rows stay "
                    "on the device that wrote them)");
  if (d.assoc == TSAR_ASSOC_FULL && d.halo != 0)
    throw Error(TSAR_ERR_INVALID, what + "a halo needs a ROWS or COLS association");
  // Items the halo counts in: rows, or columns of COLS; ROWS_COLS has both.
  const std::size_t items = d.assoc == TSAR_ASSOC_COLS        ? d.cols
                            : d.assoc == TSAR_ASSOC_ROWS_COLS ? std::min(d.rows, d.cols)
                                                              : d.rows;
  if (d.assoc != TSAR_ASSOC_FULL && d.halo >= items)
    throw Error(TSAR_ERR_INVALID, what + "halo " + std::to_string(d.halo) +
                                      " is not smaller than the " + std::to_string(items) +
                                      (d.assoc == TSAR_ASSOC_COLS ? " columns" : " rows") +
                                      " it pads");
  // Extent: (rows - 1) * row_stride + cols elements.
  std::size_t elems = 0, bytes = 0;
  if (mul_overflows(d.rows - 1, d.row_stride, &elems) ||
      __builtin_add_overflow(elems, d.cols, &elems) || mul_overflows(elems, d.elem_size, &bytes))
    throw Error(TSAR_ERR_INVALID, what + "size overflows the address space");
  if (!in_address_space(host, bytes))
    throw Error(TSAR_ERR_INVALID, what + std::to_string(bytes) +
                                      " bytes from this address run past the end of the "
                                      "address space");
  *extent = bytes;
  return d;
}

DeviceCopy* BufferData::copy_on(const Device& device) const {
  for (const auto& c : copies)
    if (c->device.get() == &device) return c.get();
  return nullptr;
}

DeviceCopy& BufferData::ensure_copy(const std::shared_ptr<Device>& device) {
  if (DeviceCopy* c = copy_on(*device)) return *c;
  copies.push_back(std::make_unique<DeviceCopy>());
  copies.back()->device = device;
  return *copies.back();
}

Registration* MemoryRegistry::entry(const void* host) {
  for (auto& e : entries_)
    if (e.host() == host) return &e;
  throw Error(TSAR_ERR_UNKNOWN,
              "buffer " + address_text(host) + " is not registered with this region");
}

void MemoryRegistry::check_overlap(const void* host, std::size_t extent, const void* ignore) const {
  const auto lo = reinterpret_cast<std::uintptr_t>(host);
  const auto hi = lo + extent;
  for (const auto& e : entries_) {
    if (e.host() == ignore) continue;
    const auto elo = reinterpret_cast<std::uintptr_t>(e.host());
    const auto ehi = elo + e.extent();
    if (e.host() == host)
      throw Error(TSAR_ERR_REGISTERED, "buffer " + address_text(host) + " is already registered");
    if (lo < ehi && elo < hi)
      throw Error(TSAR_ERR_REGISTERED,
                  "buffer " + address_text(host) + " (" + std::to_string(extent) +
                      " bytes) overlaps registered buffer " + address_text(e.host()) + " (" +
                      std::to_string(e.extent()) + " bytes)");
  }
}

MemoryRegistry::~MemoryRegistry() {
  if (env_) env_->detach(this);
}

void MemoryRegistry::attach(std::shared_ptr<DataEnvironment> env) {
  if (env_) throw Error(TSAR_ERR_STATE, "the region is attached to a data environment already");
  for (const auto& e : entries_)
    if (const BufferData* mapped = env->overlapping(e.host(), e.extent()))
      throw Error(TSAR_ERR_REGISTERED,
                  "the region registered buffer " + address_text(e.host()) +
                      " on its own and the data environment maps " + address_text(mapped->host) +
                      ", which overlaps it: unregister it first (two sets of device copies of "
                      "one buffer would disagree)");
  env->attach(this);
  env_ = std::move(env);
}

bool MemoryRegistry::shared() const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [](const Registration& e) { return e.data->shared; });
}

namespace {

/// The access of a registration of a mapped buffer: its shape and padding the map's, kept on
/// the devices between passes, its outputs left with the device that wrote them.
tsar_mem_desc shared_access(const tsar_mem_desc& d, const BufferData& data) {
  const tsar_mem_desc& s = data.shape;
  const std::string what = "buffer " + address_text(data.host) + ": ";
  if (d.elem_size != s.elem_size || d.rows != s.rows || d.cols != s.cols ||
      d.row_stride != s.row_stride)
    throw Error(TSAR_ERR_INVALID,
                what + "registered as " + std::to_string(d.rows) + " x " + std::to_string(d.cols) +
                    " elements of " + std::to_string(d.elem_size) + " bytes (row stride " +
                    std::to_string(d.row_stride) + ") but mapped as " + std::to_string(s.rows) +
                    " x " + std::to_string(s.cols) + " of " + std::to_string(s.elem_size) +
                    " (row stride " + std::to_string(s.row_stride) +
                    "): a region registers a mapped buffer with its shape");
  if (d.assoc != TSAR_ASSOC_ROWS && d.assoc != TSAR_ASSOC_FULL)
    throw Error(TSAR_ERR_UNSUPPORTED,
                what +
                    "a data environment keeps its buffers coherent by rows: register it by "
                    "ROWS (or FULL, read whole), or register a buffer it does not map");
  tsar_mem_desc a = d;
  a.flags = (a.flags & ~static_cast<unsigned>(TSAR_MEM_PAD)) | (s.flags & TSAR_MEM_PAD) |
            TSAR_MEM_PERSIST;
  if (a.assoc == TSAR_ASSOC_ROWS && (a.flags & TSAR_MEM_OUT) != 0) a.flags |= TSAR_MEM_RESIDENT;
  return a;
}

}  // namespace

void MemoryRegistry::add(void* host, const tsar_mem_desc& desc, const Reductions* reductions) {
  std::size_t extent = 0;
  const tsar_mem_desc d = validate_mem_desc(host, desc, &extent);
  check_overlap(host, extent, nullptr);
  if (reductions != nullptr)
    if (const void* result = reductions->overlapping(host, extent))
      throw Error(TSAR_ERR_REGISTERED, "buffer " + address_text(host) + " (" +
                                           std::to_string(extent) + " bytes) holds the result " +
                                           address_text(result) +
                                           " of a registered reduction: the pass would write "
                                           "it under the devices' copies");
  if (env_) {
    if (std::shared_ptr<BufferData> mapped = env_->find(host)) {
      entries_.push_back({shared_access(d, *mapped), std::move(mapped), {}, {}});
      return;
    }
    if (const BufferData* other = env_->overlapping(host, extent))
      throw Error(TSAR_ERR_REGISTERED,
                  "buffer " + address_text(host) + " (" + std::to_string(extent) +
                      " bytes) overlaps buffer " + address_text(other->host) +
                      " of the data environment: register the mapped buffer itself");
  }
  auto data = std::make_shared<BufferData>();
  data->host = host;
  data->shape = d;
  data->extent = extent;
  data->checked = check_;
  entries_.push_back({d, std::move(data), {}, {}});
}

void MemoryRegistry::remove(const void* host) {
  const Registration* e = entry(host);
  entries_.erase(entries_.begin() + (e - entries_.data()));
}

void MemoryRegistry::retarget(const void* old_host, void* new_host) {
  if (new_host == nullptr) throw Error(TSAR_ERR_NULL, "retargeting memory: new pointer is NULL");
  Registration* e = entry(old_host);
  if (e->data->shared)
    throw Error(TSAR_ERR_INVALID, "buffer " + address_text(old_host) +
                                      " is mapped in a data environment: register the new "
                                      "buffer instead (map it there too to share it)");
  check_overlap(new_host, e->extent(), old_host);
  BufferData& data = *e->data;
  data.host = new_host;
  data.pin = std::make_shared<HostPin>();
  for (auto& c : data.copies) c->forget();
  ++host_writes_;
}

void MemoryRegistry::swap(const void* a, const void* b) {
  Registration* x = entry(a);
  Registration* y = entry(b);
  if (x == y) throw Error(TSAR_ERR_INVALID, "swapping buffer " + address_text(a) + " with itself");
  const tsar_mem_desc& p = x->desc;
  const tsar_mem_desc& q = y->desc;
  if (p.elem_size != q.elem_size || p.rows != q.rows || p.cols != q.cols ||
      p.row_stride != q.row_stride || p.assoc != q.assoc ||
      (p.flags & TSAR_MEM_PAD) != (q.flags & TSAR_MEM_PAD))
    throw Error(TSAR_ERR_INVALID, "buffers " + address_text(a) + " and " + address_text(b) +
                                      " differ in shape, association or padding: only the "
                                      "buffers of one double-buffered array can be swapped");
  std::swap(x->data, y->data);
}

void MemoryRegistry::invalidate(const void* host) {
  const BufferData& data = *entry(host)->data;
  if (data.shared) {
    env_->update_device(host, 0, DataEnvironment::kAllRows);
    return;
  }
  for (auto& c : data.copies) c->forget();
  ++host_writes_;
}

std::uint64_t MemoryRegistry::host_writes() const {
  return host_writes_ + (env_ ? env_->host_writes() : 0);
}

std::int64_t MemoryRegistry::write_back(const void* host) {
  BufferData& data = *entry(host)->data;
  return data.shared ? env_->update_host(host, 0, DataEnvironment::kAllRows)
                     : CopyEngine::write_back(data);
}

const Registration* MemoryRegistry::find(const void* host) const {
  for (const auto& e : entries_)
    if (e.host() == host) return &e;
  return nullptr;
}

const Registration* MemoryRegistry::overlapping(const void* p, std::size_t bytes) const {
  const auto lo = reinterpret_cast<std::uintptr_t>(p);
  for (const auto& e : entries_) {
    const auto elo = reinterpret_cast<std::uintptr_t>(e.host());
    if (lo < elo + e.extent() && elo < lo + bytes) return &e;
  }
  return nullptr;
}

void MemoryRegistry::check_pass(std::int64_t n) const {
  for (const auto& e : entries_) {
    std::size_t items = 0;
    const char* dim = "";
    switch (e.desc.assoc) {
      case TSAR_ASSOC_ROWS:
        items = e.desc.rows;
        dim = "rows";
        break;
      case TSAR_ASSOC_COLS:
        items = e.desc.cols;
        dim = "columns";
        break;
      case TSAR_ASSOC_ROWS_COLS:
        items = std::min(e.desc.rows, e.desc.cols);
        dim = "rows/columns";
        break;
      default:
        continue;
    }
    if (static_cast<std::uint64_t>(n) > items)
      throw Error(TSAR_ERR_INVALID, "buffer " + address_text(e.host()) + " has " +
                                        std::to_string(items) + " " + dim + " but the pass has " +
                                        std::to_string(n) +
                                        " iterations (iteration i uses item i)");
  }
}

void MemoryRegistry::enter_pass(std::int64_t n, const std::string& who) {
  check_pass(n);
  if (env_ && shared()) {
    env_->enter(who);
    entered_ = true;
  }
  try {
    for (const auto& e : entries_)
      if (e.data->checked) verify_held(*e.data, e.desc.assoc);
  } catch (...) {
    leave_pass();
    throw;
  }
}

void MemoryRegistry::leave_pass() {
  if (!entered_) return;
  entered_ = false;
  env_->leave();
}

tsar_mem_layout MemoryRegistry::view(const Registration& reg, const Device& device, int worker) {
  if (device.description().host_memory) return {reg.host(), reg.desc.row_stride, 0, 0};
  const auto w = static_cast<std::size_t>(worker);
  const DeviceCopy* c = w < reg.on.size() ? reg.on[w] : nullptr;
  if (c == nullptr || c->data == nullptr || c->device.get() != &device)
    throw Error(TSAR_ERR_STATE, "buffer " + address_text(reg.host()) + " has no copy on " +
                                    device.description().key +
                                    " yet: ask for it after tsar_next gave the worker a range");
  const bool cols = reg.desc.assoc == TSAR_ASSOC_COLS;
  return {c->data, c->stride, cols ? 0 : c->window.begin, cols ? c->window.begin : 0};
}

Range MemoryRegistry::needed(const tsar_mem_desc& desc, Range range) {
  if (desc.assoc == TSAR_ASSOC_FULL || range.empty()) return {};
  const auto items =
      static_cast<std::int64_t>(desc.assoc == TSAR_ASSOC_COLS ? desc.cols : desc.rows);
  const auto halo = static_cast<std::int64_t>(desc.halo);
  return {std::max<std::int64_t>(0, range.begin - halo), std::min(items, range.end + halo)};
}

Range MemoryRegistry::needed_cols(const tsar_mem_desc& desc, Range range) {
  if (desc.assoc != TSAR_ASSOC_ROWS_COLS || range.empty()) return {};
  const auto items = static_cast<std::int64_t>(desc.cols);
  const auto halo = static_cast<std::int64_t>(desc.halo);
  return {std::max<std::int64_t>(0, range.begin - halo), std::min(items, range.end + halo)};
}

}  // namespace tsar::core
