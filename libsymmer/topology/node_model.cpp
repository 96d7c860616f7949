// SPDX-License-Identifier: BSD-3-Clause
// NodeModel: hwloc topology -> plain vectors with logical indices (see node_model.hpp).
#include "symmer/topology/node_model.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "cuda_driver.hpp"
#include "symmer/topology/cpu_list.hpp"

namespace symmer::topology {
namespace {

using HwlocHandle = std::shared_ptr<hwloc_topology>;

// hwloc loads its plugins (PCI through libpciaccess, OpenCL...) when the first topology is
// created and unloads them when the last one goes; each unload leaks libpciaccess's state.
// One never-destroyed, never-loaded topology keeps them loaded for the process's lifetime.
void keep_hwloc_plugins_loaded() {
  static const hwloc_topology_t kKeepAlive = [] {
    hwloc_topology_t t = nullptr;
    return hwloc_topology_init(&t) == 0 ? t : nullptr;
  }();
  (void)kKeepAlive;
}

template <typename Configure>
HwlocHandle load_hwloc(Configure&& configure, const std::string& what) {
  keep_hwloc_plugins_loaded();
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0) throw TopologyError("hwloc_topology_init failed");
  HwlocHandle handle(topo, hwloc_topology_destroy);
  // NICs and GPUs matter (interrupt cores, GPU driving cores); bridges do not. Disallowed
  // PUs and NUMA nodes (cgroups, an XML's allowed sets) are dropped by hwloc's default flags.
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (!configure(topo)) throw TopologyError("cannot use topology source " + what);
  if (hwloc_topology_load(topo) != 0)
    throw TopologyError("cannot load topology from " + what + ": " +
                        std::generic_category().message(errno));
  return handle;
}

std::vector<int> os_indices_of(hwloc_const_bitmap_t set) {
  std::vector<int> out;
  int i = -1;
  hwloc_bitmap_foreach_begin(i, set) { out.push_back(i); }
  hwloc_bitmap_foreach_end();
  return out;
}

// Compact "0-3,8,10-11" rendering of a sorted index list.
// "L:0-3" for logical indices (likwid's prefix); "-" for none.
std::string logical(const std::vector<int>& v) {
  return v.empty() ? "-" : "L:" + format_cpu_list(v);
}

std::string human_bytes(std::uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024.0 && u < 4) v /= 1024.0, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

const char* kind_name(PciKind k) {
  switch (k) {
    case PciKind::kNic:
      return "nic";
    case PciKind::kGpu:
      return "gpu";
    case PciKind::kOther:
      break;
  }
  return "other";
}

const char* info(hwloc_obj_t obj, const char* name) {
  const char* v = hwloc_obj_get_info_by_name(obj, name);
  return v && *v ? v : nullptr;
}

// True for an OS device of a GPU API whose hwloc backend finds the device by the whole PCI
// address the API reports (cuDeviceGetPCIBusId, nvmlDeviceGetPciInfo, rsmi_dev_pci_id_get,
// zeDevicePciGetPropertiesExt): the PCI device it hangs under is that GPU. OpenCL is not one:
// hwloc rebuilds its address from vendor extensions that lose the PCI domain (AMD) or pack
// device and function otherwise than hwloc reads them (NVIDIA), so an OpenCL device can hang
// under another PCI device -- a virtio disk on a 4-GPU VM
// (docs/results/archive/tsar/gpu-tests/2026-11-26-h200x4-20e3214.txt).
bool locates_gpu(hwloc_obj_t os) {
  static const char* const kGpuApis[] = {"CUDA", "NVML", "RSMI", "LevelZero"};
  return os->subtype != nullptr &&
         std::any_of(std::begin(kGpuApis), std::end(kGpuApis),
                     [&](const char* api) { return std::strcmp(os->subtype, api) == 0; });
}

// The one rule for what a PCI device is to symmer and TSAR. A 3D controller (0302: NVIDIA's
// data-centre GPUs) or a processing accelerator (base class 12) is a GPU by its class.
// Another display controller (VGA 0300, 0380: workstation cards, AMD Instinct, Intel Max) is
// one only when a GPU API locates it, since a BMC's or a VM's display has the same classes. A
// device of any other class (storage, network, bridge) is never a GPU, whatever OS device
// hwloc hangs under it: lstopo draws an OS device where its backend put it, which says nothing
// of the device.
PciKind classify(std::uint16_t class_id, bool located_by_gpu_api, bool has_network_osdev) {
  const unsigned base = class_id >> 8;
  if (base == 0x02 || class_id == 0x0c06 || has_network_osdev) return PciKind::kNic;  // 0c06: IB
  if (class_id == 0x0302 || base == 0x12 || (base == 0x03 && located_by_gpu_api))
    return PciKind::kGpu;
  return PciKind::kOther;
}

}  // namespace

