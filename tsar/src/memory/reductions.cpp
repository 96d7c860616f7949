// SPDX-License-Identifier: BSD-3-Clause
#include "memory/reductions.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "api/error.hpp"
#include "memory/address_range.hpp"
#include "memory/registry.hpp"

namespace tsar::core {
namespace {
constexpr std::size_t kLine = 64;
}

void Reductions::add(void* result, const void* identity, std::size_t size, tsar_combine_fn combine,
                     void* ctx, const MemoryRegistry* memory) {
  if (result == nullptr || identity == nullptr || combine == nullptr)
    throw Error(TSAR_ERR_NULL,
                "registering a reduction: result, identity and combine must not be NULL");
  if (size == 0) throw Error(TSAR_ERR_INVALID, "registering a reduction: size is 0");
  if (!in_address_space(result, size))
    throw Error(TSAR_ERR_INVALID, "registering a reduction: " + std::to_string(size) +
                                      " bytes of result run past the end of the address space");
  if (overlapping(result, size) != nullptr)
    throw Error(TSAR_ERR_REGISTERED, "reduction result is already registered (or overlaps one)");
  if (memory != nullptr)
    if (const Registration* reg = memory->overlapping(result, size))
      throw Error(TSAR_ERR_REGISTERED,
                  "registering a reduction: the result lies inside registered buffer " +
                      address_text(reg->host()) +
                      ", whose device copies the pass writes back over it (keep results "
                      "outside registered buffers)");
  const std::size_t stride = (size + kLine - 1) / kLine * kLine;
  auto* raw = static_cast<unsigned char*>(
      std::aligned_alloc(kLine, stride * static_cast<std::size_t>(workers_)));
  if (raw == nullptr) throw Error(TSAR_ERR_SYSTEM, "allocating reduction accumulators");
  Entry e{result,
          size,
          stride,
          std::vector<unsigned char>(static_cast<const unsigned char*>(identity),
                                     static_cast<const unsigned char*>(identity) + size),
          combine,
          ctx,
          {raw, std::free},
          std::vector<OnDevice>(static_cast<std::size_t>(workers_))};
  entries_.push_back(std::move(e));
  auto& added = entries_.back();
  for (int w = 0; w < workers_; ++w)
    std::memcpy(added.storage.get() + added.stride * static_cast<std::size_t>(w),
                added.identity.data(), size);
}

const void* Reductions::overlapping(const void* p, std::size_t bytes) const {
  const auto lo = reinterpret_cast<std::uintptr_t>(p);
  for (const auto& e : entries_) {
    const auto elo = reinterpret_cast<std::uintptr_t>(e.result);
    if (lo < elo + e.size && elo < lo + bytes) return e.result;
  }
  return nullptr;
}

void Reductions::remove(const void* result) {
  const auto it = std::find_if(entries_.begin(), entries_.end(),
                               [&](const Entry& e) { return e.result == result; });
  if (it == entries_.end())
    throw Error(TSAR_ERR_UNKNOWN, "reduction result is not registered with this region");
  entries_.erase(it);
}

void* Reductions::accumulator(const void* result, int worker) const {
  for (const auto& e : entries_)
    if (e.result == result) return e.storage.get() + e.stride * static_cast<std::size_t>(worker);
  return nullptr;
}

void Reductions::reset() {
  for (auto& e : entries_) {
    for (int w = 0; w < workers_; ++w)
      std::memcpy(e.storage.get() + e.stride * static_cast<std::size_t>(w), e.identity.data(),
                  e.size);
    for (auto& d : e.on_device) d.live = false;
  }
}

Reductions::OnDevice& Reductions::OnDevice::operator=(OnDevice&& o) noexcept {
  if (this != &o) {
    release();
    device = std::move(o.device);
    data = std::exchange(o.data, nullptr);
    size = o.size;
    live = o.live;
  }
  return *this;
}

void Reductions::OnDevice::release() noexcept {
  if (data != nullptr && device) device->release(data, size);
  data = nullptr;
  live = false;
}

void* Reductions::device_accumulator(const void* result, int worker) const {
  for (const auto& e : entries_) {
    if (e.result != result) continue;
    const auto& d = e.on_device[static_cast<std::size_t>(worker)];
    return d.live ? d.data : nullptr;
  }
  return nullptr;
}

std::size_t Reductions::stage_device(int worker, const std::shared_ptr<Device>& device) {
  std::size_t bytes = 0;
  for (auto& e : entries_) {
    auto& d = e.on_device[static_cast<std::size_t>(worker)];
    if (d.device != device) {
      d.release();
      d.device = device;
    }
    if (d.data == nullptr) {
      d.data = device->allocate(e.size);
      d.size = e.size;
    }
    device->copy_to_device(d.data, e.identity.data(), e.size);
    d.live = true;
    bytes += e.size;
  }
  return bytes;
}

std::size_t Reductions::collect_device(int worker, Device& device) {
  std::size_t bytes = 0;
  for (auto& e : entries_) {
    const auto& d = e.on_device[static_cast<std::size_t>(worker)];
    if (!d.live || d.device.get() != &device) continue;
    device.copy_from_device(e.storage.get() + e.stride * static_cast<std::size_t>(worker), d.data,
                            e.size);
    bytes += e.size;
  }
  return bytes;
}

void Reductions::release_device(int worker) noexcept {
  for (auto& e : entries_) e.on_device[static_cast<std::size_t>(worker)].release();
}

void Reductions::merge() {
  for (auto& e : entries_)
    for (int w = 0; w < workers_; ++w)
      e.combine(e.result, e.storage.get() + e.stride * static_cast<std::size_t>(w), e.ctx);
}

}  // namespace tsar::core
