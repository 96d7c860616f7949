// SPDX-License-Identifier: BSD-3-Clause
#include "affinity/places.hpp"

#include <algorithm>
#include <map>

#include "api/error.hpp"
#include "devices/device_list.hpp"
#include "symmer/topology/node_model.hpp"

namespace tsar::core {
namespace {

Place make_place(const symmer::topology::NodeModel& node, int index, int numa_node,
                 std::vector<std::shared_ptr<Device>> devices) {
  Place p;
  p.index = index;
  const auto& nodes = node.numa_nodes();
  p.numa_node = numa_node >= 0 && numa_node < static_cast<int>(nodes.size()) ? numa_node : 0;
  p.os_node = nodes.empty() ? 0 : nodes[static_cast<std::size_t>(p.numa_node)].os_index;
  for (const auto& d : devices) {
    p.cores += static_cast<int>(d->description().cores.size());
    p.keys += (p.keys.empty() ? "" : ",") + d->description().key;
  }
  p.devices = std::move(devices);
  return p;
}

}  // namespace

std::vector<Place> build_places(const symmer::topology::NodeModel& node, std::string_view spec,
                                std::string_view device_spec, const ProcessCpus& process,
                                unsigned kinds) {
  const auto keep = [kinds](std::vector<std::shared_ptr<Device>> devices) {
    std::erase_if(devices, [kinds](const auto& d) {
      return (static_cast<unsigned>(d->kind()) & kinds) == 0;
    });
    return devices;
  };
  std::vector<Place> places;
  if (spec.find_first_not_of(" \t") == std::string_view::npos) {
    std::map<int, std::vector<std::shared_ptr<Device>>> by_node;
    for (auto& d : keep(build_devices(node, device_spec, process)))
      by_node[std::max(0, d->description().numa_node)].push_back(std::move(d));
    if (by_node.empty())
      throw Error(TSAR_ERR_DEVICES, "no device of the allowed kinds for any place");
    for (auto& [numa, devices] : by_node)
      places.push_back(make_place(node, static_cast<int>(places.size()), numa, std::move(devices)));
    return places;
  }
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t bar = spec.find('|', start);
    const std::string_view group =
        spec.substr(start, bar == std::string_view::npos ? spec.npos : bar - start);
    start = bar == std::string_view::npos ? spec.size() + 1 : bar + 1;
    const std::string name =
        "place " + std::to_string(places.size()) + " ('" + std::string(group) + "')";
    if (group.find_first_not_of(" \t") == std::string_view::npos)
      throw Error(TSAR_ERR_DEVICES, name +
                                        " has no devices (places are device lists "
                                        "separated by '|', e.g. \"cpu:0-3|cpu:4-7\")");
    std::vector<std::shared_ptr<Device>> devices;
    try {
      devices = keep(build_devices(node, group, process));
    } catch (const Error& e) {
      throw Error(TSAR_ERR_DEVICES, name + ": " + e.what());
    }
    if (devices.empty())
      throw Error(TSAR_ERR_DEVICES, name + " has no device of the allowed kinds");
    const int numa = devices.front()->description().numa_node;
    places.push_back(make_place(node, static_cast<int>(places.size()), numa, std::move(devices)));
  }
  return places;
}

}  // namespace tsar::core