struct detail::NodeModelData {
  HwlocHandle topo;
  std::string source;
  hwloc_obj_type_t core_type = HWLOC_OBJ_CORE;  // PU when the topology has no Core level
  std::vector<Package> packages;
  std::vector<NumaNode> numa_nodes;
  std::vector<Core> cores;
  std::vector<Cache> caches;
  std::vector<PciDevice> pci;
};

namespace {

// Logical cores whose cpuset lies inside `set`.
std::vector<int> cores_within(const detail::NodeModelData& m, hwloc_const_bitmap_t set) {
  std::vector<int> out;
  for (const Core& c : m.cores) {
    hwloc_obj_t obj =
        hwloc_get_obj_by_type(m.topo.get(), m.core_type, static_cast<unsigned>(c.index));
    if (obj && hwloc_bitmap_isincluded(obj->cpuset, set)) out.push_back(c.index);
  }
  return out;
}

// The NUMA node local to `nodeset`: its only node, or its only plain-DRAM node when HBM or
// other special memories are local too; -1 when it spans several ordinary nodes.
int numa_of_nodeset(const detail::NodeModelData& m, hwloc_const_bitmap_t nodeset) {
  if (!nodeset) return -1;
  int found = -1, dram_found = -1, dram_count = 0;
  for (const NumaNode& n : m.numa_nodes) {
    if (!hwloc_bitmap_isset(nodeset, static_cast<unsigned>(n.os_index))) continue;
    found = found == -1 ? n.index : -2;
    if (n.subtype.empty()) dram_found = n.index, ++dram_count;
  }
  if (found >= 0) return found;
  return dram_count == 1 ? dram_found : -1;
}

void fill_numa_and_cores(detail::NodeModelData& m) {
  hwloc_topology_t t = m.topo.get();
  if (hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) <= 0) m.core_type = HWLOC_OBJ_PU;

  for (int i = 0, n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE); i < n; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    NumaNode node;
    node.index = i;
    node.os_index = static_cast<int>(obj->os_index);
    node.memory_bytes = obj->attr ? obj->attr->numanode.local_memory : 0;
    node.subtype = obj->subtype ? obj->subtype : "";
    m.numa_nodes.push_back(std::move(node));
  }

  // hwloc keeps a package whose PUs are all disallowed when devices hang below it; the
  // model numbers only packages with usable cores.
  std::vector<int> package_of;
  int npackages = 0;
  for (int i = 0, n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE); i < n; ++i) {
    hwloc_obj_t pkg = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, static_cast<unsigned>(i));
    package_of.push_back(hwloc_bitmap_iszero(pkg->cpuset) ? -1 : npackages++);
  }
  m.packages.resize(static_cast<size_t>(std::max(npackages, 1)));

  for (int i = 0, n = hwloc_get_nbobjs_by_type(t, m.core_type); i < n; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(t, m.core_type, static_cast<unsigned>(i));
    Core c;
    c.index = i;
    c.os_index = static_cast<int>(obj->os_index);
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, obj);
    c.package = pkg ? package_of[pkg->logical_index] : 0;
    c.numa_node = numa_of_nodeset(m, obj->nodeset);
    c.pus = os_indices_of(obj->cpuset);
    m.cores.push_back(std::move(c));
  }
  for (NumaNode& node : m.numa_nodes) {
    hwloc_obj_t obj =
        hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(node.index));
    if (!hwloc_bitmap_iszero(obj->cpuset)) node.cores = cores_within(m, obj->cpuset);
  }
}

void fill_packages_and_caches(detail::NodeModelData& m) {
  hwloc_topology_t t = m.topo.get();
  for (size_t i = 0; i < m.packages.size(); ++i) {
    Package& p = m.packages[i];
    p.index = static_cast<int>(i);
    for (const Core& c : m.cores)
      if (c.package == p.index) p.cores.push_back(c.index);
    for (const NumaNode& node : m.numa_nodes)
      if (!node.cores.empty() &&
          m.cores[static_cast<size_t>(node.cores.front())].package == p.index)
        p.numa_nodes.push_back(node.index);
  }

  for (hwloc_obj_type_t type : {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
                                HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE}) {
    for (int i = 0, n = hwloc_get_nbobjs_by_type(t, type); i < n; ++i) {
      hwloc_obj_t obj = hwloc_get_obj_by_type(t, type, static_cast<unsigned>(i));
      m.caches.push_back({static_cast<int>(obj->attr->cache.depth), obj->attr->cache.size,
                          cores_within(m, obj->cpuset)});
    }
  }
}

