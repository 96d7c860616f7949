// SPDX-License-Identifier: BSD-3-Clause
#include "devices/host_device.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "api/error.hpp"
#include "symmer/topology/cpu_list.hpp"
#include "symmer/topology/node_model.hpp"

namespace tsar::core {

const char* device_kind_name(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kCpu:
      return "cpu";
    case DeviceKind::kOmpTarget:
      return "omp";
    case DeviceKind::kCuda:
      return "cuda";
    case DeviceKind::kEmulated:
      return "emul";
  }
  return "?";
}

void* HostDevice::allocate_memory(std::size_t bytes) {
  const std::size_t align =
      std::max<std::size_t>(description().alignment, alignof(std::max_align_t));
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (p == nullptr)
    throw DeviceOutOfMemory("allocating " + std::to_string(bytes) + " bytes on " +
                            description().key + ": out of memory");
  return p;
}

void HostDevice::release_memory(void* device_ptr) noexcept { std::free(device_ptr); }

void HostDevice::copy_to_device(void* dst, const void* src_host, std::size_t bytes) {
  std::memcpy(dst, src_host, bytes);
}

void HostDevice::copy_from_device(void* dst_host, const void* src, std::size_t bytes) {
  std::memcpy(dst_host, src, bytes);
}

void HostDevice::copy_on_device(void* dst, const void* src, std::size_t bytes) {
  std::memcpy(dst, src, bytes);
}

void HostDevice::copy_rect_to_device(void* dst, const void* src_host, const RectCopy& rect) {
  copy_rect_host(dst, src_host, rect);
}

void HostDevice::copy_rect_from_device(void* dst_host, const void* src, const RectCopy& rect) {
  copy_rect_host(dst_host, src, rect);
}

void copy_rect_host(void* dst, const void* src, const RectCopy& rect) {
  if (dst == nullptr || src == nullptr) throw Error(TSAR_ERR_NULL, "rectangle copy: null array");
  if (rect.dims < 1 || rect.dims > 3 || rect.elem_size == 0)
    throw Error(TSAR_ERR_INVALID, "rectangle copy: dims must be 1..3 and elem_size > 0");
  for (int d = 0; d < rect.dims; ++d) {
    const auto fits = [&](std::size_t offset, std::size_t extent) {
      return rect.volume[d] <= extent && offset <= extent - rect.volume[d];
    };
    if (!fits(rect.dst_offsets[d], rect.dst_dims[d]) ||
        !fits(rect.src_offsets[d], rect.src_dims[d]))
      throw Error(TSAR_ERR_INVALID,
                  "rectangle copy: dimension " + std::to_string(d) + " leaves its array");
  }
  // Pad to three dimensions: missing outer dimensions have extent and volume 1.
  std::array<std::size_t, 3> vol{1, 1, 1}, doff{}, soff{}, ddim{1, 1, 1}, sdim{1, 1, 1};
  const int shift = 3 - rect.dims;
  for (int d = 0; d < rect.dims; ++d) {
    vol[shift + d] = rect.volume[d];
    doff[shift + d] = rect.dst_offsets[d];
    soff[shift + d] = rect.src_offsets[d];
    ddim[shift + d] = rect.dst_dims[d];
    sdim[shift + d] = rect.src_dims[d];
  }
  auto* out = static_cast<unsigned char*>(dst);
  const auto* in = static_cast<const unsigned char*>(src);
  const std::size_t row_bytes = vol[2] * rect.elem_size;
  for (std::size_t i = 0; i < vol[0]; ++i) {
    for (std::size_t j = 0; j < vol[1]; ++j) {
      const std::size_t d_elem = ((doff[0] + i) * ddim[1] + doff[1] + j) * ddim[2] + doff[2];
      const std::size_t s_elem = ((soff[0] + i) * sdim[1] + soff[1] + j) * sdim[2] + soff[2];
      std::memcpy(out + d_elem * rect.elem_size, in + s_elem * rect.elem_size, row_bytes);
    }
  }
}

double core_peak_gflops() {
  static const double peak = [] {
    const double lanes = __builtin_cpu_supports("avx512f") ? 8.0
                         : __builtin_cpu_supports("avx")   ? 4.0
                                                           : 2.0;
    double ghz = 2.0;
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
      if (line.rfind("cpu MHz", 0) == 0) {
        if (auto colon = line.find(':'); colon != std::string::npos) {
          const double mhz = std::atof(line.c_str() + colon + 1);
          if (mhz > 100.0) ghz = mhz / 1000.0;
        }
        break;
      }
    }
    return lanes * 2.0 * ghz;
  }();
  return peak;
}

