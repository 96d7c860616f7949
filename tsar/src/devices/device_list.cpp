// SPDX-License-Identifier: BSD-3-Clause
#include "devices/device_list.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string>

#include "api/error.hpp"
#include "devices/gpu_discovery.hpp"
#include "devices/host_device.hpp"
#include "devices/omp_target_device.hpp"
#include "symmer/topology/cpu_list.hpp"
#include "symmer/topology/node_model.hpp"
#if TSAR_HAVE_CUDA
#include "devices/cuda_device.hpp"
#endif

namespace tsar::core {
namespace {

using symmer::topology::NodeModel;

constexpr const char* kSyntax =
    "expected cpu:N, cpu:N-M, cpu:all, place:N, team:N-M, team:all, emul:N, omp:N[@CPU], "
    "omp:all, omphost:N, cuda:N[@CPU] or cuda:all; CPUs and NUMA nodes are Linux numbers, "
    "logical ones with an L: prefix (cpu:L:0-3)";

[[noreturn]] void bad(std::string_view entry, const std::string& why) {
  throw Error(TSAR_ERR_DEVICES,
              "device list entry '" + std::string(entry) + "': " + why + " (" + kSyntax + ")");
}

int parse_index(std::string_view entry, std::string_view text) {
  int value = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0)
    bad(entry, "'" + std::string(text) + "' is not a non-negative number");
  return value;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A device list's entries, trimmed, empty ones included (parse refuses them).
std::vector<std::string_view> entries_of(std::string_view spec) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0; start <= spec.size();) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    out.push_back(trim(spec.substr(start, comma - start)));
    start = comma + 1;
  }
  return out;
}

/// The numbers of an entry's argument, N or N-M (one item of a Linux CPU list, by the one
/// CPU-list parser): Linux numbers, or logical indices after "L:" (likwid's prefix).
struct Numbers {
  bool logical = false;
  std::vector<int> values;
};
Numbers numbers(std::string_view entry, std::string_view text) {
  Numbers n;
  if (text.substr(0, 2) == "L:") {
    n.logical = true;
    text.remove_prefix(2);
  }
  if (text.find(',') != std::string_view::npos) bad(entry, "one number or range per entry");
  auto parsed = symmer::topology::parse_cpu_list(text);
  if (!parsed) bad(entry, parsed.error().message);
  n.values = std::move(parsed.value());
  return n;
}

/// The logical core `index` (checked).
const symmer::topology::Core& logical_core(const NodeModel& node, std::string_view entry,
                                           int index) {
  if (index >= static_cast<int>(node.cores().size()))
    bad(entry, "core L:" + std::to_string(index) + " does not exist (cores L:0-" +
                   std::to_string(node.cores().size() - 1) + " are allowed here)");
  return node.cores()[static_cast<std::size_t>(index)];
}

/// One CPU an entry names (a worker's: emul:, omphost:, @CPU): a Linux CPU, or the first CPU
/// of logical core L:N.
int one_cpu(const NodeModel& node, std::string_view entry, std::string_view text) {
  const Numbers n = numbers(entry, text);
  if (n.values.size() != 1) bad(entry, "one CPU, not a range");
  if (n.logical) return logical_core(node, entry, n.values.front()).pus.front();
  core_of_cpu(node, n.values.front(), "device list entry '" + std::string(entry) + "'");
  return n.values.front();
}

