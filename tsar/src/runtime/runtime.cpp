// SPDX-License-Identifier: BSD-3-Clause
#include "runtime/runtime.hpp"

#include <cstdlib>
#include <mutex>

#include "api/error.hpp"
#include "devices/device_list.hpp"
#include "devices/gpu_discovery.hpp"
#include "runtime/symmer_link.hpp"
#include "symmer/topology/cpu_list.hpp"

namespace tsar::core {
namespace {

std::mutex current_mutex;
std::shared_ptr<Runtime> current_runtime;

/// The device list `spec` stands for: itself, else TSAR_DEVICES, else "" (the default).
std::string device_text(const std::optional<std::string>& spec) {
  if (spec) return *spec;
  const char* env = std::getenv("TSAR_DEVICES");
  return env != nullptr ? env : "";
}

/// Everything build_devices reads besides the node: the device list, the process's CPUs, the
/// accelerators' memory limits and declared links, and the GPU control-core policy. Equal
/// keys build equal device sets.
std::string selection_key(const std::string& text, const ProcessCpus& process) {
  const char* limits = std::getenv("TSAR_DEVICE_MEMORY_LIMIT");
  const char* links = std::getenv("TSAR_LINK_BANDWIDTH");
  std::string policy;
  try {
    policy = gpu_cores_policy() == GpuCores::kShare ? "share" : "reserve";
  } catch (const Error&) {
    policy = "invalid";  // build_devices reports it where the policy matters
  }
  std::string cpus = symmer::topology::format_cpu_list(process.affinity) + ';' +
                     std::to_string(process.omp_num_threads);
  for (const auto& place : process.omp_places)
    cpus += ";" + symmer::topology::format_cpu_list(place);
  return text + '\n' + cpus + '\n' + (limits != nullptr ? limits : "") + '\n' +
         (links != nullptr ? links : "") + '\n' + policy;
}

std::shared_ptr<Runtime> build(const std::optional<std::string>& spec, const ProcessCpus& process,
                               std::string key) {
  symmer::topology::NodeModel node = [] {
    try {
      return symmer::topology::NodeModel::from_this_node();
    } catch (const std::exception& e) {
      throw Error(TSAR_ERR_DEVICES, std::string("reading this node's topology: ") + e.what());
    }
  }();
  const std::string text = device_text(spec);
  try {
    auto devices = build_devices(node, text, process);
    return std::make_shared<Runtime>(std::move(node), std::move(devices), text, process,
                                     std::move(key));
  } catch (const Error& e) {
    if (spec) throw;
    throw Error(e.status(), std::string("TSAR_DEVICES: ") + e.what());
  }
}

}  // namespace

Runtime::Runtime(symmer::topology::NodeModel node, std::vector<std::shared_ptr<Device>> devices,
                 std::string device_spec, ProcessCpus process, std::string selection_key)
    : node_(std::move(node)),
      devices_(std::move(devices)),
      device_spec_(std::move(device_spec)),
      process_(std::move(process)),
      selection_key_(std::move(selection_key)),
      pool_(static_cast<int>(devices_.size())) {
  // Inside an MPI rank under symmer: tell it where TSAR's workers and GPU-driving threads run.
  std::vector<int> workers, control;
  const auto pus = [this](int core) -> const std::vector<int>& {
    static const std::vector<int> none;
    return core >= 0 && static_cast<std::size_t>(core) < node_.cores().size()
               ? node_.cores()[static_cast<std::size_t>(core)].pus
               : none;
  };
  for (const auto& d : devices_) {
    const auto& desc = d->description();
    for (int core : desc.cores) workers.insert(workers.end(), pus(core).begin(), pus(core).end());
    if (desc.accelerator)
      control.insert(control.end(), pus(desc.control_core).begin(), pus(desc.control_core).end());
  }
  SymmerLink::instance().publish(std::move(workers), std::move(control));
}

std::shared_ptr<Runtime> Runtime::current() {
  std::lock_guard lock(current_mutex);
  if (!current_runtime) {
    const ProcessCpus process = this_process_cpus();
    current_runtime =
        build(std::nullopt, process, selection_key(device_text(std::nullopt), process));
  }
  return current_runtime;
}

void Runtime::select(const std::optional<std::string>& spec) {
  const ProcessCpus process = this_process_cpus();
  std::string key = selection_key(device_text(spec), process);
  {
    // The same selection again keeps the runtime: a new one would read the topology again
    // and start a second pool whose threads share the cores with the first one's.
    std::lock_guard lock(current_mutex);
    if (current_runtime && current_runtime->selection_key_ == key) return;
  }
  auto next = build(spec, process, std::move(key));
  std::lock_guard lock(current_mutex);
  current_runtime = std::move(next);
}

}  // namespace tsar::core