std::string model_of(hwloc_obj_t pci, const PciDevice& d) {
  for (hwloc_obj_t os = pci->io_first_child; os; os = os->next_sibling)
    if (const char* gpu = info(os, "GPUModel"); gpu && locates_gpu(os)) return gpu;
  const char* vendor = info(pci, "PCIVendor");
  const char* device = info(pci, "PCIDevice");
  if (vendor && device) return std::string(vendor) + " " + device;
  char ids[16];
  std::snprintf(ids, sizeof ids, "[%04x:%04x]", pci->attr->pcidev.vendor_id,
                pci->attr->pcidev.device_id);
  return d.kind == PciKind::kOther ? "" : ids;
}

void fill_pci_devices(detail::NodeModelData& m) {
  hwloc_topology_t t = m.topo.get();
  for (hwloc_obj_t pci = hwloc_get_next_pcidev(t, nullptr); pci;
       pci = hwloc_get_next_pcidev(t, pci)) {
    PciDevice d;
    char addr[32];
    std::snprintf(addr, sizeof addr, "%04x:%02x:%02x.%01x", pci->attr->pcidev.domain,
                  pci->attr->pcidev.bus, pci->attr->pcidev.dev, pci->attr->pcidev.func);
    d.pci_address = addr;
    d.class_id = pci->attr->pcidev.class_id;
    bool located = false, network = false;
    for (hwloc_obj_t os = pci->io_first_child; os; os = os->next_sibling) {
      if (os->type != HWLOC_OBJ_OS_DEVICE || !os->name) continue;
      d.names.emplace_back(os->name);
      int id = -1;
      char rest = 0;
      if (std::sscanf(os->name, "cuda%d%c", &id, &rest) == 1) d.cuda_device = d.omp_device = id;
      located = located || locates_gpu(os);
      network = network || os->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK ||
                os->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS;
    }
    d.kind = classify(d.class_id, located, network);
    if (d.kind == PciKind::kOther) continue;  // storage, BMC display, USB: not ours
    d.model = model_of(pci, d);
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t, pci);
    if (anc) {
      d.local_cores = cores_within(m, anc->cpuset);
      d.numa_node = numa_of_nodeset(m, anc->nodeset);
    }
    m.pci.push_back(std::move(d));
  }
  std::sort(m.pci.begin(), m.pci.end(),
            [](const PciDevice& a, const PciDevice& b) { return a.pci_address < b.pci_address; });
}

// On this node, GPUs hwloc found without a "cudaN" device get their ordinals from the driver.
void map_cuda_ordinals(detail::NodeModelData& m) {
  const bool any_unmapped = std::any_of(m.pci.begin(), m.pci.end(), [](const PciDevice& d) {
    return d.kind == PciKind::kGpu && d.cuda_device < 0;
  });
  if (!any_unmapped) return;
  const auto ordinals = detail::cuda_ordinals_by_pci_address();
  const bool gomp_nvptx = !ordinals.empty() && detail::gomp_nvptx_plugin_installed();
  for (PciDevice& d : m.pci) {
    auto it = ordinals.find(d.pci_address);
    if (d.kind != PciKind::kGpu || it == ordinals.end()) continue;
    d.cuda_device = it->second;
    d.omp_device = gomp_nvptx ? it->second : -1;
  }
}

detail::NodeModelData make_impl(HwlocHandle topo, std::string source) {
  detail::NodeModelData m;
  m.topo = std::move(topo);
  m.source = std::move(source);
  fill_numa_and_cores(m);
  if (m.cores.empty()) throw TopologyError("topology from " + m.source + " has no usable cores");
  fill_packages_and_caches(m);
  fill_pci_devices(m);
  return m;
}

}  // namespace

NodeModel::NodeModel(std::shared_ptr<const detail::NodeModelData> data) : impl_(std::move(data)) {}

NodeModel NodeModel::from_this_node(GpuQuery gpu_query) {
  auto topo = load_hwloc([](hwloc_topology_t) { return true; }, "this node");
  detail::NodeModelData m = make_impl(std::move(topo), "this node");
  if (gpu_query == GpuQuery::kCudaDriver) map_cuda_ordinals(m);
  return NodeModel(std::make_shared<const detail::NodeModelData>(std::move(m)));
}

