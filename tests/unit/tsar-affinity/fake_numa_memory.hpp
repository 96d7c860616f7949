// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A NUMA machine in memory, for placement tests on topologies this machine does not have:
// a page -> node map that move_pages queries and changes like the kernel would, with an
// optional clock that each moved page advances (to test the throttled batches).

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "affinity/numa_memory.hpp"

namespace tsar::test {

class FakeNumaMemory final : public core::NumaMemory {
 public:
  explicit FakeNumaMemory(int nodes, std::size_t page_size = 4096)
      : nodes_(nodes), page_size_(page_size) {}

  std::size_t page_size() const override { return page_size_; }

  /// Places the pages of [addr, addr + bytes) on `node` (as a first touch there would).
  void touch(const void* addr, std::size_t bytes, int node) {
    std::lock_guard lock(mutex_);
    const auto lo = reinterpret_cast<std::uintptr_t>(addr) / page_size_;
    const auto hi = (reinterpret_cast<std::uintptr_t>(addr) + bytes + page_size_ - 1) / page_size_;
    for (auto p = lo; p < hi; ++p) node_of_[p] = node;
  }
  /// Node of the page holding addr, -1 when never touched.
  int node_of(const void* addr) const {
    std::lock_guard lock(mutex_);
    const auto it = node_of_.find(reinterpret_cast<std::uintptr_t>(addr) / page_size_);
    return it == node_of_.end() ? -1 : it->second;
  }

  long move_pages(unsigned long count, void** pages, const int* nodes, int* status) override {
    std::lock_guard lock(mutex_);
    if (nodes != nullptr) {
      call_sizes_.push_back(count);
      now_ += per_page_ * static_cast<long>(count);
    }
    for (unsigned long i = 0; i < count; ++i) {
      const auto page = reinterpret_cast<std::uintptr_t>(pages[i]) / page_size_;
      const auto it = node_of_.find(page);
      if (it == node_of_.end()) {
        status[i] = -ENOENT;
      } else if (nodes == nullptr) {
        status[i] = it->second;
      } else if (nodes[i] < 0 || nodes[i] >= nodes_) {
        status[i] = -ENODEV;
      } else {
        if (it->second != nodes[i]) ++pages_moved_;
        it->second = nodes[i];
        status[i] = nodes[i];
      }
    }
    return 0;
  }

  void* allocate_on(std::size_t bytes, int os_node) override {
    const std::size_t size = (bytes + page_size_ - 1) / page_size_ * page_size_ + page_size_;
    void* p = std::aligned_alloc(page_size_, size);
    touch(p, size, os_node);
    std::lock_guard lock(mutex_);
    allocations_[p] = os_node;
    return p;
  }
  void release(void* memory, std::size_t) noexcept override {
    if (memory == nullptr) return;
    std::lock_guard lock(mutex_);
    allocations_.erase(memory);
    std::free(memory);
  }
  /// Node each live allocate_on allocation was made on.
  std::map<void*, int> allocations() const {
    std::lock_guard lock(mutex_);
    return allocations_;
  }

  /// Simulated time: each moved page costs `per_page`.
  void set_cost_per_page(std::chrono::nanoseconds per_page) { per_page_ = per_page; }
  std::chrono::steady_clock::time_point now() const {
    std::lock_guard lock(mutex_);
    return std::chrono::steady_clock::time_point(now_);
  }
  std::vector<unsigned long> call_sizes() const {
    std::lock_guard lock(mutex_);
    return call_sizes_;
  }
  long pages_moved() const {
    std::lock_guard lock(mutex_);
    return pages_moved_;
  }

 private:
  mutable std::mutex mutex_;
  int nodes_;
  std::size_t page_size_;
  std::map<std::uintptr_t, int> node_of_;
  std::map<void*, int> allocations_;
  std::chrono::nanoseconds per_page_{0};
  std::chrono::nanoseconds now_{0};
  long pages_moved_ = 0;
  std::vector<unsigned long> call_sizes_;
};

}  // namespace tsar::test