/// A GPU entry (omp:N, cuda:N, with an optional @CPU): the GPU's slot, its control CPU
/// replaced when the entry names one.
GpuSlot gpu_entry(const NodeModel& node, const std::vector<GpuSlot>& gpus, std::string_view entry,
                  std::string_view arg, bool cuda) {
  std::string_view number = arg;
  int cpu = -1;
  if (const std::size_t at = arg.find('@'); at != std::string_view::npos) {
    number = arg.substr(0, at);
    cpu = one_cpu(node, entry, arg.substr(at + 1));
  }
  const int id = parse_index(entry, number);
  int count = 0;
  for (const auto& g : gpus) {
    if ((cuda ? g.cuda_device : g.omp_device) < 0) continue;
    ++count;
    if ((cuda ? g.cuda_device : g.omp_device) != id) continue;
    GpuSlot s = g;
    if (cpu >= 0) {
      s.control_core = node.core_of_pu(cpu);
      s.control_cpus = {cpu};
    }
    return s;
  }
  bad(entry, std::string(cuda ? "CUDA device " : "OpenMP target device ") + std::to_string(id) +
                 " does not exist (" + std::to_string(count) + " here)");
}

std::shared_ptr<Device> make_gpu(const GpuSlot& slot, bool cuda) {
#if TSAR_HAVE_CUDA
  if (cuda) return make_cuda(gpu_description(slot), slot.cuda_device);
#endif
  (void)cuda;
  return make_omp_target(gpu_description(slot), slot.omp_device);
}

std::vector<std::shared_ptr<Device>> parse(const NodeModel& node, std::string_view spec,
                                           const std::vector<int>& cpus) {
  std::vector<std::shared_ptr<Device>> devices;
  int emulated = 0, omp_hosts = 0;
  std::vector<GpuSlot> gpus;
  bool gpus_known = false;
  const auto known_gpus = [&]() -> const std::vector<GpuSlot>& {
    // A list naming a CUDA device asks the CUDA runtime even where no GPU is seen.
    if (!gpus_known) gpus = discover_gpus(node, cpus, spec.find("cuda:") != std::string_view::npos);
    gpus_known = true;
    return gpus;
  };
  for (const std::string_view entry : entries_of(spec)) {
    if (entry.empty()) bad(entry, "empty entry");
    const std::size_t colon = entry.find(':');
    if (colon == std::string_view::npos) bad(entry, "no ':'");
    const std::string_view kind = entry.substr(0, colon);
    const std::string_view arg = entry.substr(colon + 1);
    const std::string what = "device list entry '" + std::string(entry) + "'";
    if (kind == "cpu") {
      if (arg == "all") {  // a device per core of the process's CPUs
        for (const auto& c : cores_of(node, cpus))
          devices.push_back(make_cpu_core(node, c.core, c.cpus));
        continue;
      }
      const Numbers n = numbers(entry, arg);
      for (int v : n.values) {
        if (n.logical)
          devices.push_back(make_cpu_core(node, logical_core(node, entry, v).index));
        else
          devices.push_back(make_cpu_core(node, core_of_cpu(node, v, what), {v}));
      }
    } else if (kind == "team") {
      std::vector<int> team;
      if (arg == "all") {  // the default list's CPUs: GPU control cores stay reserved
        for (const auto& d : default_devices(node, known_gpus(), gpu_cores_policy(), cpus))
          if (d->kind() == DeviceKind::kCpu)
            team.insert(team.end(), d->description().cpus.begin(), d->description().cpus.end());
      } else {
        const Numbers n = numbers(entry, arg);
        for (int v : n.values) {
          if (!n.logical) {
            core_of_cpu(node, v, what);
            team.push_back(v);
            continue;
          }
          const auto& pus = logical_core(node, entry, v).pus;
          team.insert(team.end(), pus.begin(), pus.end());
        }
      }
      devices.push_back(make_cpu_team(node, std::move(team)));
    } else if (kind == "place") {
      const Numbers n = numbers(entry, arg);
      if (n.values.size() != 1) bad(entry, "one NUMA node, not a range");
      int numa = -1;
      for (const auto& m : node.numa_nodes())
        if (n.logical ? m.index == n.values.front() : m.os_index == n.values.front())
          numa = m.index;
      if (numa < 0) bad(entry, "NUMA node " + std::string(arg) + " does not exist here");
      devices.push_back(make_cpu_place(node, numa, cpus));
    } else if (kind == "emul") {
      devices.push_back(make_emulated(node, emulated++, one_cpu(node, entry, arg)));
    } else if (kind == "omphost") {
      devices.push_back(make_omp_host(node, omp_hosts++, one_cpu(node, entry, arg)));
    } else if (kind == "omp" || kind == "cuda") {
      const bool cuda = kind == "cuda";
      if (cuda && !cuda_backend_built())
        bad(entry, "this build has no CUDA backend (configure with -DTSAR_CUDA=ON)");
      if (arg == "all") {
        for (const auto& g : known_gpus())
          if ((cuda ? g.cuda_device : g.omp_device) >= 0) devices.push_back(make_gpu(g, cuda));
      } else {
        devices.push_back(make_gpu(gpu_entry(node, known_gpus(), entry, arg, cuda), cuda));
      }
    } else {
      bad(entry, "unknown device kind '" + std::string(kind) + "'");
    }
  }
  return devices;
}

}  // namespace

