// NodeModel: hwloc topology -> plain vectors with logical indices (see node_model.hpp).
#include "symmer/topology/node_model.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

namespace symmer::topology {
namespace {

using HwlocHandle = std::shared_ptr<hwloc_topology>;

template <typename Configure>
HwlocHandle load_hwloc(Configure&& configure, const std::string& what) {
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0) throw TopologyError("hwloc_topology_init failed");
  HwlocHandle handle(topo, hwloc_topology_destroy);
  // NICs and GPUs matter (interrupt cores, GPU driving cores); bridges do not.
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (!configure(topo)) throw TopologyError("cannot use topology source " + what);
  if (hwloc_topology_load(topo) != 0) throw TopologyError("cannot load topology from " + what);
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
std::string ranges(const std::vector<int>& v) {
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(v[i]);
    if (j > i) out += '-' + std::to_string(v[j]);
    i = j + 1;
  }
  return out.empty() ? "-" : out;
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
    case PciKind::kNic: return "nic";
    case PciKind::kGpu: return "gpu";
    case PciKind::kOther: break;
  }
  return "other";
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
    hwloc_obj_t obj = hwloc_get_obj_by_type(m.topo.get(), m.core_type, static_cast<unsigned>(c.index));
    if (obj && hwloc_bitmap_isincluded(obj->cpuset, set)) out.push_back(c.index);
  }
  return out;
}

// The NUMA node local to `set`: the only node of its nodeset, or -1 when it spans several.
int numa_of_nodeset(const detail::NodeModelData& m, hwloc_const_bitmap_t nodeset) {
  if (!nodeset || hwloc_bitmap_weight(nodeset) != 1) return -1;
  const int os = hwloc_bitmap_first(nodeset);
  for (const NumaNode& n : m.numa_nodes)
    if (n.os_index == os) return n.index;
  return -1;
}

void fill_model(detail::NodeModelData& m) {
  hwloc_topology_t t = m.topo.get();
  if (hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) <= 0) m.core_type = HWLOC_OBJ_PU;

  for (int i = 0, n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE); i < n; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    m.numa_nodes.push_back({i, static_cast<int>(obj->os_index),
                            obj->attr ? obj->attr->numanode.local_memory : 0, {}});
  }

  for (int i = 0, n = hwloc_get_nbobjs_by_type(t, m.core_type); i < n; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(t, m.core_type, static_cast<unsigned>(i));
    Core c;
    c.index = i;
    c.os_index = static_cast<int>(obj->os_index);
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, obj);
    c.package = pkg ? static_cast<int>(pkg->logical_index) : 0;
    c.numa_node = numa_of_nodeset(m, obj->nodeset);
    c.pus = os_indices_of(obj->cpuset);
    m.cores.push_back(std::move(c));
  }
  for (NumaNode& node : m.numa_nodes) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(node.index));
    node.cores = cores_within(m, obj->cpuset);
  }

  const int npkg = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  for (int i = 0; i < std::max(npkg, 1); ++i) {
    Package p;
    p.index = i;
    for (const Core& c : m.cores)
      if (c.package == i) p.cores.push_back(c.index);
    for (const NumaNode& node : m.numa_nodes)
      if (!node.cores.empty() && m.cores[static_cast<size_t>(node.cores.front())].package == i)
        p.numa_nodes.push_back(node.index);
    m.packages.push_back(std::move(p));
  }

  for (hwloc_obj_type_t type : {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
                                HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE}) {
    for (int i = 0, n = hwloc_get_nbobjs_by_type(t, type); i < n; ++i) {
      hwloc_obj_t obj = hwloc_get_obj_by_type(t, type, static_cast<unsigned>(i));
      m.caches.push_back({static_cast<int>(obj->attr->cache.depth), obj->attr->cache.size,
                          cores_within(m, obj->cpuset)});
    }
  }

  for (hwloc_obj_t pci = hwloc_get_next_pcidev(t, nullptr); pci; pci = hwloc_get_next_pcidev(t, pci)) {
    PciDevice d;
    char addr[32];
    std::snprintf(addr, sizeof addr, "%04x:%02x:%02x.%01x", pci->attr->pcidev.domain,
                  pci->attr->pcidev.bus, pci->attr->pcidev.dev, pci->attr->pcidev.func);
    d.pci_address = addr;
    const unsigned cls = pci->attr->pcidev.class_id >> 8;
    bool compute_osdev = false;
    for (hwloc_obj_t os = pci->io_first_child; os; os = os->next_sibling) {
      if (os->type != HWLOC_OBJ_OS_DEVICE || !os->name) continue;
      d.names.emplace_back(os->name);
      int id = -1;
      if (std::sscanf(os->name, "cuda%d", &id) == 1) d.cuda_device = d.omp_device = id;
      if (os->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC || os->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU)
        compute_osdev = true;
    }
    if (cls == 0x02) d.kind = PciKind::kNic;
    else if (cls == 0x03 || cls == 0x12 || compute_osdev) d.kind = PciKind::kGpu;
    if (d.kind == PciKind::kOther && d.names.empty()) continue;  // storage, bridges: not ours
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t, pci);
    if (anc) {
      d.local_cores = cores_within(m, anc->cpuset);
      d.numa_node = numa_of_nodeset(m, anc->nodeset);
    }
    m.pci.push_back(std::move(d));
  }
}

detail::NodeModelData make_impl(HwlocHandle topo, std::string source) {
  detail::NodeModelData m;
  m.topo = std::move(topo);
  m.source = std::move(source);
  fill_model(m);
  if (m.cores.empty()) throw TopologyError("topology from " + m.source + " has no cores");
  return m;
}

}  // namespace

