// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// OpenMP target devices: memory through omp_target_alloc / omp_target_memcpy(_rect) with the
// device's OpenMP device number; bodies run the application's own
//   #pragma omp target teams distribute parallel for simd device(chunk->omp_device)
//           is_device_ptr(...)
// (all on one line) on the range TSAR gives. With GCC's nvptx offloading these are NVIDIA GPUs.
//
// The host's initial device can be an accelerator too ("omphost:N"): its allocations are
// separate host memory and every copy is real, so the whole memory path -- partial
// allocation, packing, padding, persistence, reductions, retirement on out-of-memory -- runs
// and is tested on machines without a GPU, through exactly the calls a GPU device makes.

#include <memory>
#include <mutex>
#include <vector>

#include "devices/device.hpp"

namespace tsar::core {

class OmpTargetDevice final : public Device {
 public:
  /// `device_num` is an OpenMP device number (omp_get_initial_device() for the host).
  OmpTargetDevice(DeviceDescription description, int device_num);

  void attach_worker() override;
  LaunchContext launch_context() const override { return {device_num_, nullptr}; }

  void copy_to_device(void* dst, const void* src_host, std::size_t bytes) override;
  void copy_from_device(void* dst_host, const void* src, std::size_t bytes) override;
  void copy_rect_to_device(void* dst, const void* src_host, const RectCopy& rect) override;
  void copy_rect_from_device(void* dst_host, const void* src, const RectCopy& rect) override;
  void copy_on_device(void* dst, const void* src, std::size_t bytes) override;
  /// Target regions without nowait and omp_target_memcpy are synchronous: nothing to wait for.
  void synchronize() override {}
  /// Into another OpenMP device's memory through omp_target_memcpy: between allocations of
  /// one device number (host memory behind OpenMP's device interface, as in CI), since
  /// libgomp copies between two different offload devices only through the host.
  bool can_copy_peer(const Device& to) override;
  void copy_peer(Device& to, void* dst, const void* src, std::size_t bytes) override;
  /// GPUs in CUDA builds: page-locked through the CUDA runtime (libgomp's copies from pinned
  /// memory go by DMA); nullptr otherwise.
  std::shared_ptr<void> pin_host(void* host, std::size_t bytes) override;

 protected:
  void* allocate_memory(std::size_t bytes) override;
  void release_memory(void* device_ptr) noexcept override;

 private:
  void memcpy_checked(void* dst, const void* src, std::size_t bytes, int dst_dev, int src_dev);
  int device_num_;
  int host_num_;
  std::once_flag ready_;
  /// Host buffer a rectangle is packed into when its device side is one contiguous block
  /// (one omp_target_memcpy instead of one per row); used by the worker only.
  std::vector<unsigned char> pack_;
};

/// Number of OpenMP target devices besides the host (omp_get_num_devices()).
int omp_target_device_count();

/// The OpenMP device `device_num` (a GPU under nvptx offloading). `description` gives its
/// placement (control core, NUMA node, physical GPU, peak); kind, id, key and memory
/// fields are filled in here.
std::shared_ptr<Device> make_omp_target(DeviceDescription description, int device_num);

/// The host's initial OpenMP device as accelerator number `id`, its worker on Linux CPU `cpu`.
std::shared_ptr<Device> make_omp_host(const symmer::topology::NodeModel& node, int id, int cpu);

}  // namespace tsar::core
