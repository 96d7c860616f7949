// SPDX-License-Identifier: BSD-3-Clause
#include "affinity/page_mover.hpp"

#include <algorithm>
#include <cerrno>

namespace tsar::core {

PageMover::PageMover(NumaMemory& memory, symmer::topology::MigrationOptions options,
                     symmer::topology::PageMigration::Now now)
    : memory_(memory), options_(options), now_(std::move(now)) {}

std::vector<int> PageMover::locate(std::span<const PageRun> runs) {
  const std::size_t ps = memory_.page_size();
  std::vector<int> nodes;
  std::vector<void*> batch;
  batch.reserve(kQueryBatch);
  const auto flush = [&] {
    if (batch.empty()) return;
    const std::size_t at = nodes.size();
    nodes.resize(at + batch.size(), -EFAULT);
    if (memory_.move_pages(batch.size(), batch.data(), nullptr, nodes.data() + at) < 0)
      std::fill(nodes.begin() + static_cast<std::ptrdiff_t>(at), nodes.end(), -errno);
    batch.clear();
  };
  for (const PageRun& r : runs) {
    for (std::size_t p = 0; p < r.count; ++p) {
      batch.push_back(reinterpret_cast<void*>(r.first + p * ps));
      if (batch.size() == kQueryBatch) flush();
    }
  }
  flush();
  return nodes;
}

void PageMover::move(std::span<const PageRun> runs, int os_node, MoveResult* result) {
  const std::size_t ps = memory_.page_size();
  const std::vector<int> where = locate(runs);
  // The pages elsewhere, as ranges for the throttled migration.
  std::vector<symmer::topology::MemoryRange> elsewhere;
  std::size_t k = 0;
  for (const PageRun& r : runs) {
    for (std::size_t p = 0; p < r.count; ++p, ++k) {
      const std::uintptr_t page = r.first + p * ps;
      if (where[k] == os_node) {
        ++result->already;
      } else if (where[k] == -ENOENT) {
        ++result->absent;
      } else if (!elsewhere.empty() && elsewhere.back().end == page) {
        elsewhere.back().end += ps;
      } else {
        elsewhere.push_back({page, page + ps, ps});
      }
    }
  }
  if (elsewhere.empty()) return;
  std::size_t planned = 0;
  for (const auto& r : elsewhere) planned += r.pages();
  symmer::topology::PageMigration migration(
      0, os_node, std::move(elsewhere), options_,
      [this](int, unsigned long count, void** pages, const int* nodes, int* status, int) {
        return memory_.move_pages(count, pages, nodes, status);
      },
      now_);
  while (migration.step()) {
  }
  const auto& s = migration.stats();
  result->moved += static_cast<std::int64_t>(s.pages_on_target);
  result->absent += static_cast<std::int64_t>(s.pages_absent);
  // Busy pages, and after a failed call everything it did not get to.
  result->failed += static_cast<std::int64_t>(planned - s.pages_on_target - s.pages_absent);
  result->calls += static_cast<std::int64_t>(s.calls);
  result->longest_call = std::max(result->longest_call, s.longest_call);
  if (!s.error.empty() && result->error.empty()) result->error = s.error;
}

}  // namespace tsar::core
