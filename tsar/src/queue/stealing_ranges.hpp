#pragma once
// The CPU share of a ratio (sub-)pass, balanced among its cores within the pass. Every CPU
// worker owns the contiguous range the split gave it and takes it in halves (guided, down to
// a minimum chunk), so a regular loop runs exactly as split -- each core on its own rows, as
// OpenMP static does; a worker whose range is exhausted takes half of what remains of the
// fullest range of another. Imbalance inside the share (triangular loops, a core slowed by
// another program, a split learned on other iterations) is absorbed before the barrier
// instead of waited out at it, the way the thesis's CPU device runs its share with OpenMP.
//
// Each range is a ChunkQueue: owner and thieves both take with one fetch-and-add on its
// head, so no lock is taken, nothing is retried except after another taker's progress, and
// every iteration is handed out exactly once.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "queue/chunk_queue.hpp"

namespace tsar::core {

class StealingRanges {
 public:
  /// Ranges for `workers` workers, none of them a member until reset().
  explicit StealingRanges(int workers = 0) { resize(workers); }

  /// Ranges for `workers` workers, none of them a member. Not concurrent with takers.
  void resize(int workers) {
    owners_ = std::make_unique<Owner[]>(static_cast<std::size_t>(workers));
    workers_ = workers;
    members_.clear();
    members_.reserve(static_cast<std::size_t>(workers));
  }

  int workers() const { return workers_; }

  /// Re-arms for a (sub-)pass: worker w owns ranges[w] when member[w] != 0 and takes no
  /// chunk smaller than min_chunk[w] (>= 1). Non-members' ranges are not handed out. Not
  /// concurrent with takers; allocates nothing.
  void reset(std::span<const Range> ranges, std::span<const unsigned char> member,
             std::span<const std::int64_t> min_chunk) {
    members_.clear();
    for (int w = 0; w < workers_; ++w) {
      const auto i = static_cast<std::size_t>(w);
      Owner& o = owners_[i];
      o.member = member[i] != 0;
      o.min_chunk = std::max<std::int64_t>(1, min_chunk[i]);
      o.queue.reset(ranges[i].begin, o.member ? ranges[i].end : ranges[i].begin);
      if (o.member) members_.push_back(w);
    }
    closed_.store(false, std::memory_order_relaxed);
  }

  bool member(int worker) const { return owners_[static_cast<std::size_t>(worker)].member; }

  /// Member `worker`'s next range: half of what remains of its own (at least its minimum
  /// chunk), else half of what remains of the fullest range of another member. kClosed once
  /// every member's range is exhausted, or after close().
  ChunkQueue::Result take(int worker, Range& out) {
    Owner& me = owners_[static_cast<std::size_t>(worker)];
    if (closed_.load(std::memory_order_relaxed)) return ChunkQueue::Result::kClosed;
    if (const std::int64_t own = me.queue.remaining(); own > 0) {
      if (me.queue.take(std::max(me.min_chunk, (own + 1) / 2), out) ==
          ChunkQueue::Result::kSuccess)
        return ChunkQueue::Result::kSuccess;
    }
    // A failed take means another taker emptied that range since remaining() was read, so
    // the loop ends: each round either succeeds or sees strictly less left to take.
    for (;;) {
      if (closed_.load(std::memory_order_relaxed)) return ChunkQueue::Result::kClosed;
      Owner* victim = nullptr;
      std::int64_t most = 0;
      for (int w : members_) {
        const std::int64_t left = owners_[static_cast<std::size_t>(w)].queue.remaining();
        if (left > most) {
          most = left;
          victim = &owners_[static_cast<std::size_t>(w)];
        }
      }
      if (victim == nullptr) return ChunkQueue::Result::kClosed;
      if (victim->queue.take(std::max(me.min_chunk, (most + 1) / 2), out) ==
          ChunkQueue::Result::kSuccess)
        return ChunkQueue::Result::kSuccess;
    }
  }

  /// Stops handing out ranges (cancellation); concurrent with takers.
  void close() {
    closed_.store(true, std::memory_order_relaxed);
    for (int w = 0; w < workers_; ++w) owners_[static_cast<std::size_t>(w)].queue.close();
  }

 private:
  struct alignas(64) Owner {
    ChunkQueue queue;
    std::int64_t min_chunk = 1;
    bool member = false;
  };

  std::unique_ptr<Owner[]> owners_;  // ChunkQueue holds atomics: fixed addresses
  int workers_ = 0;
  std::vector<int> members_;
  alignas(64) std::atomic<bool> closed_{false};
};

}  // namespace tsar::core
