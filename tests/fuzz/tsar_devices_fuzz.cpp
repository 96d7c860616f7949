// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: TSAR's device list (TSAR_DEVICES, tsar_set_devices), CPU lists and ranges
// included, on a synthetic node. Every input must give devices or one Error naming the bad
// entry: never crash, or create devices without bound.
#include <cstdint>
#include <string_view>

#include "api/error.hpp"
#include "devices/device_list.hpp"
#include "symmer/topology/node_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto node = symmer::topology::NodeModel::from_synthetic("pack:2 numa:1 core:4 pu:2");
  const std::string_view spec(reinterpret_cast<const char*>(data), size);
  try {
    (void)tsar::core::build_devices(node, spec);
  } catch (const tsar::core::Error&) {
  }
  return 0;
}
