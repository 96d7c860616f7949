// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where memory is, in the node numbers users see: the logical NUMA node of each page of a
// range (tsar_mem_location). The same query answers for this machine's memory and for the
// in-memory machines of fixture topologies in tests, so placement decisions are checked the
// way users check them.

#include <cstddef>
#include <vector>

#include "affinity/numa_memory.hpp"

namespace symmer::topology {
class NodeModel;
}

namespace tsar::core {

/// Logical NUMA node (an index into node.numa_nodes()) of each of the first `capacity` pages
/// of [addr, addr + bytes); -1 for a page never touched or on a node the model does not
/// list. *pages gets the number of pages the range spans (may exceed capacity).
std::vector<int> memory_location(NumaMemory& memory, const symmer::topology::NodeModel& node,
                                 const void* addr, std::size_t bytes, std::size_t capacity,
                                 std::size_t* pages);

}  // namespace tsar::core
