// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Tests labelled `gpu` call require_cuda_gpus() first: where this node has no GPU the CUDA
// driver can use, the test process prints why and exits 77, which ctest reports as skipped
// (symmer_add_gtest and symmer_set_test_resources set SKIP_RETURN_CODE 77).

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "symmer/topology/node_model.hpp"

namespace symmer::testing {

/// This node's GPUs that have a CUDA ordinal; exits 77 with "no accelerator found: skipped
/// (...)" on stderr when there is none.
inline std::vector<topology::PciDevice> require_cuda_gpus() {
  const auto gpus = topology::NodeModel::from_this_node().gpus();
  std::vector<topology::PciDevice> usable;
  for (const auto& g : gpus)
    if (g.cuda_device >= 0) usable.push_back(g);
  if (usable.empty()) {
    std::fprintf(stderr,
                 "no accelerator found: skipped (%zu GPU PCI device(s) on this node, none "
                 "usable through the CUDA driver libcuda.so.1)\n",
                 gpus.size());
    std::fflush(stderr);
    std::exit(77);
  }
  return usable;
}

}  // namespace symmer::testing