NodeModel NodeModel::from_xml_file(const std::string& path) {
  // hwloc reports a missing file only as a generic load failure; say which file and why.
  if (!std::ifstream(path)) {
    throw TopologyError("cannot read hwloc XML file '" + path +
                        "': " + std::generic_category().message(errno));
  }
  auto topo =
      load_hwloc([&](hwloc_topology_t t) { return hwloc_topology_set_xml(t, path.c_str()) == 0; },
                 "XML file '" + path + "'");
  return NodeModel(
      std::make_shared<const detail::NodeModelData>(make_impl(std::move(topo), "xml:" + path)));
}

NodeModel NodeModel::from_synthetic(const std::string& description) {
  auto topo = load_hwloc(
      [&](hwloc_topology_t t) { return hwloc_topology_set_synthetic(t, description.c_str()) == 0; },
      "synthetic description '" + description + "'");
  return NodeModel(std::make_shared<const detail::NodeModelData>(
      make_impl(std::move(topo), "synthetic:" + description)));
}

const std::vector<Package>& NodeModel::packages() const { return impl_->packages; }
const std::vector<NumaNode>& NodeModel::numa_nodes() const { return impl_->numa_nodes; }
const std::vector<Core>& NodeModel::cores() const { return impl_->cores; }
const std::vector<Cache>& NodeModel::caches() const { return impl_->caches; }
const std::vector<PciDevice>& NodeModel::pci_devices() const { return impl_->pci; }
const std::string& NodeModel::source() const { return impl_->source; }

std::vector<PciDevice> NodeModel::gpus() const {
  std::vector<PciDevice> out;
  std::copy_if(impl_->pci.begin(), impl_->pci.end(), std::back_inserter(out),
               [](const PciDevice& d) { return d.kind == PciKind::kGpu; });
  return out;
}

std::vector<PciDevice> NodeModel::nics() const {
  std::vector<PciDevice> out;
  std::copy_if(impl_->pci.begin(), impl_->pci.end(), std::back_inserter(out),
               [](const PciDevice& d) { return d.kind == PciKind::kNic; });
  return out;
}

int NodeModel::core_of_pu(int os_pu) const {
  for (const Core& c : impl_->cores)
    if (std::find(c.pus.begin(), c.pus.end(), os_pu) != c.pus.end()) return c.index;
  return -1;
}

