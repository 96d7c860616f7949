// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl topology`: the node model as text or JSON; with --load, each core's load and
// effective capability over a window, and which cores took each NIC's and GPU's interrupts.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "command.hpp"
#include "symmer/topology/core_load.hpp"
#include "symmer/topology/cpu_list.hpp"
#include "symmer/topology/device_interrupts.hpp"
#include "symmer/topology/node_model.hpp"
#include "symmer/topology/proc_reader.hpp"

namespace {

using namespace symmer::topology;

struct Options {
  bool json = false;
  std::string xml;
  std::string synthetic;
  bool load = false;
  double window_seconds = 1.0;
  std::vector<std::string> replay;  // two captured /proc directories: before, after
};

// Unwraps an Expected or throws its error for main to print.
template <typename T>
T checked(symmer::Expected<T> e) {
  if (!e) throw std::runtime_error(e.error().to_string());
  return std::move(e).value();
}

// The window's two snapshots: captured directories, or this node sampled now.
std::pair<ProcSnapshot, ProcSnapshot> window_snapshots(const Options& o) {
  if (!o.replay.empty())
    return {checked(ProcReader(o.replay[0]).read()), checked(ProcReader(o.replay[1]).read())};
  const ProcReader reader;
  ProcSnapshot before = checked(reader.read());
  std::this_thread::sleep_for(std::chrono::duration<double>(o.window_seconds));
  return {std::move(before), checked(reader.read())};
}

// MSI IRQ numbers from /sys for kernels whose interrupt lines name neither address nor name.
std::map<std::string, std::vector<int>> msi_irqs(const NodeModel& model) {
  std::map<std::string, std::vector<int>> out;
  if (!model.is_this_node()) return out;
  for (const PciDevice& d : model.pci_devices())
    if (auto irqs = msi_irqs_of("/sys", d.pci_address)) out[d.pci_address] = *irqs;
  return out;
}

// A device's interrupts by logical core (-1: a CPU outside the model).
std::map<int, std::uint64_t> per_core_counts(const NodeModel& model, const DeviceInterrupts& d) {
  std::map<int, std::uint64_t> by_core;
  for (const auto& [cpu, n] : d.per_cpu) by_core[model.core_of_pu(cpu)] += n;
  return by_core;
}

std::string fixed(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

nlohmann::json load_json(const NodeModel& model, const std::vector<CoreLoad>& loads,
                         const std::vector<DeviceInterrupts>& devices) {
  nlohmann::json j = {{"window_seconds", loads.empty() ? 0.0 : loads[0].window_seconds},
                      {"cores", nlohmann::json::array()},
                      {"devices", nlohmann::json::array()}};
  for (const CoreLoad& l : loads)
    j["cores"].push_back({{"core", l.core},
                          {"cpus", l.cpus},
                          {"capability", l.capability},
                          {"busy", l.busy},
                          {"job", l.job},
                          {"foreign", l.foreign},
                          {"background", l.background},
                          {"irq", l.irq},
                          {"softirq", l.softirq},
                          {"steal", l.steal},
                          {"idle", l.idle},
                          {"device_interrupts", l.device_interrupts},
                          {"net_rx", l.net_rx},
                          {"net_tx", l.net_tx}});
  for (const DeviceInterrupts& d : devices) {
    nlohmann::json per_core = nlohmann::json::object();
    for (const auto& [core, n] : per_core_counts(model, d)) per_core[std::to_string(core)] = n;
    j["devices"].push_back({{"pci_address", d.pci_address},
                            {"names", d.names},
                            {"irqs", d.irqs},
                            {"queues", d.queues},
                            {"total", d.total},
                            {"per_core", per_core}});
  }
  return j;
}

std::string load_text(const NodeModel& model, const std::vector<CoreLoad>& loads,
                      const std::vector<DeviceInterrupts>& devices) {
  const double seconds = loads.empty() ? 0.0 : loads[0].window_seconds;
  std::string out = "per-core load over " + fixed(seconds, 2) +
                    " s (capability: share left to the job after interrupts, soft interrupts, "
                    "steal and other processes)\n";
  out += "  core    capability  busy  irq   softirq  steal  dev-irq/s  net-rx/s  cpus\n";
  for (const CoreLoad& l : loads) {
    char line[160];
    const double s = l.window_seconds > 0 ? l.window_seconds : 1.0;
    const std::string core = "L:" + std::to_string(l.core);
    std::snprintf(line, sizeof line, "  %-6s  %10.3f  %4.2f  %4.2f  %7.2f  %5.2f  %9.1f  %8.1f  ",
                  core.c_str(), l.capability, l.busy, l.irq, l.softirq, l.steal,
                  static_cast<double>(l.device_interrupts) / s, static_cast<double>(l.net_rx) / s);
    out += line + symmer::topology::format_cpu_list(l.cpus) + "\n";
  }
  out += "  (core: logical index, L:; cpus: Linux CPU numbers)\n";
  for (const DeviceInterrupts& d : devices) {
    out += "  interrupts of " + d.pci_address;
    for (const std::string& n : d.names) out += " " + n;
    out += ": " + std::to_string(d.irqs.size()) + " line(s), " + std::to_string(d.total) +
           " in the window";
    const auto by_core = per_core_counts(model, d);
    for (const auto& [core, n] : by_core)
      out += (core == by_core.begin()->first ? "; core L:" : ", core L:") + std::to_string(core) +
             " " + std::to_string(n);
    out += "\n";
  }
  return out;
}

int run(const Options& o) {
  const NodeModel model = !o.xml.empty()         ? NodeModel::from_xml_file(o.xml)
                          : !o.synthetic.empty() ? NodeModel::from_synthetic(o.synthetic)
                                                 : NodeModel::from_this_node();
  if (o.load && o.replay.empty() && !model.is_this_node())
    throw std::runtime_error(
        "--load samples this node; with --xml or --synthetic give --replay BEFORE AFTER");
  nlohmann::json j = model.to_json();
  std::string text = model.to_text();
  if (o.load) {
    const auto [before, after] = window_snapshots(o);
    const auto loads = checked(core_loads(model, before, after));
    const auto devices = device_interrupts(model.pci_devices(), before.interrupts, after.interrupts,
                                           msi_irqs(model));
    j["load"] = load_json(model, loads, devices);
    text += load_text(model, loads, devices);
  }
  if (o.json)
    std::cout << j.dump(2) << "\n";
  else
    std::cout << text;
  return 0;
}

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<Options>();
  cmd.add_flag("--json", o->json, "print JSON instead of text");
  auto* xml = cmd.add_option("--xml", o->xml, "load an hwloc XML export instead of this node")
                  ->check(CLI::ExistingFile);
  cmd.add_option("--synthetic", o->synthetic, "load an hwloc synthetic description")->excludes(xml);
  auto* load = cmd.add_flag(
      "--load", o->load, "sample each core's load and effective capability, and device interrupts");
  cmd.add_option("--window", o->window_seconds, "sampling window for --load (e.g. 500ms, 2s)")
      ->transform(CLI::AsNumberWithUnit(std::map<std::string, double>{{"ms", 1e-3}, {"s", 1.0}},
                                        CLI::AsNumberWithUnit::CASE_SENSITIVE))
      ->check(CLI::Range(1e-3, 3600.0))
      ->needs(load)
      ->default_str("1s");
  cmd.add_option("--replay", o->replay,
                 "with --load: compute the window from two captured /proc directories "
                 "(BEFORE AFTER) instead of sampling this node")
      ->expected(2)
      ->check(CLI::ExistingDirectory)
      ->needs(load);
  return [o] { return run(*o); };
}

const bool registered = symmer::ctl::register_command(
    {"topology",
     "print the node model symmer and TSAR use (packages, NUMA, caches, cores, NICs, "
     "GPUs); --load adds each core's effective capability",
     setup});

}  // namespace
