// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// This node's GPUs as TSAR devices (thesis 6.4.1): each GPU the OpenMP runtime (nvptx
// offloading) or the CUDA runtime sees is matched to its PCI device in the node model, which
// gives its NUMA node and local cores, and gets one control core near it for its worker.
// Control cores are reserved by default -- the default device list then has no CPU device on
// them, since loading a GPU's control core with computation cost 1% to 3x in the thesis's
// measurements -- or shared (TSAR_GPU_CORES=share, tsar_set_gpu_cores).

#include <memory>
#include <string>
#include <vector>

#include "devices/device.hpp"

namespace tsar::core {

/// What to do with GPU control cores in the default device list.
enum class GpuCores { kReserve, kShare };

/// The policy: tsar_set_gpu_cores, else TSAR_GPU_CORES ("reserve" or "share"), else reserve.
/// Throws Error(TSAR_ERR_DEVICES) for a bad TSAR_GPU_CORES.
GpuCores gpu_cores_policy();
/// Sets the policy for device lists built from now on (overrides TSAR_GPU_CORES).
void set_gpu_cores_policy(GpuCores policy);

/// One GPU as the runtimes see it.
struct GpuSlot {
  std::string physical;           ///< PCI address, or "gpu:N" when the node model does not know it
  int numa_node = -1;             ///< logical NUMA node, -1 when unknown
  int control_core = -1;          ///< logical core its worker runs on
  std::vector<int> control_cpus;  ///< Linux CPUs of it the worker is bound to
  int omp_device = -1;            ///< OpenMP device number, -1 when the OpenMP runtime lacks it
  int cuda_device = -1;           ///< CUDA ordinal, -1 without the CUDA backend or device
  double peak_gflops = 0;         ///< FP64 estimate for the default split
};

/// What the GPU runtimes of this process see.
struct GpuRuntimes {
  std::vector<std::string> cuda_pci;  ///< PCI address of each CUDA ordinal ("" if unknown)
  std::vector<double> cuda_peak;      ///< peak GFLOP/s of each CUDA ordinal
  int omp_devices = 0;                ///< OpenMP target devices (GCC numbers them in CUDA order)
};
/// Asks the OpenMP runtime and, in CUDA builds, the CUDA runtime when `cuda` (a device list
/// names a CUDA device) or `node` may have an NVIDIA GPU (one in its model, or the driver's
/// /dev/nvidiactl): elsewhere the CUDA runtime is not loaded.
GpuRuntimes probe_gpu_runtimes(const symmer::topology::NodeModel& node, bool cuda);

/// The GPUs `runtimes` see, matched to the node model by PCI address (else by the model's
/// CUDA/OpenMP numbers), ordered by device number, each with a distinct control core near it
/// among the cores of Linux CPUs `cpus` (sorted, default_cpus; empty: every CPU of `node`): the
/// highest-numbered free core of its NUMA node, else of `cpus` (the first core stays the caller's);
/// cores are shared only when there are more GPUs than cores. The worker is bound to the core's
/// CPUs in `cpus`.
std::vector<GpuSlot> place_gpus(const symmer::topology::NodeModel& node,
                                const GpuRuntimes& runtimes, const std::vector<int>& cpus = {});
/// place_gpus(node, probe_gpu_runtimes(node, cuda), cpus).
std::vector<GpuSlot> discover_gpus(const symmer::topology::NodeModel& node,
                                   const std::vector<int>& cpus, bool cuda = false);

/// A device description for a GPU's worker (kind and key are set by the backend).
DeviceDescription gpu_description(const GpuSlot& slot);

/// The default device list: one CPU device per core of Linux CPUs `cpus` (sorted,
/// default_cpus; empty: every CPU of `node`), bound to its CPUs among them (without the GPUs'
/// control cores under GpuCores::kReserve, unless that would leave none), then each GPU as an
/// OpenMP target device, then each GPU as a CUDA device (a region keeps the first device of each
/// GPU that its kinds allow).
std::vector<std::shared_ptr<Device>> default_devices(const symmer::topology::NodeModel& node,
                                                     const std::vector<GpuSlot>& gpus,
                                                     GpuCores policy,
                                                     const std::vector<int>& cpus = {});

/// The logical cores with CPUs among `cpus` (sorted; empty: every CPU), in the model's order,
/// and each one's CPUs among them.
struct CoreCpus {
  int core;
  std::vector<int> cpus;
};
std::vector<CoreCpus> cores_of(const symmer::topology::NodeModel& node,
                               const std::vector<int>& cpus);

/// True when this build has the CUDA backend.
bool cuda_backend_built();

}  // namespace tsar::core
