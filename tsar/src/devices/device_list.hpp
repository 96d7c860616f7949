// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The devices of a runtime, from a device list ("cpu:0-3,emul:0,cuda:0"; see tsar_set_devices
// in tsar.h) or, by default, every allowed core and GPU of this node (gpu_discovery.hpp).
// Accelerators get their TSAR_DEVICE_MEMORY_LIMIT here.

#include <memory>
#include <string_view>
#include <vector>

#include "devices/device.hpp"

namespace tsar::core {

/// Builds the devices `spec` names; an empty spec means default_devices(node).
/// Throws Error(TSAR_ERR_DEVICES) naming the bad entry.
std::vector<std::shared_ptr<Device>> build_devices(const symmer::topology::NodeModel& node,
                                                   std::string_view spec);

}  // namespace tsar::core
