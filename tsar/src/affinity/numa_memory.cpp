// SPDX-License-Identifier: BSD-3-Clause
#include "affinity/numa_memory.hpp"

#include <numa.h>
#include <numaif.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "api/error.hpp"

namespace tsar::core {
namespace {

class LinuxNumaMemory final : public NumaMemory {
 public:
  LinuxNumaMemory()
      : page_size_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))), numa_(numa_available() >= 0) {}

  std::size_t page_size() const override { return page_size_; }

  long move_pages(unsigned long count, void** pages, const int* nodes, int* status) override {
    if (numa_) return numa_move_pages(0, count, pages, nodes, status, MPOL_MF_MOVE);
    // No NUMA support in this kernel: everything is on node 0; mincore says what is touched.
    for (unsigned long i = 0; i < count; ++i) {
      unsigned char resident = 0;
      const bool touched = mincore(pages[i], page_size_, &resident) == 0 && (resident & 1) != 0;
      status[i] = touched ? 0 : -ENOENT;
      if (nodes != nullptr && touched && nodes[i] != 0) status[i] = -ENODEV;
    }
    return 0;
  }

  void* allocate_on(std::size_t bytes, int os_node) override {
    void* p = numa_ ? numa_alloc_onnode(std::max<std::size_t>(bytes, 1), os_node)
                    : std::aligned_alloc(page_size_, round_up(bytes));
    if (p == nullptr)
      throw Error(TSAR_ERR_SYSTEM, "allocating " + std::to_string(bytes) + " bytes on NUMA node " +
                                       std::to_string(os_node) + " failed");
    return p;
  }

  void release(void* memory, std::size_t bytes) noexcept override {
    if (memory == nullptr) return;
    if (numa_)
      numa_free(memory, std::max<std::size_t>(bytes, 1));
    else
      std::free(memory);
  }

 private:
  std::size_t round_up(std::size_t bytes) const {
    return (std::max<std::size_t>(bytes, 1) + page_size_ - 1) / page_size_ * page_size_;
  }
  std::size_t page_size_;
  bool numa_;
};

}  // namespace

std::shared_ptr<NumaMemory> system_numa_memory() {
  static const std::shared_ptr<NumaMemory> memory = std::make_shared<LinuxNumaMemory>();
  return memory;
}

}  // namespace tsar::core