std::vector<int> NodeModel::cpus_of_cores(std::span<const int> cores) const {
  std::vector<int> cpus;
  const auto& all = impl_->cores;
  for (int c : cores)
    if (c >= 0 && static_cast<std::size_t>(c) < all.size())
      cpus.insert(cpus.end(), all[static_cast<std::size_t>(c)].pus.begin(),
                  all[static_cast<std::size_t>(c)].pus.end());
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

int NodeModel::shared_cache_level(int a, int b) const {
  int best = 0;
  for (const Cache& c : impl_->caches) {
    const bool has_a = std::find(c.cores.begin(), c.cores.end(), a) != c.cores.end();
    const bool has_b = std::find(c.cores.begin(), c.cores.end(), b) != c.cores.end();
    if (has_a && has_b && (best == 0 || c.level < best)) best = c.level;
  }
  return best;
}

bool NodeModel::is_this_node() const {
  return impl_->source == "this node" && hwloc_topology_is_thissystem(impl_->topo.get()) != 0;
}

void NodeModel::bind_current_thread(int core) const {
  if (!is_this_node())
    throw TopologyError("cannot bind a thread on a model of another machine (" + impl_->source +
                        ")");
  if (core < 0 || core >= static_cast<int>(impl_->cores.size()))
    throw TopologyError("core L:" + std::to_string(core) + " is not in the model (L:0-" +
                        std::to_string(impl_->cores.size() - 1) + ")");
  hwloc_obj_t obj =
      hwloc_get_obj_by_type(impl_->topo.get(), impl_->core_type, static_cast<unsigned>(core));
  if (hwloc_set_cpubind(impl_->topo.get(), obj->cpuset, HWLOC_CPUBIND_THREAD) != 0)
    throw TopologyError("binding the calling thread to core L:" + std::to_string(core) +
                        " failed: " + std::generic_category().message(errno));
}

nlohmann::json NodeModel::to_json() const {
  using nlohmann::json;
  json j = {{"source", impl_->source}, {"packages", json::array()}, {"numa_nodes", json::array()},
            {"cores", json::array()},  {"caches", json::array()},   {"pci_devices", json::array()}};
  for (const Package& p : impl_->packages)
    j["packages"].push_back({{"index", p.index}, {"cores", p.cores}, {"numa_nodes", p.numa_nodes}});
  for (const NumaNode& n : impl_->numa_nodes)
    j["numa_nodes"].push_back({{"index", n.index},
                               {"os_index", n.os_index},
                               {"memory_bytes", n.memory_bytes},
                               {"cores", n.cores},
                               {"subtype", n.subtype}});
  for (const Core& c : impl_->cores)
    j["cores"].push_back({{"index", c.index},
                          {"os_index", c.os_index},
                          {"package", c.package},
                          {"numa_node", c.numa_node},
                          {"pus", c.pus}});
  for (const Cache& c : impl_->caches)
    j["caches"].push_back({{"level", c.level}, {"size_bytes", c.size_bytes}, {"cores", c.cores}});
  for (const PciDevice& d : impl_->pci)
    j["pci_devices"].push_back({{"kind", kind_name(d.kind)},
                                {"pci_address", d.pci_address},
                                {"class_id", d.class_id},
                                {"model", d.model},
                                {"names", d.names},
                                {"numa_node", d.numa_node},
                                {"local_cores", d.local_cores},
                                {"cuda_device", d.cuda_device},
                                {"omp_device", d.omp_device}});
  return j;
}

std::string NodeModel::to_text() const {
  std::ostringstream out;
  const detail::NodeModelData& m = *impl_;
  // Linux CPU numbers of logical cores (what taskset and OMP_PLACES take).
  const auto cpus = [&](const std::vector<int>& cores) {
    const std::vector<int> pus = cpus_of_cores(cores);
    return pus.empty() ? std::string("-") : format_cpu_list(pus);
  };
  // Linux number of logical NUMA node `n` (what numactl takes), "?" when unknown.
  const auto numa = [&](int n) {
    return n >= 0 && static_cast<std::size_t>(n) < m.numa_nodes.size()
               ? std::to_string(m.numa_nodes[static_cast<std::size_t>(n)].os_index)
               : std::string("?");
  };
  out << "node (" << m.source << "): " << m.packages.size() << " package(s), "
      << m.numa_nodes.size() << " NUMA node(s), " << m.cores.size() << " core(s)\n"
      << "  (cpus and numa: Linux numbers, as taskset and numactl take them; L: logical "
         "indices)\n";
  for (const Package& p : m.packages) {
    out << "  package L:" << p.index << ": cores " << logical(p.cores) << ", cpus " << cpus(p.cores)
        << "\n";
    for (int n : p.numa_nodes) {
      const NumaNode& node = m.numa_nodes[static_cast<size_t>(n)];
      out << "    numa " << node.os_index << " (L:" << node.index << ", "
          << human_bytes(node.memory_bytes) << "): cores " << logical(node.cores) << ", cpus "
          << cpus(node.cores) << "\n";
    }
  }
  for (const NumaNode& node : m.numa_nodes)
    if (node.cores.empty())
      out << "  numa " << node.os_index << " (L:" << node.index << ", "
          << human_bytes(node.memory_bytes) << (node.subtype.empty() ? "" : ", " + node.subtype)
          << "): memory only\n";
  for (const Cache& c : m.caches)
    if (c.cores.size() > 1 || c.level >= 3)
      out << "  L" << c.level << " " << human_bytes(c.size_bytes) << " shared by cores "
          << logical(c.cores) << ", cpus " << cpus(c.cores) << "\n";
  for (const Core& c : m.cores)
    out << "  core L:" << c.index << " (numa " << numa(c.numa_node) << "): cpus "
        << format_cpu_list(c.pus) << "\n";
  for (const PciDevice& d : m.pci) {
    out << "  " << kind_name(d.kind) << " " << d.pci_address;
    for (const std::string& name : d.names) out << " " << name;
    if (!d.model.empty()) out << " \"" << d.model << "\"";
    out << " (numa " << numa(d.numa_node) << ", near cpus " << cpus(d.local_cores);
    if (d.cuda_device >= 0) out << ", cuda " << d.cuda_device;
    if (d.omp_device >= 0) out << ", omp " << d.omp_device;
    out << ")\n";
  }
  return out.str();
}

}  // namespace symmer::topology
