// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The devices of a runtime, from a device list ("cpu:0-3,emul:0,cuda:0"; see tsar_set_devices
// in tsar/devices.h) or, by default, a device per core of this process's CPUs
// (default_cpus.hpp) and every GPU (gpu_discovery.hpp). Accelerators get their
// TSAR_DEVICE_MEMORY_LIMIT here.

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "devices/default_cpus.hpp"
#include "devices/device.hpp"

namespace tsar::core {

/// Builds the devices `spec` names; an empty spec means default_devices on
/// default_cpus(node, process) (the runtime passes this_process_cpus(); {}: every CPU). The
/// process's CPUs are also what "cpu:all", "team:all" and "place:N" take and where GPU control
/// cores are chosen; entries naming CPUs get exactly those. Throws Error(TSAR_ERR_DEVICES) naming
/// the bad entry.
std::vector<std::shared_ptr<Device>> build_devices(const symmer::topology::NodeModel& node,
                                                   std::string_view spec,
                                                   const ProcessCpus& process = {});

/// Whether building the devices `spec` names asks the GPU runtimes (the CUDA runtime for
/// ordinals and page-locking included): the default list, omp: and cuda: entries, and
/// team:all (which leaves GPU control cores out). False for lists of CPUs, places, emulated
/// and OpenMP host devices only.
bool asks_gpu_runtimes(std::string_view spec);

/// The devices a region of device kinds `kinds` (a TSAR_DEVICE_* mask, 0 = all) runs on, as
/// indices into `devices`: every device of those kinds in list order, one per physical
/// accelerator (an OpenMP and a CUDA device of one GPU: the first). Throws
/// Error(TSAR_ERR_INVALID) for unknown bits and Error(TSAR_ERR_DEVICES), naming the kinds
/// and the devices there are, when none matches.
std::vector<std::size_t> devices_of_kinds(std::span<const std::shared_ptr<Device>> devices,
                                          unsigned kinds);

}  // namespace tsar::core
