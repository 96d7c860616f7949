// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Reductions registered with a region (thesis 5.4.4, in the manner of OpenMP 4.0 declare
// reduction): one private accumulator per worker, each on its own cache lines, set to the
// identity when a pass starts and combined into the result in worker order when it ends.
// A worker on a device with its own memory accumulates on the device instead: its device
// accumulator is set to the identity before its first range of a pass and copied into its
// host accumulator before it reaches the end of the (sub-)pass, so merging stays on the host.

#include <cstddef>
#include <memory>
#include <vector>

#include "devices/device.hpp"
#include "tsar/tsar.h"

namespace tsar::core {

class MemoryRegistry;

class Reductions {
 public:
  explicit Reductions(int workers) : workers_(workers) {}

  /// Throws Error: TSAR_ERR_NULL, TSAR_ERR_INVALID (size 0, or a result past the end of the
  /// address space), TSAR_ERR_REGISTERED (a result overlapping another, or inside a buffer
  /// of `memory`: the devices' copies of the buffer would overwrite it).
  void add(void* result, const void* identity, std::size_t size, tsar_combine_fn combine, void* ctx,
           const MemoryRegistry* memory = nullptr);
  /// The result of a registered reduction sharing a byte with [p, p + bytes), or nullptr.
  const void* overlapping(const void* p, std::size_t bytes) const;
  /// Throws Error(TSAR_ERR_UNKNOWN).
  void remove(const void* result);
  /// Worker `worker`'s accumulator for `result`, or nullptr when not registered.
  void* accumulator(const void* result, int worker) const;
  /// Sets every accumulator to its identity (start of a pass).
  void reset();
  /// Combines every worker's accumulator into each result, in worker order (end of a pass).
  void merge();
  bool empty() const { return entries_.empty(); }

  /// Worker `worker`'s accumulator for `result` on its device, or nullptr when it has none
  /// in this pass.
  void* device_accumulator(const void* result, int worker) const;
  /// Worker `worker`, before its first range of a pass on `device`: allocates its device
  /// accumulators (once) and copies the identities in. Returns the bytes copied. Throws
  /// DeviceOutOfMemory.
  std::size_t stage_device(int worker, const std::shared_ptr<Device>& device);
  /// Worker `worker`: queues the copies of its device accumulators into its host
  /// accumulators (complete after device.synchronize()). Returns the bytes copied.
  std::size_t collect_device(int worker, Device& device);
  /// Frees worker `worker`'s device accumulators (its device was retired).
  void release_device(int worker) noexcept;

 private:
  /// One worker's accumulator on its device.
  struct OnDevice {
    OnDevice() = default;
    OnDevice(OnDevice&& o) noexcept { *this = std::move(o); }
    OnDevice& operator=(OnDevice&& o) noexcept;
    ~OnDevice() { release(); }
    void release() noexcept;
    std::shared_ptr<Device> device;
    void* data = nullptr;
    std::size_t size = 0;
    bool live = false;  ///< set to the identity in this pass
  };

  struct Entry {
    void* result;
    std::size_t size;
    std::size_t stride;  ///< bytes between two workers' accumulators (whole cache lines)
    std::vector<unsigned char> identity;
    tsar_combine_fn combine;
    void* ctx;
    std::unique_ptr<unsigned char[], void (*)(void*)> storage;
    std::vector<OnDevice> on_device;  ///< per worker
  };
  int workers_;
  std::vector<Entry> entries_;
};

}  // namespace tsar::core
