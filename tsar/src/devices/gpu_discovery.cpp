// SPDX-License-Identifier: BSD-3-Clause
#include "devices/gpu_discovery.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <string_view>

#include "devices/host_device.hpp"
#include "devices/omp_target_device.hpp"
#include "symmer/topology/node_model.hpp"
#if TSAR_HAVE_CUDA
#include "devices/cuda_device.hpp"
#endif

namespace tsar::core {
namespace {

// -1: not set through the API (TSAR_GPU_CORES decides).
std::atomic<int> policy_override{-1};

// An unknown GPU's peak, used only for the first split before anything is measured.
constexpr double kUnknownGpuPeakGflops = 2000.0;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

GpuCores gpu_cores_policy() {
  if (const int p = policy_override.load(); p >= 0) return static_cast<GpuCores>(p);
  const char* env = std::getenv("TSAR_GPU_CORES");
  if (env == nullptr || env[0] == '\0') return GpuCores::kReserve;
  const std::string_view v(env);
  if (v == "reserve") return GpuCores::kReserve;
  if (v == "share") return GpuCores::kShare;
  throw Error(TSAR_ERR_DEVICES,
              "TSAR_GPU_CORES is '" + std::string(v) + "': expected 'reserve' or 'share'");
}

void set_gpu_cores_policy(GpuCores policy) { policy_override.store(static_cast<int>(policy)); }

bool cuda_backend_built() { return TSAR_HAVE_CUDA != 0; }

GpuRuntimes probe_gpu_runtimes(const symmer::topology::NodeModel& node, bool cuda) {
  GpuRuntimes r;
#if TSAR_HAVE_CUDA
  const bool nvidia = cuda || !node.gpus().empty() || access("/dev/nvidiactl", F_OK) == 0;
  for (int o = 0, n = nvidia ? cuda_device_count() : 0; o < n; ++o) {
    r.cuda_pci.push_back(cuda_pci_address(o));
    r.cuda_peak.push_back(cuda_peak_gflops(o));
  }
#else
  (void)node;
  (void)cuda;
#endif
  r.omp_devices = omp_target_device_count();
  return r;
}

std::vector<GpuSlot> discover_gpus(const symmer::topology::NodeModel& node,
                                   const std::vector<int>& cpus, bool cuda) {
  return place_gpus(node, probe_gpu_runtimes(node, cuda), cpus);
}

std::vector<CoreCpus> cores_of(const symmer::topology::NodeModel& node,
                               const std::vector<int>& cpus) {
  std::vector<CoreCpus> out;
  for (const auto& core : node.cores()) {
    CoreCpus c{core.index, {}};
    for (int pu : core.pus)
      if (cpus.empty() || std::binary_search(cpus.begin(), cpus.end(), pu)) c.cpus.push_back(pu);
    if (!c.cpus.empty()) out.push_back(std::move(c));
  }
  return out;
}

std::vector<GpuSlot> place_gpus(const symmer::topology::NodeModel& node,
                                const GpuRuntimes& runtimes, const std::vector<int>& cpus) {
  const auto model = node.gpus();
  std::vector<GpuSlot> slots;
  std::vector<const symmer::topology::PciDevice*> placed;  // model entry of each slot
  const auto model_by = [&](auto&& match) -> const symmer::topology::PciDevice* {
    for (const auto& g : model)
      if (match(g)) return &g;
    return nullptr;
  };
  const auto add = [&](const symmer::topology::PciDevice* g, const std::string& fallback) {
    GpuSlot s;
    s.physical = g != nullptr ? lower(g->pci_address) : fallback;
    s.numa_node = g != nullptr ? g->numa_node : -1;
    slots.push_back(s);
    placed.push_back(g);
    return slots.size() - 1;
  };
  for (int o = 0; o < static_cast<int>(runtimes.cuda_pci.size()); ++o) {
    const std::string pci = lower(runtimes.cuda_pci[static_cast<std::size_t>(o)]);
    const auto* g = model_by([&](const auto& d) {
      return pci.empty() ? d.cuda_device == o : lower(d.pci_address) == pci;
    });
    const std::size_t k = add(g, pci.empty() ? "gpu:" + std::to_string(o) : pci);
    slots[k].cuda_device = o;
    if (static_cast<std::size_t>(o) < runtimes.cuda_peak.size())
      slots[k].peak_gflops = runtimes.cuda_peak[static_cast<std::size_t>(o)];
  }
  for (int d = 0; d < runtimes.omp_devices; ++d) {
    // GCC's nvptx plugin numbers GPUs in CUDA order.
    auto it = std::find_if(slots.begin(), slots.end(),
                           [&](const GpuSlot& s) { return s.cuda_device == d; });
    std::size_t k = 0;
    if (it != slots.end()) {
      k = static_cast<std::size_t>(it - slots.begin());
    } else {
      const auto* g = model_by([&](const auto& m) { return m.omp_device == d; });
      k = add(g, "gpu:" + std::to_string(d));
    }
    slots[k].omp_device = d;
  }
  // Control cores: the highest-numbered free core of the process's near each GPU (the first
  // core is the caller's).
  const std::vector<CoreCpus> mine = cores_of(node, cpus);
  if (mine.empty() && !slots.empty())
    throw Error(TSAR_ERR_DEVICES, "no CPU of this process's is in the node model");
  std::vector<char> taken(mine.size(), 0);
  for (std::size_t k = 0; k < slots.size(); ++k) {
    std::vector<int> near;
    if (placed[k] != nullptr) near = placed[k]->local_cores;
    if (near.empty() && slots[k].numa_node >= 0 &&
        slots[k].numa_node < static_cast<int>(node.numa_nodes().size()))
      near = node.numa_nodes()[static_cast<std::size_t>(slots[k].numa_node)].cores;
    // An empty list means any core; the result indexes `mine`.
    const auto free_core_in = [&](const std::vector<int>& list) {
      for (std::size_t m = mine.size(); m-- > 0;)
        if (!taken[m] &&
            (list.empty() || std::find(list.begin(), list.end(), mine[m].core) != list.end()))
          return static_cast<int>(m);
      return -1;
    };
    int pick = free_core_in(near);
    if (pick < 0) pick = free_core_in({});
    if (pick < 0) pick = static_cast<int>(mine.size() - 1 - k % mine.size());
    taken[static_cast<std::size_t>(pick)] = 1;
    slots[k].control_core = mine[static_cast<std::size_t>(pick)].core;
    slots[k].control_cpus = mine[static_cast<std::size_t>(pick)].cpus;
    pick = slots[k].control_core;
    if (slots[k].numa_node < 0) slots[k].numa_node = node.cores().at(pick).numa_node;
    if (slots[k].peak_gflops <= 0.0) slots[k].peak_gflops = kUnknownGpuPeakGflops;
  }
  return slots;
}

DeviceDescription gpu_description(const GpuSlot& slot) {
  DeviceDescription d;
  d.numa_node = slot.numa_node;
  d.control_core = slot.control_core;
  d.cpus = slot.control_cpus;
  d.peak_gflops = slot.peak_gflops;
  d.alignment = 128;  // a warp's 32 four-byte words: coalesced row starts
  d.host_memory = false;
  d.accelerator = true;
  d.physical = slot.physical;
  d.pin_host = true;
  return d;
}

std::vector<std::shared_ptr<Device>> default_devices(const symmer::topology::NodeModel& node,
                                                     const std::vector<GpuSlot>& gpus,
                                                     GpuCores policy,
                                                     const std::vector<int>& cpus) {
  const std::vector<CoreCpus> mine = cores_of(node, cpus);
  const bool reserve = policy == GpuCores::kReserve && gpus.size() < mine.size();
  std::vector<std::shared_ptr<Device>> devices;
  for (const auto& c : mine) {
    const bool control = std::any_of(gpus.begin(), gpus.end(),
                                     [&](const GpuSlot& g) { return g.control_core == c.core; });
    if (!(reserve && control)) devices.push_back(make_cpu_core(node, c.core, c.cpus));
  }
  for (const auto& g : gpus)
    if (g.omp_device >= 0) devices.push_back(make_omp_target(gpu_description(g), g.omp_device));
#if TSAR_HAVE_CUDA
  for (const auto& g : gpus)
    if (g.cuda_device >= 0) devices.push_back(make_cuda(gpu_description(g), g.cuda_device));
#endif
  return devices;
}

}  // namespace tsar::core