bool asks_gpu_runtimes(std::string_view spec) {
  if (trim(spec).empty()) return true;  // the default list: every GPU
  for (const std::string_view entry : entries_of(spec))
    if (entry.starts_with("omp:") || entry.starts_with("cuda:") || entry == "team:all")
      return true;
  return false;
}

std::vector<std::shared_ptr<Device>> build_devices(const NodeModel& node, std::string_view spec,
                                                   const ProcessCpus& process) {
  const std::vector<int> cpus = default_cpus(node, process);
  auto devices = trim(spec).empty()
                     ? default_devices(node, discover_gpus(node, cpus), gpu_cores_policy(), cpus)
                     : parse(node, spec, cpus);
  // Per-accelerator byte figures from the environment (per_device_bytes' list syntax).
  const auto from_env = [&devices](const char* variable, auto set) {
    const char* list = std::getenv(variable);
    if (list == nullptr || list[0] == '\0') return;
    for (auto& d : devices)
      if (!d->description().host_memory)
        set(*d, per_device_bytes(variable, list, d->description().key));
  };
  from_env("TSAR_DEVICE_MEMORY_LIMIT", [](Device& d, std::size_t b) { d.set_memory_limit(b); });
  from_env("TSAR_LINK_BANDWIDTH", [](Device& d, std::size_t b) { d.set_link_bandwidth(b); });
  return devices;
}

std::vector<std::size_t> devices_of_kinds(std::span<const std::shared_ptr<Device>> devices,
                                          unsigned kinds) {
  const unsigned all = TSAR_DEVICE_ALL;
  if (kinds == 0) kinds = all;
  if ((kinds & ~all) != 0)
    throw Error(TSAR_ERR_INVALID,
                "device kinds mask " + std::to_string(kinds) + " has unknown bits");
  std::vector<std::size_t> picked;
  std::vector<std::string> physicals;  // accelerators taken (one device each)
  std::string available;
  for (std::size_t s = 0; s < devices.size(); ++s) {
    const DeviceDescription& d = devices[s]->description();
    available += (available.empty() ? "" : ", ") + d.key;
    if ((static_cast<unsigned>(d.kind) & kinds) == 0) continue;
    if (!d.physical.empty()) {
      if (std::find(physicals.begin(), physicals.end(), d.physical) != physicals.end()) continue;
      physicals.push_back(d.physical);
    }
    picked.push_back(s);
  }
  if (picked.empty()) {
    std::string names;
    for (unsigned bit :
         {TSAR_DEVICE_CPU, TSAR_DEVICE_OMP_TARGET, TSAR_DEVICE_CUDA, TSAR_DEVICE_EMULATED})
      if (kinds & bit)
        names += (names.empty() ? "" : "|") +
                 std::string(device_kind_name(static_cast<DeviceKind>(bit)));
    throw Error(TSAR_ERR_DEVICES, "no device of kind " + names + " (devices: " +
                                      (available.empty() ? "none" : available) + ")");
  }
  return picked;
}

}  // namespace tsar::core
