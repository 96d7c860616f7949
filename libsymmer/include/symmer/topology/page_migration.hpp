// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Moving a rank's hot memory along with it when a move crosses NUMA nodes (thesis 3.5: a
// migrated process otherwise pays remote accesses for all its memory).
//
// "Hot memory" is the process's private anonymous memory (heap, anonymous mappings, stack)
// that has pages on another NUMA node than the target, read from /proc/<pid>/maps and
// /proc/<pid>/numa_maps. Pages move with move_pages(2) (libnuma) in batches sized so that no
// single call stalls the process for more than about call_budget: the batch size adapts to
// the measured time per page of the previous call.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace symmer::topology {

/// A page-aligned address range of another process, in pages of `page_size` bytes.
struct MemoryRange {
  std::uintptr_t start = 0;
  std::uintptr_t end = 0;  ///< exclusive
  std::size_t page_size = 4096;
  std::size_t pages() const { return page_size == 0 ? 0 : (end - start) / page_size; }
};

/// Private anonymous writable ranges of process `pid` with pages on a NUMA node other than
/// Linux node `target_os_node`. Empty when the process is gone or its files are unreadable.
std::vector<MemoryRange> hot_ranges(int pid, int target_os_node);
/// The same from the text of /proc/<pid>/maps and /proc/<pid>/numa_maps (for tests).
std::vector<MemoryRange> hot_ranges_from(std::string_view maps, std::string_view numa_maps,
                                         int target_os_node);

/// move_pages(2): pid, count, pages, nodes, status, flags -> 0 / not-moved count / -1 + errno.
using MovePagesFunction = std::function<long(int, unsigned long, void**, const int*, int*, int)>;
/// The real one, from libnuma.
MovePagesFunction system_move_pages();

struct MigrationOptions {
  std::chrono::nanoseconds call_budget = std::chrono::milliseconds(20);
  std::size_t first_batch = 256;  ///< pages in the first call, before any measurement
  std::size_t min_batch = 16;
  std::size_t max_batch = 1u << 16;
};

struct MigrationStats {
  std::size_t pages_requested = 0;
  std::size_t pages_on_target = 0;  ///< moved, or already there
  std::size_t pages_absent = 0;     ///< never touched (-ENOENT): nothing to move
  std::size_t pages_failed = 0;     ///< other per-page errors (busy, no memory on target)
  std::size_t calls = 0;
  std::chrono::nanoseconds longest_call{0};
  std::string error;  ///< set when a call failed as a whole (process gone, no permission)
};

/// One process's migration, carried out one batch per step() so the caller decides how much
/// to do at a time.
class PageMigration {
 public:
  using Now = std::function<std::chrono::steady_clock::time_point()>;

  PageMigration(int pid, int target_os_node, std::vector<MemoryRange> ranges,
                MigrationOptions options = {}, MovePagesFunction move_pages = system_move_pages(),
                Now now = std::chrono::steady_clock::now);

  /// Moves the next batch; false once nothing is left (or a call failed as a whole).
  bool step();
  bool done() const;
  /// Pages the next step() will pass to move_pages.
  std::size_t next_batch() const { return batch_; }
  const MigrationStats& stats() const { return stats_; }
  int pid() const { return pid_; }
  int node() const { return node_; }  ///< Linux NUMA node the pages go to

 private:
  int pid_;
  int node_;
  std::vector<MemoryRange> ranges_;
  MigrationOptions options_;
  MovePagesFunction move_pages_;
  Now now_;
  std::size_t range_ = 0;  // position: range index and page within it
  std::size_t page_ = 0;
  std::size_t batch_;
  MigrationStats stats_;
};

}  // namespace symmer::topology
