// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The 4-GPU node of tests/fixtures/topologies/2p4n4gpu.xml: 2 sockets x 2 NUMA nodes x 8
// cores, one H100 per NUMA node, and what its GPU runtimes report: CUDA order 3b, 19, bb, 9b
// (NUMA nodes 1, 0, 3, 2), four OpenMP target devices.

#include <string>

#include "devices/gpu_discovery.hpp"
#include "symmer/topology/node_model.hpp"

namespace four_gpu_node {

inline symmer::topology::NodeModel node() {
  return symmer::topology::NodeModel::from_xml_file(std::string(SYMMER_SOURCE_DIR) +
                                                    "/tests/fixtures/topologies/2p4n4gpu.xml");
}

inline tsar::core::GpuRuntimes runtimes() {
  return {{"0000:3B:00.0", "0000:19:00.0", "0000:bb:00.0", "0000:9b:00.0"},
          {30000, 30000, 30000, 30000},
          4};
}

}  // namespace four_gpu_node
