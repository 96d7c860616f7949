#pragma once
// The iteration space of one (sub-)pass as a ticket queue, after the queue of thesis chapter 7:
// every taker gets its ticket -- the first iteration of its chunk -- with one fetch-and-add,
// so dispatch needs no mutex and no retry however many devices take at once.
//
// Three interfaces, as in chapter 7:
//  - blocking: take(size) reserves [head, head + size) with one fetch-and-add. All items
//    exist when the pass starts, so it never has to wait; it reports kClosed once the
//    range is exhausted or the queue was closed.
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

  /// Re-arms the queue over [lo, hi). Not concurrent with takers.
  void reset(std::int64_t lo, std::int64_t hi) {
    lo_ = lo;
    hi_ = hi;
    closed_.store(false, std::memory_order_relaxed);
    head_.store(lo, std::memory_order_release);
  }

  /// Largest chunk handed out: with passes of at most 2^60 iterations (Region's limit) the
  /// head cannot overflow however many takers overshoot the end once each.
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

  /// Status interface: iterations not yet handed out.
  std::int64_t remaining() const {
    return std::max<std::int64_t>(0, hi_ - head_.load(std::memory_order_relaxed));
  }
  bool closed() const { return closed_.load(std::memory_order_relaxed); }
  /// Stops handing out chunks (cancellation); concurrent with takers.
  void close() { closed_.store(true, std::memory_order_relaxed); }

 private:
  alignas(64) std::atomic<std::int64_t> head_{0};
  alignas(64) std::int64_t lo_ = 0;
  std::int64_t hi_ = 0;
  std::atomic<bool> closed_{false};
};

}  // namespace tsar::core
