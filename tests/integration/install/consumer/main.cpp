// SPDX-License-Identifier: BSD-3-Clause
// Uses the installed node model: prints the core and NUMA counts of a synthetic node.
#include <iostream>
#include <symmer/topology/node_model.hpp>

int main() {
  const auto model = symmer::topology::NodeModel::from_synthetic("pack:2 l3:1 [numa] core:3 pu:2");
  std::cout << "consumer: " << model.cores().size() << " cores, " << model.numa_nodes().size()
            << " NUMA nodes\n";
  return model.cores().size() == 6 ? 0 : 1;
}
