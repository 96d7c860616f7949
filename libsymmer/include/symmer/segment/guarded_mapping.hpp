// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A shared mapping of a file that may shrink under it: the node segment as the job's ranks map
// it (its owner can truncate it while the job runs). Touching a page past the new end of the
// file raises SIGBUS; the guard's handler then puts private zero-filled memory over the whole
// mapping and returns, so the access completes on memory nobody else sees and the process goes
// on; lost() says so from then on, and the owner stops using it. A SIGBUS at any other address
// goes to the handler installed before the guard (or takes its default action).
//
// Limit: an application that installs its own SIGBUS handler after the guard replaces it.

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "symmer/expected.hpp"

namespace symmer::segment {

class GuardedMapping {
 public:
  /// Maps `size` bytes of the file open at `fd` from `offset` (a multiple of the page size)
  /// read-write and shared, under the guard. Errors: kIo (mmap failed), kUnsupported (too
  /// many guarded mappings in the process).
  static Expected<GuardedMapping> map(int fd, std::size_t size, std::uint64_t offset = 0);

  GuardedMapping(GuardedMapping&& other) noexcept;
  GuardedMapping& operator=(GuardedMapping&& other) noexcept;
  GuardedMapping(const GuardedMapping&) = delete;
  GuardedMapping& operator=(const GuardedMapping&) = delete;
  /// Unmaps.
  ~GuardedMapping();

  void* data() const { return data_; }
  std::size_t size() const { return size_; }
  /// True once a fault replaced the mapping: writes no longer reach the file, reads see zeros
  /// or what this process wrote since.
  bool lost() const;

 private:
  GuardedMapping(void* data, std::size_t size, int slot) : data_(data), size_(size), slot_(slot) {}
  void release();
  void* data_ = nullptr;
  std::size_t size_ = 0;
  int slot_ = -1;  // entry in the guard's table
};

}  // namespace symmer::segment