NodeModel::NodeModel(std::shared_ptr<const detail::NodeModelData> data) : impl_(std::move(data)) {}

NodeModel NodeModel::from_this_node() {
  auto topo = load_hwloc([](hwloc_topology_t) { return true; }, "this node");
  return NodeModel(std::make_shared<const detail::NodeModelData>(make_impl(std::move(topo), "this node")));
}

NodeModel NodeModel::from_xml_file(const std::string& path) {
  auto topo = load_hwloc([&](hwloc_topology_t t) { return hwloc_topology_set_xml(t, path.c_str()) == 0; },
                         "XML file '" + path + "'");
  return NodeModel(std::make_shared<const detail::NodeModelData>(make_impl(std::move(topo), "xml:" + path)));
}

NodeModel NodeModel::from_synthetic(const std::string& description) {
  auto topo = load_hwloc(
      [&](hwloc_topology_t t) { return hwloc_topology_set_synthetic(t, description.c_str()) == 0; },
      "synthetic description '" + description + "'");
  return NodeModel(std::make_shared<const detail::NodeModelData>(make_impl(std::move(topo), "synthetic:" + description)));
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

int NodeModel::shared_cache_level(int a, int b) const {
  int best = 0;
  for (const Cache& c : impl_->caches) {
    const bool has_a = std::find(c.cores.begin(), c.cores.end(), a) != c.cores.end();
    const bool has_b = std::find(c.cores.begin(), c.cores.end(), b) != c.cores.end();
    if (has_a && has_b && (best == 0 || c.level < best)) best = c.level;
  }
  return best;
}

bool NodeModel::is_this_node() const { return hwloc_topology_is_thissystem(impl_->topo.get()) != 0 && impl_->source == "this node"; }

void NodeModel::bind_current_thread(int core) const {
  if (!is_this_node()) throw TopologyError("cannot bind a thread on a model of another machine (" + impl_->source + ")");
  if (core < 0 || core >= static_cast<int>(impl_->cores.size()))
    throw TopologyError("core " + std::to_string(core) + " is not in the model (0.." +
                        std::to_string(impl_->cores.size() - 1) + ")");
  hwloc_obj_t obj = hwloc_get_obj_by_type(impl_->topo.get(), impl_->core_type, static_cast<unsigned>(core));
  if (hwloc_set_cpubind(impl_->topo.get(), obj->cpuset, HWLOC_CPUBIND_THREAD) != 0)
    throw TopologyError("binding the calling thread to core " + std::to_string(core) + " failed");
}

nlohmann::json NodeModel::to_json() const {
  nlohmann::json j;
  j["source"] = impl_->source;
  for (const Package& p : impl_->packages)
    j["packages"].push_back({{"index", p.index}, {"cores", p.cores}, {"numa_nodes", p.numa_nodes}});
  for (const NumaNode& n : impl_->numa_nodes)
    j["numa_nodes"].push_back({{"index", n.index}, {"os_index", n.os_index},
                               {"memory_bytes", n.memory_bytes}, {"cores", n.cores}});
  for (const Core& c : impl_->cores)
    j["cores"].push_back({{"index", c.index}, {"os_index", c.os_index}, {"package", c.package},
                          {"numa_node", c.numa_node}, {"pus", c.pus}});
  for (const Cache& c : impl_->caches)
    j["caches"].push_back({{"level", c.level}, {"size_bytes", c.size_bytes}, {"cores", c.cores}});
  j["pci_devices"] = nlohmann::json::array();
  for (const PciDevice& d : impl_->pci)
    j["pci_devices"].push_back({{"kind", kind_name(d.kind)}, {"pci_address", d.pci_address},
                                {"names", d.names}, {"numa_node", d.numa_node},
                                {"local_cores", d.local_cores}, {"cuda_device", d.cuda_device},
                                {"omp_device", d.omp_device}});
  return j;
}

std::string NodeModel::to_text() const {
  std::ostringstream out;
  const detail::NodeModelData& m = *impl_;
  out << "node (" << m.source << "): " << m.packages.size() << " package(s), " << m.numa_nodes.size()
      << " NUMA node(s), " << m.cores.size() << " core(s)\n";
  for (const Package& p : m.packages) {
    out << "  package " << p.index << ": cores " << ranges(p.cores) << "\n";
    for (int n : p.numa_nodes) {
      const NumaNode& node = m.numa_nodes[static_cast<size_t>(n)];
      out << "    numa " << node.index << " (os " << node.os_index << ", "
          << human_bytes(node.memory_bytes) << "): cores " << ranges(node.cores) << "\n";
    }
  }
  for (const Cache& c : m.caches)
    if (c.cores.size() > 1 || c.level >= 3)
      out << "  L" << c.level << " " << human_bytes(c.size_bytes) << " shared by cores " << ranges(c.cores) << "\n";
  for (const Core& c : m.cores)
    out << "  core " << c.index << " (os " << c.os_index << ", numa " << c.numa_node << "): cpus "
        << ranges(c.pus) << "\n";
  for (const PciDevice& d : m.pci) {
    out << "  " << kind_name(d.kind) << " " << d.pci_address;
    for (const std::string& name : d.names) out << " " << name;
    out << " (numa " << d.numa_node << ", near cores " << ranges(d.local_cores) << ")\n";
  }
  return out.str();
}

}  // namespace symmer::topology
