// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The node model: what one compute node is made of, as symmer and TSAR see it.
//
// Built on hwloc. Every index in this API is a *logical* index among the objects the process
// may use: its allowed cpuset and nodeset (cgroup cpusets, Slurm/systemd resource limits; an
// XML export's allowed sets) restrict the model. The process's current binding (`taskset`,
// `mpiexec -bind-to`) does not: a rank bound to one core still sees the whole node it may
// use. OS numbers are kept beside logical indices only for talking to Linux (/proc,
// sched_setaffinity, move_pages).
// A model is loaded from this node, from an hwloc XML export or from an hwloc synthetic
// description, so tests run against the shapes of real machines.

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace symmer::topology {

namespace detail {
struct NodeModelData;  // hwloc handle and the vectors below; defined in node_model.cpp
}

/// Raised when a model cannot be built (unreadable XML, bad synthetic string, hwloc failure)
/// or when an operation does not apply to it (binding a thread on a fixture topology).
class TopologyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One physical core.
struct Core {
  int index = -1;        ///< logical index among allowed cores, 0..cores()-1
  int os_index = -1;     ///< Linux core id (hwloc os_index of the Core object)
  int package = -1;      ///< logical package index
  int numa_node = -1;    ///< logical index of the NUMA node whose memory is local
  std::vector<int> pus;  ///< Linux CPU numbers of its hardware threads (allowed ones only)
};

/// A cache level shared by one or more cores.
struct Cache {
  int level = 0;  ///< 1, 2, 3 ... (data/unified caches only)
  std::uint64_t size_bytes = 0;
  std::vector<int> cores;  ///< logical indices of the cores sharing it
};

/// A NUMA node: a memory with the cores local to it.
struct NumaNode {
  int index = -1;     ///< logical index
  int os_index = -1;  ///< Linux node number (for libnuma / move_pages)
  std::uint64_t memory_bytes = 0;
  std::vector<int> cores;  ///< logical indices of its local cores (empty: memory only)
  std::string subtype;     ///< hwloc subtype: "" for DRAM, "HBM", "MCDRAM", "GPUMemory"...
};

/// A processor package (socket).
struct Package {
  int index = -1;
  std::vector<int> cores;
  std::vector<int> numa_nodes;
};

/// What a PCI device is, as far as symmer cares. pci_devices() lists NICs and GPUs only;
/// kOther (storage, BMC display, bridges) is what classification leaves out.
enum class PciKind { kNic, kGpu, kOther };

/// A PCI device with its locality: NICs (their interrupts cost cores capability) and GPUs
/// (TSAR devices; their driving cores stay free of MPI ranks).
///
/// A NIC is a network-class device (Ethernet, InfiniBand, fabric). A GPU is a 3D-controller or
/// processing-accelerator device, or another display device that a GPU API (CUDA, NVML, RSMI,
/// Level Zero) locates; a plain VGA controller such as a server's BMC display is not a GPU, nor
/// is a device of any other class, whatever OS device (such as OpenCL's) hwloc hangs under it.
struct PciDevice {
  PciKind kind = PciKind::kOther;
  std::string pci_address;         ///< "0000:3b:00.0"
  std::vector<std::string> names;  ///< OS device names: "eth0", "mlx5_0", "cuda0", "nvml0"...
  int numa_node = -1;              ///< logical NUMA node it is attached to, -1 if unknown
  std::vector<int> local_cores;    ///< logical cores close to it (its locality cpuset)
  /// CUDA device ordinal, -1 when unknown: from a "cudaN" OS device in the topology, or on
  /// this node from the CUDA driver (libcuda.so.1) when installed; honours CUDA_VISIBLE_DEVICES.
  int cuda_device = -1;
  /// OpenMP target device number under GCC's nvptx offloading, which numbers devices in CUDA
  /// order; -1 when the CUDA ordinal is unknown or, on this node, no nvptx plugin is installed.
  int omp_device = -1;
  std::uint16_t class_id = 0;  ///< PCI class and subclass, e.g. 0x0302 (3D controller)
  std::string model;           ///< "NVIDIA H100 80GB HBM3", "[15b3:101b]"... "" if unknown
};

/// What from_this_node() asks besides hwloc about the GPUs it finds.
enum class GpuQuery {
  /// CUDA ordinals from the CUDA driver (libcuda.so.1) when installed and a GPU lacks a
  /// "cudaN" name. Initialises the driver (cuInit, no context): a fraction of a second.
  kCudaDriver,
  /// hwloc only; no GPU runtime is loaded (for processes that must stay light, such as every
  /// rank of an MPI job). cuda_device stays -1 unless hwloc itself names "cudaN".
  kNone,
};

/// The whole node. Cheap to copy (the hwloc topology is shared, immutable once loaded).
class NodeModel {
 public:
  /// This node, restricted to the calling process's allowed cpuset and memory nodes; GPUs
  /// get CUDA ordinals as `gpu_query` says.
  static NodeModel from_this_node(GpuQuery gpu_query = GpuQuery::kCudaDriver);
  /// A topology exported with `lstopo file.xml` (tests keep fixtures under tests/fixtures),
  /// restricted to the allowed sets recorded in it. Throws TopologyError naming the file
  /// when it is missing, unreadable or not a valid export.
  static NodeModel from_xml_file(const std::string& path);
  /// An hwloc synthetic description, e.g. "pack:2 l3:2 [numa] core:8 pu:2". Throws
  /// TopologyError for a description hwloc rejects.
  static NodeModel from_synthetic(const std::string& description);

  /// Packages with at least one allowed core, by logical index.
  const std::vector<Package>& packages() const;
  /// Allowed NUMA nodes, by logical index (memory-only nodes have no cores).
  const std::vector<NumaNode>& numa_nodes() const;
  /// Allowed cores, by logical index; never empty.
  const std::vector<Core>& cores() const;
  /// Data and unified caches of every level, each with the cores sharing it.
  const std::vector<Cache>& caches() const;
  /// NICs and GPUs, ordered by PCI address.
  const std::vector<PciDevice>& pci_devices() const;
  /// The GPUs of pci_devices(), in the same order.
  std::vector<PciDevice> gpus() const;
  /// The NICs of pci_devices(), in the same order.
  std::vector<PciDevice> nics() const;

  /// Logical core holding Linux CPU `os_pu`, or -1 when that CPU is not in the model.
  int core_of_pu(int os_pu) const;
  /// The Linux CPUs of logical cores `cores` (all their hardware threads; cores outside the
  /// model left out), ascending.
  std::vector<int> cpus_of_cores(std::span<const int> cores) const;
  /// Smallest cache level shared by cores `a` and `b`; 0 when they share none.
  int shared_cache_level(int a, int b) const;

  /// True when the model describes the machine this process runs on (binding is possible).
  bool is_this_node() const;
  /// Where the model came from: "this node", "xml:<path>" or "synthetic:<description>".
  const std::string& source() const;

  /// Binds the calling thread to all PUs of logical core `core`. Throws TopologyError for a
  /// core out of range or a model that is not this node.
  void bind_current_thread(int core) const;

  /// The model as JSON (stable keys: packages, numa_nodes, cores, caches, pci_devices).
  nlohmann::json to_json() const;
  /// The model as a human-readable tree.
  std::string to_text() const;

 private:
  explicit NodeModel(std::shared_ptr<const detail::NodeModelData> data);
  std::shared_ptr<const detail::NodeModelData> impl_;
};

}  // namespace symmer::topology
