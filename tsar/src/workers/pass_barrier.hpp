#pragma once
// The end-of-pass barrier of a region's workers. The last worker to arrive runs the pass's
// completion (timing, adapting, merging) before anyone leaves, so the others find its
// results when they wake.

#include <atomic>
#include <cstdint>

#include "workers/wait_word.hpp"

namespace tsar::core {

class PassBarrier {
 public:
  void set_count(int count) { count_ = count; }

  /// Arrives; the last arriver runs completion() and releases the others.
  template <class Completion>
  void arrive_and_wait(Completion&& completion) {
    // Read the generation before arriving: it cannot move until this arrival is counted.
    const std::uint32_t generation = generation_.load();
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == count_) {
      arrived_.store(0, std::memory_order_relaxed);
      completion();
      generation_.store(generation + 1);
    } else {
      generation_.wait_while(generation);
    }
  }

 private:
  alignas(64) std::atomic<int> arrived_{0};
  int count_ = 1;
  alignas(64) WaitWord generation_;
};

}  // namespace tsar::core
