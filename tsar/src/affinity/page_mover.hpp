// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Carries out a placement plan: asks where the planned pages are (move_pages without
// moving), then moves those on another node in throttled batches -- symmer's PageMigration,
// whose batch size adapts so that one move_pages call stalls the process for at most about
// 20 ms (a pass's other places keep running meanwhile).

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "affinity/numa_memory.hpp"
#include "affinity/page_plan.hpp"
#include "symmer/topology/page_migration.hpp"

namespace tsar::core {

struct MoveResult {
  std::int64_t already = 0;  ///< on the target before
  std::int64_t moved = 0;    ///< moved there now
  std::int64_t absent = 0;   ///< never touched: placed by first touch, nothing to move
  std::int64_t failed = 0;   ///< the kernel refused (busy, target full)
  std::int64_t calls = 0;    ///< move_pages calls that moved pages
  std::chrono::nanoseconds longest_call{0};
  std::string error;  ///< a call failed as a whole (the rest was not moved)
};

class PageMover {
 public:
  /// Pages per location query (queries are cheap: no copying).
  static constexpr std::size_t kQueryBatch = 4096;

  explicit PageMover(NumaMemory& memory, symmer::topology::MigrationOptions options = {},
                     symmer::topology::PageMigration::Now now = std::chrono::steady_clock::now);

  /// Moves the pages of `runs` to OS node `os_node`; results are added to *result.
  void move(std::span<const PageRun> runs, int os_node, MoveResult* result);

  /// OS node of each page of runs in order (negative errno for pages without one).
  std::vector<int> locate(std::span<const PageRun> runs);

 private:
  NumaMemory& memory_;
  symmer::topology::MigrationOptions options_;
  symmer::topology::PageMigration::Now now_;
};

}  // namespace tsar::core
