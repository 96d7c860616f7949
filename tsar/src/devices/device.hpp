// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The generic device interface. Everything TSAR does with a device -- pin its worker, move
// memory, let bodies launch work, wait -- goes through it, in the shape of LLVM libomptarget's
// plugin layer: one generic interface, each backend behind it. Host devices (a CPU core, a
// team of cores, the emulated accelerator) implement it in host_device.hpp; OpenMP target
// devices (omp_target_device.hpp) map it onto omp_target_alloc / omp_target_memcpy(_rect)
// with their OpenMP device number; CUDA devices (cuda_device.hpp) onto cudaMalloc and
// cudaMemcpy(2D)Async through pinned staging buffers on the device's stream.

#include <sched.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "api/error.hpp"
#include "tsar/tsar.h"

namespace symmer::topology {
class NodeModel;
}

namespace tsar::core {

enum class DeviceKind : unsigned {
  kCpu = TSAR_DEVICE_CPU,
  kOmpTarget = TSAR_DEVICE_OMP_TARGET,
  kCuda = TSAR_DEVICE_CUDA,
  kEmulated = TSAR_DEVICE_EMULATED,
};

const char* device_kind_name(DeviceKind kind);

/// What a device is, fixed when it is created.
struct DeviceDescription {
  DeviceKind kind = DeviceKind::kCpu;
  int id = -1;      ///< CPU: first Linux CPU; emulated: its number; OpenMP: device; CUDA: ordinal
  std::string key;  ///< stable name for caches and traces: "cpu:3", "place:0", "cuda:1"
  int numa_node = -1;      ///< logical NUMA node it is attached to
  std::vector<int> cores;  ///< logical cores it computes on (accelerators: none)
  int control_core = -1;   ///< logical core its worker thread is pinned to
  /// Linux CPUs its worker runs on (of its cores, or of an accelerator's control core);
  /// empty: every CPU of them.
  std::vector<int> cpus;
  /// Computes apart from the host's cores (a GPU, or one emulated on a core): the pass planner
  /// weighs it against the cores, never lets the cores steal its range, and back-off may
  /// retire it so its worker computes on its control core instead. False for CPU devices.
  bool accelerator = false;
  double peak_gflops = 0.0;    ///< peak estimate for the default split (thesis 4.3.2)
  std::size_t alignment = 64;  ///< bytes rows are padded to under TSAR_MEM_PAD
  bool host_memory = true;  ///< computes on host memory directly: registered buffers need no copies
  /// The accelerator it drives ("0000:3b:00.0", "gpu:1"); "" for host devices. A region
  /// never takes two devices driving the same accelerator (an OpenMP and a CUDA device of
  /// one GPU): the first one in the device list wins.
  std::string physical;
  /// Most bytes TSAR may hold allocated on it at once (0 = no limit besides the device's
  /// own memory); set from TSAR_DEVICE_MEMORY_LIMIT.
  std::size_t memory_limit = 0;
  /// Registered host buffers are page-locked for it (pin_host): GPUs copy them by DMA.
  bool pin_host = false;
};

/// A device allocation failed for lack of memory (the device's own, or its
/// TSAR_DEVICE_MEMORY_LIMIT). A region retires the device and finishes the work elsewhere.
class DeviceOutOfMemory : public Error {
 public:
  explicit DeviceOutOfMemory(const std::string& message) : Error(TSAR_ERR_SYSTEM, message) {}
};

/// A rectangular copy of up to three dimensions, outermost first: the parameters of
/// omp_target_memcpy_rect (and of cudaMemcpy3D). Offsets and extents are in elements.
struct RectCopy {
  std::size_t elem_size = 0;
  int dims = 0;
  std::array<std::size_t, 3> volume{};
  std::array<std::size_t, 3> dst_offsets{};
  std::array<std::size_t, 3> src_offsets{};
  std::array<std::size_t, 3> dst_dims{};
  std::array<std::size_t, 3> src_dims{};
};

/// What a body needs to launch work on the device from its worker thread.
struct LaunchContext {
  int omp_device = -1;     ///< device(...) of an OpenMP target construct; -1 on host devices
  void* stream = nullptr;  ///< cudaStream_t of the device's worker; nullptr elsewhere
};

class Device {
 public:
  explicit Device(DeviceDescription description)
      : description_(std::move(description)), serial_(next_serial()) {}
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceDescription& description() const { return description_; }
  /// Sets description().memory_limit; only before the device is first used.
  void set_memory_limit(std::size_t bytes) { description_.memory_limit = bytes; }
  DeviceKind kind() const { return description_.kind; }
  /// Unique for the process's life (a worker thread remembers which device it is bound to).
  std::uint64_t serial() const { return serial_; }

  /// The CPUs the device's worker runs on: its cores', or an accelerator's control core's.
  cpu_set_t worker_cpus(const symmer::topology::NodeModel& node) const;
  /// Pins the calling thread -- one of TSAR's own worker threads; the program's threads go
  /// through CallerMask -- to worker_cpus() for good.
  void bind_worker(const symmer::topology::NodeModel& node) const;
  /// Makes the calling thread this device's worker (a thread of TSAR's or of the program's):
  /// an accelerator selects the device and creates its queue on that thread.
  virtual void attach_worker() {}
  /// Gives a program's thread that ran this device's part (tsar_run's caller, a thread of the
  /// caller's OpenMP team) back what attach_worker() changed on it, so the program's own calls
  /// after TSAR's see the device the program selected. Program threads attach every pass.
  virtual void detach_program_thread() {}
  virtual LaunchContext launch_context() const = 0;