namespace {

/// A host device's description: computing on logical cores `cores`, its worker on Linux CPUs
/// `cpus` (empty: every CPU of the cores).
DeviceDescription host_description(const symmer::topology::NodeModel& node, DeviceKind kind,
                                   std::vector<int> cores, std::vector<int> cpus, std::string key,
                                   int id) {
  DeviceDescription d;
  d.kind = kind;
  d.id = id;
  d.key = std::move(key);
  d.control_core = cores.front();
  d.numa_node = node.cores().at(static_cast<std::size_t>(cores.front())).numa_node;
  d.peak_gflops = core_peak_gflops() * static_cast<double>(cores.size());
  d.alignment = 64;
  d.host_memory = true;
  if (cpus.empty())
    for (int core : cores) {
      const auto& pus = node.cores().at(static_cast<std::size_t>(core)).pus;
      cpus.insert(cpus.end(), pus.begin(), pus.end());
    }
  d.cpus = std::move(cpus);
  d.cores = std::move(cores);
  return d;
}

void check_core(const symmer::topology::NodeModel& node, int core, const std::string& what) {
  const auto cores = static_cast<int>(node.cores().size());
  if (core < 0 || core >= cores)
    throw Error(TSAR_ERR_DEVICES, what + ": core L:" + std::to_string(core) +
                                      " does not exist (cores L:0-" + std::to_string(cores - 1) +
                                      " are allowed here)");
}

}  // namespace

int core_of_cpu(const symmer::topology::NodeModel& node, int cpu, const std::string& what) {
  const int core = node.core_of_pu(cpu);
  if (core < 0) {
    std::vector<int> allowed;
    for (const auto& c : node.cores()) allowed.insert(allowed.end(), c.pus.begin(), c.pus.end());
    throw Error(TSAR_ERR_DEVICES, what + ": CPU " + std::to_string(cpu) +
                                      " is not one this process may use (CPUs " +
                                      symmer::topology::format_cpu_list(allowed) + ")");
  }
  return core;
}

std::shared_ptr<Device> make_cpu_core(const symmer::topology::NodeModel& node, int core,
                                      std::vector<int> cpus) {
  check_core(node, core, "cpu:L:" + std::to_string(core));
  if (cpus.empty()) cpus = node.cores()[static_cast<std::size_t>(core)].pus;
  const int first = cpus.front();
  return std::make_shared<HostDevice>(host_description(
      node, DeviceKind::kCpu, {core}, std::move(cpus), "cpu:" + std::to_string(first), first));
}

std::shared_ptr<Device> make_cpu_place(const symmer::topology::NodeModel& node, int numa_node,
                                       const std::vector<int>& allowed) {
  const auto& numa = node.numa_nodes();
  if (numa_node < 0 || numa_node >= static_cast<int>(numa.size()))
    throw Error(TSAR_ERR_DEVICES, "place:L:" + std::to_string(numa_node) +
                                      ": NUMA node does not exist (" + std::to_string(numa.size()) +
                                      " NUMA nodes here)");
  const auto& place = numa[static_cast<std::size_t>(numa_node)];
  const std::string key = "place:" + std::to_string(place.os_index);
  std::vector<int> cores, cpus;
  for (int core : place.cores) {
    bool any = false;
    for (int pu : node.cores()[static_cast<std::size_t>(core)].pus)
      if (allowed.empty() || std::binary_search(allowed.begin(), allowed.end(), pu)) {
        cpus.push_back(pu);
        any = true;
      }
    if (any) cores.push_back(core);
  }
  if (cores.empty())
    throw Error(TSAR_ERR_DEVICES, key + ": NUMA node has none of this process's CPUs");
  const int first = cpus.front();
  auto d = host_description(node, DeviceKind::kCpu, std::move(cores), std::move(cpus), key, first);
  d.numa_node = numa_node;
  return std::make_shared<HostDevice>(std::move(d));
}

std::shared_ptr<Device> make_cpu_team(const symmer::topology::NodeModel& node,
                                      std::vector<int> cpus) {
  if (cpus.empty()) throw Error(TSAR_ERR_DEVICES, "team: no CPUs");
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  const std::string key = "team:" + symmer::topology::format_cpu_list(cpus);
  std::vector<int> cores;
  for (int cpu : cpus) {
    const int core = core_of_cpu(node, cpu, key);
    if (std::find(cores.begin(), cores.end(), core) == cores.end()) cores.push_back(core);
  }
  const int first = cpus.front();
  return std::make_shared<HostDevice>(
      host_description(node, DeviceKind::kCpu, std::move(cores), std::move(cpus), key, first));
}

std::shared_ptr<Device> make_emulated(const symmer::topology::NodeModel& node, int id, int cpu) {
  const std::string key = "emul:" + std::to_string(id);
  const int core = core_of_cpu(node, cpu, key);
  auto d = host_description(node, DeviceKind::kEmulated, {core}, {cpu}, key, id);
  d.accelerator = true;
  return std::make_shared<HostDevice>(std::move(d));
}

}  // namespace tsar::core
