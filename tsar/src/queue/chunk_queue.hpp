// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The iteration space of one (sub-)pass as a ticket queue, after the queue of thesis chapter 7:
// every taker gets its ticket -- the first iteration of its chunk -- with one fetch-and-add,
// so dispatch needs no mutex and no retry however many devices take at once.
//
// Three interfaces, as in chapter 7:
//  - blocking: take(size) reserves [head, head + size) with one fetch-and-add. All items
//    exist when the pass starts, so it never has to wait; it reports kClosed once the
//    range is exhausted or the queue was closed. Batched tickets: take(size, takers,
//    reserve) claims several chunks with one fetch-and-add into the taker's own reserve
//    and hands them out one at a time, so the contended cache line moves once per batch,
//    not once per chunk; batches shrink with what remains, down to one chunk for the tail.
//  - non-waiting: try_take(size_of) reads the head, sizes the chunk from what remains and
//    claims it with one compare-and-swap; kBusy when another taker moved the head first
//    (guided schedules, whose chunk size depends on the exact head, retry on kBusy).
//  - status: remaining(), closed().
// close() is the chapter's "closed" state: cancellation stops all further takes.

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace tsar::core {

struct Range {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t size() const { return end - begin; }
  bool empty() const { return end <= begin; }
};

class ChunkQueue {
 public:
  enum class Result { kSuccess, kBusy, kClosed };

  /// One taker's reserve of batched tickets: iterations it claimed with one fetch-and-add
  /// and has not taken yet. Owned by one taker (its own cache line); reset() empties every
  /// reserve.
  struct alignas(64) Reserve {
    std::int64_t next = 0;
    std::int64_t end = 0;
    std::uint64_t epoch = 0;   ///< the reset it belongs to
    std::int64_t fetches = 0;  ///< fetch-and-adds this taker made (tests, statistics)
  };

  /// Most chunks one batch claims.
  static constexpr std::int64_t kMaxBatch = 16;
  /// A batch claims at most 1/(kBatchShare * takers) of what remains: the last
  /// kBatchShare * takers chunks go one fetch-and-add each, as with take(size).
  static constexpr std::int64_t kBatchShare = 8;

  /// Re-arms the queue over [lo, hi). Not concurrent with takers.
  void reset(std::int64_t lo, std::int64_t hi) {
    lo_ = lo;
    hi_ = hi;
    ++epoch_;
    closed_.store(false, std::memory_order_relaxed);
    head_.store(lo, std::memory_order_release);
  }

  /// Largest chunk handed out: with passes of at most 2^60 iterations (Region's limit) the
  /// head cannot overflow however many takers overshoot the end once each (by at most
  /// kMaxBatch chunks).
  static constexpr std::int64_t kMaxChunk = std::int64_t{1} << 40;

  /// Blocking interface: one fetch-and-add; size in [1, kMaxChunk].
  Result take(std::int64_t size, Range& out) {
    size = std::clamp<std::int64_t>(size, 1, kMaxChunk);
    if (closed_.load(std::memory_order_relaxed)) return Result::kClosed;
    const std::int64_t begin = head_.fetch_add(size, std::memory_order_relaxed);
    if (begin >= hi_) return Result::kClosed;
    out = {begin, std::min(begin + size, hi_)};
    return Result::kSuccess;
  }

  /// Blocking interface with batched tickets: the next chunk of `size` (in [1, kMaxChunk])
  /// from the taker's reserve, refilled when empty with one fetch-and-add of up to kMaxBatch
  /// chunks, at most 1/(kBatchShare * takers) of what remains. The last chunk of a reserve
  /// may be shorter than `size` only at the end of the range.
  Result take(std::int64_t size, int takers, Reserve& reserve, Range& out) {
    size = std::clamp<std::int64_t>(size, 1, kMaxChunk);
    if (closed_.load(std::memory_order_relaxed)) return Result::kClosed;
    if (reserve.epoch != epoch_) reserve = {lo_, lo_, epoch_, reserve.fetches};
    if (reserve.next < reserve.end) {
      out = {reserve.next, std::min(reserve.next + size, reserve.end)};
      reserve.next = out.end;
      return Result::kSuccess;
    }
    // The head is at least where this taker's last batch ended, so hi_ - reserve.end bounds
    // what remains: the shared head is read only when that bound allows a batch of two.
    const std::int64_t per_chunk_share = kBatchShare * std::max(1, takers) * size;
    std::int64_t batch = 1;
    if (hi_ - reserve.end >= 2 * per_chunk_share)
      batch = std::clamp<std::int64_t>(
          (hi_ - head_.load(std::memory_order_relaxed)) / per_chunk_share, 1, kMaxBatch);
    const std::int64_t begin = head_.fetch_add(batch * size, std::memory_order_relaxed);
    ++reserve.fetches;
    if (begin >= hi_) {
      reserve.next = reserve.end = hi_;
      return Result::kClosed;
    }
    reserve.end = std::min(begin + batch * size, hi_);
    out = {begin, std::min(begin + size, reserve.end)};
    reserve.next = out.end;
    return Result::kSuccess;
  }

  /// Non-waiting interface: size_of(remaining) gives the chunk size (>= 1) for the head seen.
  template <class SizeOf>
  Result try_take(SizeOf size_of, Range& out) {
    if (closed_.load(std::memory_order_relaxed)) return Result::kClosed;
    std::int64_t begin = head_.load(std::memory_order_relaxed);
    if (begin >= hi_) return Result::kClosed;
    const std::int64_t size = std::clamp<std::int64_t>(size_of(hi_ - begin), 1, kMaxChunk);
    const std::int64_t end = std::min(begin + size, hi_);
    if (!head_.compare_exchange_strong(begin, end, std::memory_order_relaxed)) return Result::kBusy;
    out = {begin, end};
    return Result::kSuccess;
  }

  /// Status interface: iterations not yet handed out (or reserved by a taker).
  std::int64_t remaining() const {
    return std::max<std::int64_t>(0, hi_ - head_.load(std::memory_order_relaxed));
  }
  bool closed() const { return closed_.load(std::memory_order_relaxed); }
  /// Stops handing out chunks (cancellation); concurrent with takers.
  void close() { closed_.store(true, std::memory_order_relaxed); }

 private:
  alignas(64) std::atomic<std::int64_t> head_{0};
  // Read by every take, written by reset() only.
  alignas(64) std::int64_t lo_ = 0;
  std::int64_t hi_ = 0;
  std::uint64_t epoch_ = 0;
  std::atomic<bool> closed_{false};
};

}  // namespace tsar::core
