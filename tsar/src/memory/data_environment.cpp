// SPDX-License-Identifier: BSD-3-Clause
#include "memory/data_environment.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "api/error.hpp"
#include "memory/address_range.hpp"
#include "memory/copy_engine.hpp"
#include "schedule/participation_trial.hpp"

namespace tsar::core {
namespace {

/// Rows [first, first + count) of `data` (count kAllRows: to the last), checked.
Range row_range(const BufferData& data, std::size_t first, std::size_t count) {
  const std::size_t rows = data.shape.rows;
  if (first <= rows && count == DataEnvironment::kAllRows) count = rows - first;
  if (first > rows || count > rows - first)
    throw Error(TSAR_ERR_INVALID, "rows " + std::to_string(first) + " + " + std::to_string(count) +
                                      " lie outside buffer " + address_text(data.host) + " of " +
                                      std::to_string(rows) + " rows");
  return {static_cast<std::int64_t>(first), static_cast<std::int64_t>(first + count)};
}

}  // namespace

DataEnvironment::~DataEnvironment() {
  for (const auto& data : buffers_) {
    try {
      CopyEngine::write_back(*data, {0, static_cast<std::int64_t>(data->shape.rows)});
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tsar: data environment: writing back buffer %p: %s\n", data->host,
                   e.what());
    }
  }
}

void DataEnvironment::check_idle(const char* what) const {
  if (in_pass_.load(std::memory_order_acquire))
    throw Error(TSAR_ERR_STATE, std::string(what) + " during a pass of region '" + pass_owner_ +
                                    "', which uses the data environment");
}

std::vector<BufferData*> DataEnvironment::named(const void* host) const {
  std::vector<BufferData*> out;
  for (const auto& data : buffers_)
    if (host == nullptr || data->host == host) out.push_back(data.get());
  if (host != nullptr && out.empty())
    throw Error(TSAR_ERR_UNKNOWN,
                "buffer " + address_text(host) + " is not mapped in this data environment");
  return out;
}

void DataEnvironment::map(void* host, const tsar_mem_desc& desc) {
  // The shape alone: validated as an input associated by rows, the widest use of a shape.
  tsar_mem_desc shape{};
  shape.elem_size = desc.elem_size;
  shape.rows = desc.rows;
  shape.cols = desc.cols;
  shape.row_stride = desc.row_stride;
  shape.assoc = TSAR_ASSOC_ROWS;
  shape.flags = TSAR_MEM_IN | (desc.flags & TSAR_MEM_PAD);
  std::size_t extent = 0;
  shape = validate_mem_desc(host, shape, &extent);
  std::lock_guard lock(mutex_);
  check_idle("mapping a buffer");
  if (const BufferData* other = overlapping_locked(host, extent))
    throw Error(TSAR_ERR_REGISTERED,
                other->host == host
                    ? "buffer " + address_text(host) + " is already mapped"
                    : "buffer " + address_text(host) + " (" + std::to_string(extent) +
                          " bytes) overlaps mapped buffer " + address_text(other->host) + " (" +
                          std::to_string(other->extent) + " bytes)");
  for (const MemoryRegistry* r : registries_)
    if (const Registration* own = r->overlapping(host, extent))
      throw Error(TSAR_ERR_REGISTERED,
                  "buffer " + address_text(host) + " overlaps buffer " + address_text(own->host()) +
                      ", which an attached region registered on its own: unregister it there "
                      "first (two sets of device copies of one buffer would disagree)");
  auto data = std::make_shared<BufferData>();
  data->host = host;
  data->shape = shape;
  data->extent = extent;
  data->shared = true;
  data->checked = check_;
  buffers_.push_back(std::move(data));
}

void DataEnvironment::unmap(const void* host) {
  std::lock_guard lock(mutex_);
  check_idle("unmapping a buffer");
  const auto it = std::find_if(buffers_.begin(), buffers_.end(),
                               [&](const auto& d) { return d->host == host; });
  if (it == buffers_.end())
    throw Error(TSAR_ERR_UNKNOWN,
                "buffer " + address_text(host) + " is not mapped in this data environment");
  if (it->use_count() > 1)
    throw Error(TSAR_ERR_STATE, "buffer " + address_text(host) +
                                    " is still registered with a region attached to the data "
                                    "environment: unregister it there first");
  CopyEngine::write_back(**it, {0, static_cast<std::int64_t>((*it)->shape.rows)});
  buffers_.erase(it);
}

