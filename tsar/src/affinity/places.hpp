// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The places of a partition (thesis 6.4.1): each a team of the devices of one NUMA node --
// its cores and the accelerators attached to it -- on which the outer level splits work and
// places data.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "devices/default_cpus.hpp"
#include "devices/device.hpp"
#include "tsar/tsar.h"

namespace symmer::topology {
class NodeModel;
}

namespace tsar::core {

struct Place {
  int index = 0;
  int numa_node = 0;  ///< logical NUMA node data is placed on
  int os_node = 0;    ///< its Linux node number (move_pages, numa_alloc_onnode)
  std::vector<std::shared_ptr<Device>> devices;  ///< its inner level, fresh objects
  int cores = 0;                                 ///< cores of its devices
  std::string keys;                              ///< "cpu:0,cpu:1"
};

/// The places `spec` names: device lists separated by '|' (each place on the NUMA node of
/// its first device); an empty spec groups the devices of the list `device_spec` ("" = the
/// default set) by NUMA node, one place per node that has any. Lists are built on the
/// process's CPUs `process` (build_devices). Only devices of `kinds` (TSAR_DEVICE_* mask) are
/// kept. Throws Error(TSAR_ERR_DEVICES) naming the bad place, or when no place is left.
std::vector<Place> build_places(const symmer::topology::NodeModel& node, std::string_view spec,
                                std::string_view device_spec, const ProcessCpus& process = {},
                                unsigned kinds = TSAR_DEVICE_ALL);

}  // namespace tsar::core
