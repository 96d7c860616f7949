// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The barrier of a partition's places inside a pass (tsar_place_barrier, halo updates).
// Unlike the end-of-pass barrier it forgives: a place whose body returned departs and is no
// longer waited for, and a canceled pass releases every waiter -- a place that fails or
// returns early cannot leave the others waiting forever.

#include <cstdint>
#include <mutex>

#include "region/pass_clock.hpp"
#include "workers/wait_word.hpp"

namespace tsar::core {

class PlaceBarrier {
 public:
  /// Re-arms it for `places` places (outside passes). `clock`, when not null, is synchronized
  /// at every release, before any waiter goes on: on emulated time a place leaves a barrier
  /// at the last arrival's time, as it would on real time.
  void reset(int places, PassClock* clock) {
    std::lock_guard lock(mutex_);
    clock_ = clock;
    active_ = places;
    arrived_ = 0;
    canceled_ = false;
  }

  /// Waits for every place still running; false once the pass is canceled.
  bool arrive_and_wait() {
    std::uint32_t generation = 0;
    {
      std::lock_guard lock(mutex_);
      if (canceled_) return false;
      generation = generation_.load();
      if (++arrived_ >= active_) {
        release_locked();
        return true;
      }
    }
    generation_.wait_while(generation);
    std::lock_guard lock(mutex_);
    return !canceled_;
  }

  /// The calling place's body returned: it no longer takes part.
  void depart() {
    std::lock_guard lock(mutex_);
    --active_;
    if (arrived_ > 0 && arrived_ >= active_) release_locked();
  }

  /// Releases every waiter; later arrivals return false at once.
  void cancel() {
    std::lock_guard lock(mutex_);
    canceled_ = true;
    release_locked();
  }

 private:
  void release_locked() {
    if (clock_ && !canceled_) clock_->synchronize();
    arrived_ = 0;
    generation_.store(generation_.load() + 1);
  }

  std::mutex mutex_;
  PassClock* clock_ = nullptr;
  int active_ = 0;
  int arrived_ = 0;
  bool canceled_ = false;
  WaitWord generation_;
};

}  // namespace tsar::core
