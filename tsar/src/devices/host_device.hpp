// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Devices that compute on host memory: a CPU core, a team of cores (a NUMA place), and the
// emulated accelerator (accelerator scheduling -- back-off, per-kind defaults -- on a machine
// without one; it runs host code on its control core). Their memory operations work on host
// allocations so the generic memory paths can be exercised; registered buffers need none.

#include <memory>
#include <string>
#include <vector>

#include "devices/device.hpp"

namespace tsar::core {

class HostDevice final : public Device {
 public:
  using Device::Device;

  LaunchContext launch_context() const override { return {}; }

  void copy_to_device(void* dst, const void* src_host, std::size_t bytes) override;
  void copy_from_device(void* dst_host, const void* src, std::size_t bytes) override;
  void copy_rect_to_device(void* dst, const void* src_host, const RectCopy& rect) override;
  void copy_rect_from_device(void* dst_host, const void* src, const RectCopy& rect) override;
  void copy_on_device(void* dst, const void* src, std::size_t bytes) override;
  void synchronize() override {}

 protected:
  void* allocate_memory(std::size_t bytes) override;
  void release_memory(void* device_ptr) noexcept override;
};

/// Device creators take logical cores (the node model's) and Linux CPU numbers (what workers
/// are bound to, and what keys and tsar_device_info speak). Each throws
/// Error(TSAR_ERR_DEVICES) naming a core or CPU the model lacks.

/// The logical core holding Linux CPU `cpu`; `what` names the entry in the error.
int core_of_cpu(const symmer::topology::NodeModel& node, int cpu, const std::string& what);
/// A CPU device computing on logical core `core`, its worker on Linux CPUs `cpus` of it
/// (empty: all the core's), named cpu:<its first CPU>.
std::shared_ptr<Device> make_cpu_core(const symmer::topology::NodeModel& node, int core,
                                      std::vector<int> cpus = {});
/// One CPU device for the cores of logical NUMA node `numa_node` with CPUs among `allowed`
/// (sorted; empty: all), a team named place:<Linux node number>.
std::shared_ptr<Device> make_cpu_place(const symmer::topology::NodeModel& node, int numa_node,
                                       const std::vector<int>& allowed = {});
/// One CPU device for Linux CPUs `cpus` (a team, key "team:<CPU list>"): bodies spread its
/// ranges over them with nested parallelism, so the cores balance among themselves and the
/// split sees one device.
std::shared_ptr<Device> make_cpu_team(const symmer::topology::NodeModel& node,
                                      std::vector<int> cpus);
/// The emulated accelerator number `id`, its worker on Linux CPU `cpu`.
std::shared_ptr<Device> make_emulated(const symmer::topology::NodeModel& node, int id, int cpu);

/// Copies a rectangle between two host arrays (the host half of omp_target_memcpy_rect).
void copy_rect_host(void* dst, const void* src, const RectCopy& rect);

/// Peak double-precision GFLOP/s of one core of this machine: SIMD lanes x 2 (FMA) x GHz.
double core_peak_gflops();

}  // namespace tsar::core
