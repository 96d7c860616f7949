// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Which pages go where (thesis 6.4.2), as pure logic over addresses: the placement planner.
//
//  - migrate: a page moves to a place when it lies wholly inside the buffer and the part of
//    exactly one place touches it. Pages shared by two places' parts (the boundaries) and
//    the partial pages at the buffer's ends (other data lives there) stay where they are.
//  - interleave: the buffer's whole pages go round-robin over the target nodes, in address
//    order (page k of the buffer to target k mod targets).
//
// Plans are lists of page runs per place; the mover (page_mover.hpp) carries them out.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "queue/chunk_queue.hpp"

namespace tsar::core {

class Association;

/// `count` pages from page-aligned address `first`.
struct PageRun {
  std::uintptr_t first = 0;
  std::size_t count = 0;
  bool operator==(const PageRun&) const = default;
};

/// Appends [first, first + count pages) to runs, merged with the last run when adjacent.
void append_run(std::vector<PageRun>& runs, std::uintptr_t first, std::size_t count,
                std::size_t page_size);
/// Total pages of runs.
std::size_t run_pages(const std::vector<PageRun>& runs);

/// The owners of the whole pages of one buffer.
class PageOwners {
 public:
  static constexpr int kNone = -1;    ///< touched by no place's part
  static constexpr int kShared = -2;  ///< touched by the parts of two or more places

  PageOwners(const void* buffer, std::size_t bytes, std::size_t page_size);

  /// Records that `place` owns bytes [begin, end) (offsets from the buffer's start).
  void mark(int place, std::size_t begin, std::size_t end);
  /// Runs of the pages `place` alone owns, appended to runs.
  void runs_of(int place, std::vector<PageRun>& runs) const;

  /// Whole pages of the buffer and the owner of each (kNone, kShared or a place).
  std::size_t pages() const { return owner_.size(); }
  int owner(std::size_t page) const { return owner_[page]; }
  /// Address of whole page `page`.
  std::uintptr_t page_address(std::size_t page) const { return first_ + page * page_size_; }

 private:
  std::uintptr_t begin_;  // the buffer
  std::uintptr_t end_;
  std::uintptr_t first_;  // its first whole page
  std::size_t page_size_;
  std::vector<int> owner_;
};

/// The whole pages of a buffer round-robin over `targets` targets: runs[t] gets the pages of
/// target t (appended).
void interleave_runs(const void* buffer, std::size_t bytes, std::size_t page_size, int targets,
                     std::vector<std::vector<PageRun>>& runs);

/// Migrate plan of one mapped buffer (data and map array): moves[p] gets the pages place p
/// owns alone under the split `parts` (one range per place).
void plan_migrate(const Association& a, std::span<const Range> parts, std::size_t page_size,
                  std::vector<std::vector<PageRun>>& moves);
/// Interleave plan of one mapped buffer over the distinct nodes of the places: moves[p] gets
/// the pages of the node of place p, for the first place on each node.
void plan_interleave(const Association& a, std::span<const int> place_nodes, std::size_t page_size,
                     std::vector<std::vector<PageRun>>& moves);

}  // namespace tsar::core