  // Device memory. allocate/release may be called from any thread; copies from the device's
  // worker, or from another thread while the worker waits (the halo exchange between passes),
  // ordered on the device's queue, possibly completing asynchronously until synchronize().
  // Failures throw Error; a lack of memory throws DeviceOutOfMemory.

  /// Allocates `bytes` (> 0) within the device's memory_limit.
  void* allocate(std::size_t bytes);
  /// Frees an allocation of `bytes` made by allocate (nullptr is ignored).
  void release(void* device_ptr, std::size_t bytes) noexcept;
  /// Bytes currently allocated through allocate().
  std::size_t allocated() const { return allocated_.load(std::memory_order_relaxed); }

  /// Seconds per byte of a copy between the host and the device, for TSAR's data-movement
  /// cost model: 0 on host-memory devices; 1 / the TSAR_LINK_BANDWIDTH given for it; else
  /// measured by one calibration copy the first time it is asked (devices/link_speed.hpp).
  /// Call it from one thread at a time, outside the device worker's ranges.
  double link_seconds_per_byte();
  /// Seconds a copy of a few bytes takes, start to synchronisation (a halo row's copy is
  /// this, not its bytes): 0 on host-memory devices; measured with link_seconds_per_byte.
  double link_latency();
  /// Declares the link's bandwidth in bytes per second (0 = measure); before first use.
  void set_link_bandwidth(std::size_t bytes_per_second) { link_bandwidth_ = bytes_per_second; }
  /// Makes copies possible from any thread before a worker attached (the calibration copy
  /// runs on the pass planner). Nothing to do unless the backend's queue is created lazily.
  virtual void prepare_copies() {}

  virtual void copy_to_device(void* dst, const void* src_host, std::size_t bytes) = 0;
  virtual void copy_from_device(void* dst_host, const void* src, std::size_t bytes) = 0;
  virtual void copy_rect_to_device(void* dst, const void* src_host, const RectCopy& rect) = 0;
  virtual void copy_rect_from_device(void* dst_host, const void* src, const RectCopy& rect) = 0;
  /// Copies `bytes` between two allocations of this device (a copy that grows keeps what
  /// only the device holds).
  virtual void copy_on_device(void* dst, const void* src, std::size_t bytes) = 0;
  /// Waits for everything queued on the device (copies, launches) to finish.
  virtual void synchronize() = 0;
  /// Whether copy_peer can copy from this device's memory into `to`'s directly (GPU to GPU),
  /// not through the host. False by default. The first call for a pair sets the path up
  /// (CUDA enables peer access, milliseconds): callers ask where no worker is timed, before
  /// the copies, so no device's measured time carries it.
  virtual bool can_copy_peer(const Device& to) {
    (void)to;
    return false;
  }
  /// Copies `bytes` from this device's allocation `src` into `dst`, an allocation of `to`
  /// (can_copy_peer(to) returned true), queued on this device: complete at its synchronize(),
  /// or before what `to` runs after order_before(to). Called as the other copies are.
  virtual void copy_peer(Device& to, void* dst, const void* src, std::size_t bytes);
  /// Makes what is queued on `to` from now on wait for everything queued on this device so
  /// far (a copy_peer into `to`'s memory), without the host waiting.
  /// @return false where the backend cannot (the default): the caller synchronize()s instead.
  virtual bool order_before(Device& to) {
    (void)to;
    return false;
  }
  /// Page-locks a host buffer the device copies to and from (a registered buffer), so those
  /// copies go by DMA without staging; the handle unlocks it when released. nullptr when the
  /// backend cannot (the default) or the system refused.
  virtual std::shared_ptr<void> pin_host(void* host, std::size_t bytes) {
    (void)host;
    (void)bytes;
    return nullptr;
  }

 protected:
  /// The backend's allocation; throws DeviceOutOfMemory when the device has no room.
  virtual void* allocate_memory(std::size_t bytes) = 0;
  virtual void release_memory(void* device_ptr) noexcept = 0;

 private:
  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
  }
  DeviceDescription description_;
  std::uint64_t serial_;
  std::atomic<std::size_t> allocated_{0};
  std::size_t link_bandwidth_ = 0;
  std::once_flag link_once_;
  double link_seconds_per_byte_ = 0.0;
  double link_latency_ = 0.0;
  void calibrate_link();
};

/// Parses a per-device byte list from the environment variable `variable`
/// (TSAR_DEVICE_MEMORY_LIMIT, TSAR_LINK_BANDWIDTH) for the device named `key`: a
/// comma-separated list of "BYTES" (every accelerator) and "KEY=BYTES" entries (that device;
/// it wins), BYTES with an optional K, M or G suffix (powers of 1024). Returns 0 when no entry
/// applies; throws Error(TSAR_ERR_DEVICES) naming `variable` and a malformed entry.
std::size_t per_device_bytes(std::string_view variable, std::string_view spec,
                             std::string_view key);

}  // namespace tsar::core
