// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The operating system's page placement, as AffinityTSAR uses it: the node of each page,
// moving pages between nodes, and memory allocated on a node. Behind an interface so the
// placement logic runs against fixture topologies in tests (a recorded page -> node map)
// and against Linux (libnuma) otherwise.

#include <cstddef>
#include <memory>

namespace tsar::core {

class NumaMemory {
 public:
  virtual ~NumaMemory() = default;

  /// Bytes per page of ordinary allocations.
  virtual std::size_t page_size() const = 0;
  /// move_pages(2) on this process: with nodes == nullptr, status[i] gets the OS node of
  /// pages[i] (-ENOENT when never touched); else pages[i] moves to OS node nodes[i] and
  /// status[i] gets its node or a negative errno. Returns 0, or -1 with errno set.
  virtual long move_pages(unsigned long count, void** pages, const int* nodes, int* status) = 0;
  /// `bytes` of memory whose pages are placed on OS node `os_node` when first touched.
  /// Throws Error(TSAR_ERR_SYSTEM) when out of memory.
  virtual void* allocate_on(std::size_t bytes, int os_node) = 0;
  /// Frees what allocate_on returned (same size).
  virtual void release(void* memory, std::size_t bytes) noexcept = 0;
};

/// This machine's placement through libnuma (without NUMA support: one node, allocations
/// from the heap, queries answering node 0 for touched pages).
std::shared_ptr<NumaMemory> system_numa_memory();

}  // namespace tsar::core