std::int64_t DataEnvironment::update_host(const void* host, std::size_t first, std::size_t count) {
  std::lock_guard lock(mutex_);
  check_idle("tsar_data_update_host");
  std::int64_t moved = 0;
  for (BufferData* data : named(host))
    moved +=
        CopyEngine::write_back(*data, row_range(*data, host ? first : 0, host ? count : kAllRows));
  return moved;
}

void DataEnvironment::update_device(const void* host, std::size_t first, std::size_t count) {
  std::lock_guard lock(mutex_);
  check_idle("tsar_data_update_device");
  for (BufferData* data : named(host)) {
    const Range rows = row_range(*data, host ? first : 0, host ? count : kAllRows);
    for (auto& c : data->copies) {
      c->valid.subtract(rows);
      c->dirty.subtract(rows);
    }
  }
  host_writes_.fetch_add(1, std::memory_order_relaxed);
}

DataTraffic DataEnvironment::traffic(const void* host) const {
  std::lock_guard lock(mutex_);
  check_idle("tsar_data_get_stats");
  DataTraffic t;
  for (const BufferData* data : named(host))
    for (const auto& c : data->copies) {
      t.to_device += c->moved_in;
      t.from_device += c->moved_out;
      t.device_rows += c->dirty.count();
      t.copies += c->data != nullptr ? 1 : 0;
    }
  return t;
}

std::shared_ptr<BufferData> DataEnvironment::find(const void* host) const {
  std::lock_guard lock(mutex_);
  for (const auto& data : buffers_)
    if (data->host == host) return data;
  return nullptr;
}

const BufferData* DataEnvironment::overlapping(const void* p, std::size_t bytes) const {
  std::lock_guard lock(mutex_);
  return overlapping_locked(p, bytes);
}

const BufferData* DataEnvironment::overlapping_locked(const void* p, std::size_t bytes) const {
  const auto lo = reinterpret_cast<std::uintptr_t>(p);
  for (const auto& data : buffers_) {
    const auto dlo = reinterpret_cast<std::uintptr_t>(data->host);
    if (lo < dlo + data->extent && dlo < lo + bytes) return data.get();
  }
  return nullptr;
}

void DataEnvironment::attach(const MemoryRegistry* registry) {
  std::lock_guard lock(mutex_);
  registries_.push_back(registry);
}

void DataEnvironment::detach(const MemoryRegistry* registry) {
  std::lock_guard lock(mutex_);
  registries_.erase(std::remove(registries_.begin(), registries_.end(), registry),
                    registries_.end());
}

bool DataEnvironment::follows_only(const MemoryRegistry& registry) const {
  const auto has = [](const MemoryRegistry& r, const BufferData* data, unsigned flag) {
    for (const Registration& reg : r.registrations())
      if (reg.data.get() == data && (reg.desc.flags & flag) != 0) return true;
    return false;
  };
  std::lock_guard lock(mutex_);
  bool fed = false;
  for (const MemoryRegistry* other : registries_) {
    if (other == &registry) continue;
    for (const Registration& reg : registry.registrations()) {
      if (!reg.data->shared) continue;
      const unsigned flags = reg.desc.flags;
      if ((flags & TSAR_MEM_OUT) != 0 && has(*other, reg.data.get(), TSAR_MEM_IN)) return false;
      fed = fed || ((flags & TSAR_MEM_IN) != 0 && has(*other, reg.data.get(), TSAR_MEM_OUT));
    }
  }
  return fed;
}

std::shared_ptr<SharedTrial> DataEnvironment::shared_trial() {
  std::lock_guard lock(mutex_);
  if (!trial_) trial_ = std::make_shared<SharedTrial>();
  return trial_;
}

void DataEnvironment::enter(const std::string& who) {
  std::lock_guard lock(mutex_);
  if (in_pass_.load(std::memory_order_acquire))
    throw Error(TSAR_ERR_STATE, "the data environment is in a pass of region '" + pass_owner_ +
                                    "': regions sharing one run their passes one at a time");
  pass_owner_ = who;
  in_pass_.store(true, std::memory_order_release);
}

void DataEnvironment::leave() { in_pass_.store(false, std::memory_order_release); }

}  // namespace tsar::core
