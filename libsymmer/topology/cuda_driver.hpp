// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What this node's CUDA and OpenMP offload runtimes call each GPU (internal to
// symmer-topology). Debian's hwloc has no CUDA plugin, so the node model asks the CUDA driver
// itself, loaded at run time: symmer needs no CUDA to build and runs where none is installed.

#include <map>
#include <string>

namespace symmer::topology::detail {

/// CUDA device ordinal of every GPU the CUDA driver shows this process, keyed by PCI address
/// ("0000:3b:00.0", lower case). Empty when libcuda.so.1 is missing or finds no device.
/// Honours CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER as CUDA programs do; creates no context.
std::map<std::string, int> cuda_ordinals_by_pci_address();

/// True when GCC's OpenMP nvptx offload plugin (libgomp-plugin-nvptx.so.1) can be loaded, so
/// OpenMP target device numbers follow CUDA ordinals.
bool gomp_nvptx_plugin_installed();

}  // namespace symmer::topology::detail
