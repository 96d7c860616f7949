// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Word-wise access to memory shared between processes (the node segment).
//
// Every field of the segment is a 64-bit word; writers and readers go through these relaxed
// atomic accesses so no value is ever torn and no access is a data race (ThreadSanitizer
// clean), with the seqlock (layout.hpp) giving consistent multi-word copies.

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace symmer::segment {

/// Relaxed atomic load of one shared word.
inline std::uint64_t load_word(const std::uint64_t& w) noexcept {
  return std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(w))
      .load(std::memory_order_relaxed);
}

/// Relaxed atomic store of one shared word.
inline void store_word(std::uint64_t& w, std::uint64_t v) noexcept {
  std::atomic_ref<std::uint64_t>(w).store(v, std::memory_order_relaxed);
}

/// Copies `bytes` (a multiple of 8) from shared memory word by word.
inline void copy_from_shared(void* dst, const void* shared_src, std::size_t bytes) noexcept {
  auto* d = static_cast<std::uint64_t*>(dst);
  const auto* s = static_cast<const std::uint64_t*>(shared_src);
  for (std::size_t i = 0; i < bytes / 8; ++i) d[i] = load_word(s[i]);
}

/// Copies `bytes` (a multiple of 8) into shared memory word by word.
inline void copy_to_shared(void* shared_dst, const void* src, std::size_t bytes) noexcept {
  auto* d = static_cast<std::uint64_t*>(shared_dst);
  const auto* s = static_cast<const std::uint64_t*>(src);
  for (std::size_t i = 0; i < bytes / 8; ++i) store_word(d[i], s[i]);
}

/// Writer side of a seqlock whose sequence word only this writer changes (a rank's slot,
/// local rank 0's summary area; the process serialises its own threads). It keeps the count it
/// expects and never waits: try_begin() fails, changing nothing, when the word is not what it
/// last wrote (something else wrote into the segment), and the caller stops publishing.
class SeqlockWriter {
 public:
  /// Takes the word's current value as its count (begin fails if that is odd).
  explicit SeqlockWriter(std::uint64_t& seq) noexcept
      : seq_(seq), next_(seq_.load(std::memory_order_relaxed)) {}

  /// Makes the sequence odd; false, changing nothing, when it is not the count this writer
  /// left it at.
  bool try_begin() noexcept {
    if ((next_ & 1) != 0 || seq_.load(std::memory_order_relaxed) != next_) return false;
    seq_.store(next_ + 1, std::memory_order_relaxed);
    // Data stores below must not become visible before the odd sequence.
    std::atomic_thread_fence(std::memory_order_release);
    return true;
  }

  /// Makes the sequence even again, publishing what was written since try_begin.
  void end() noexcept {
    next_ += 2;
    seq_.store(next_, std::memory_order_release);
  }

 private:
  std::atomic_ref<std::uint64_t> seq_;
  std::uint64_t next_;
};

}  // namespace symmer::segment
