// SPDX-License-Identifier: BSD-3-Clause
#include "affinity/mem_location.hpp"

#include <algorithm>
#include <cstdint>

#include "affinity/page_mover.hpp"
#include "symmer/topology/node_model.hpp"

namespace tsar::core {

std::vector<int> memory_location(NumaMemory& memory, const symmer::topology::NodeModel& node,
                                 const void* addr, std::size_t bytes, std::size_t capacity,
                                 std::size_t* pages) {
  const std::size_t ps = memory.page_size();
  const auto lo = reinterpret_cast<std::uintptr_t>(addr) / ps * ps;
  const auto hi =
      bytes == 0 ? lo : (reinterpret_cast<std::uintptr_t>(addr) + bytes + ps - 1) / ps * ps;
  *pages = (hi - lo) / ps;
  const std::size_t asked = std::min(capacity, *pages);
  std::vector<int> nodes(asked, -1);
  if (asked == 0) return nodes;
  PageMover mover(memory);
  const std::vector<PageRun> runs{{lo, asked}};
  const std::vector<int> os_nodes = mover.locate(runs);
  for (std::size_t i = 0; i < asked; ++i)
    for (const auto& n : node.numa_nodes())
      if (os_nodes[i] >= 0 && n.os_index == os_nodes[i]) nodes[i] = n.index;
  return nodes;
}

}  // namespace tsar::core
