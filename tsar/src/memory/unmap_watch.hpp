// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Which host ranges lost their pages. A page-lock (cudaHostRegister) holds the pages a range
// had when it was locked; once the program frees the array (munmap, mremap, a heap trim,
// madvise(MADV_DONTNEED)) and reuses its addresses, copies from a kept lock read or fail on
// the old pages. GPU-aware MPI libraries keep their registration caches safe the same way:
// UCX's libucm reports every unmap of the process, and a lock whose range lost pages is made
// again before its next copy.
//
// The watch records the unmapped ranges in a ring; a reader asks whether any of them since
// its last look overlapped its range. The handler runs inside munmap, possibly with the
// allocator's locks held, so recording takes no lock and allocates nothing; a reader that
// cannot tell (the ring wrapped, a slot being written) answers yes.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tsar::core {

class UnmapWatch {
 public:
  /// The process's watch, installed at the first call: libucm (through libucs.so.0, loaded
  /// here, or already loaded by UCX) hooks the process's unmaps. Returns null when it cannot
  /// (no UCX library, or UCX_MEM_EVENTS=no): nothing is watched then (see why()).
  static UnmapWatch* get();
  /// Why get() returned null; empty when it did not.
  static const std::string& why();

  /// The position of the next event: a reader's starting point.
  std::uint64_t now() const { return next_.load(std::memory_order_acquire); }
  /// True when some range unmapped since `since` overlaps [begin, begin + bytes), or when
  /// that cannot be told; moves `since` to now().
  bool unmapped_since(const void* begin, std::size_t bytes, std::uint64_t& since) const;
  /// Records that [begin, begin + bytes) lost its pages (the libucm handler; tests).
  void record(const void* begin, std::size_t bytes);

  /// Events kept: a reader that looks less often than this many unmaps re-locks anyway.
  static constexpr std::size_t kEvents = 1024;

 private:
  struct Event {
    std::atomic<std::uint64_t> seq{0};  ///< event number + 1 once written; 0 while writing
    std::atomic<std::uintptr_t> begin{0};
    std::atomic<std::uintptr_t> end{0};
  };
  std::array<Event, kEvents> ring_;
  std::atomic<std::uint64_t> next_{0};
};

}  // namespace tsar::core
