// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the NUMA benchmarks (tsar-stream, tsar-bench-numa-gemm, tsar-bench-halo) share:
// fresh untouched memory, the placement totals of a pass, and the note a one-node machine
// gets.

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tsar/tsar.hpp"

namespace tsar::bench {

/// `count` elements of T in fresh anonymous pages: nothing placed until first touched.
template <class T>
class FreshArray {
 public:
  explicit FreshArray(std::size_t count)
      : count_(count), bytes_(std::max<std::size_t>(1, count * sizeof(T))) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
  }
  ~FreshArray() { munmap(data_, bytes_); }
  FreshArray(const FreshArray&) = delete;
  FreshArray& operator=(const FreshArray&) = delete;
  T* data() const { return data_; }
  std::size_t size() const { return count_; }
  T& operator[](std::size_t i) const { return data_[i]; }

 private:
  std::size_t count_;
  std::size_t bytes_;
  T* data_ = nullptr;
};

/// Placement of a partition's pass (-1 = the last): totals -- pages moved (all places),
/// bytes replicated and merged, the placement time (the slowest place: places place in
/// parallel) -- and the same per place ("places").
inline nlohmann::json placement_of(const tsar::Partition& part, std::int64_t pass = -1) {
  std::int64_t moved = 0, failed = 0, absent = 0, replicated = 0, merged = 0, halo = 0;
  double seconds = 0.0;
  nlohmann::json places = nlohmann::json::array();
  for (const auto& s : part.place_stats(pass)) {
    places.push_back({{"node", s.numa_node},
                      {"begin", s.begin},
                      {"end", s.end},
                      {"pages_moved", s.pages_moved},
                      {"bytes_replicated", s.bytes_replicated},
                      {"bytes_merged", s.bytes_merged},
                      {"halo_bytes", s.halo_bytes},
                      {"placement_seconds", s.placement_seconds}});
    moved += s.pages_moved;
    failed += s.pages_failed;
    absent += s.pages_absent;
    replicated += s.bytes_replicated;
    merged += s.bytes_merged;
    halo += s.halo_bytes;
    seconds = std::max(seconds, s.placement_seconds);
  }
  return {{"pages_moved", moved},           {"pages_failed", failed}, {"pages_absent", absent},
          {"bytes_replicated", replicated}, {"bytes_merged", merged}, {"halo_bytes", halo},
          {"placement_seconds", seconds},   {"places", places}};
}

/// "" on a machine with several NUMA nodes; else why placement cannot change anything here.
inline std::string one_node_note() {
  return tsar_num_numa_nodes() > 1
             ? ""
             : "placement has nothing to act on (1 NUMA node): every policy sees the same "
               "memory, so the ratios show only the policies' overheads";
}

}  // namespace tsar::bench
