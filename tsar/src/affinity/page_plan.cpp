// SPDX-License-Identifier: BSD-3-Clause
#include "affinity/page_plan.hpp"

#include <memory>
#include <numeric>

#include "affinity/association.hpp"

namespace tsar::core {

void append_run(std::vector<PageRun>& runs, std::uintptr_t first, std::size_t count,
                std::size_t page_size) {
  if (count == 0) return;
  if (!runs.empty() && runs.back().first + runs.back().count * page_size == first) {
    runs.back().count += count;
    return;
  }
  runs.push_back({first, count});
}

std::size_t run_pages(const std::vector<PageRun>& runs) {
  return std::accumulate(runs.begin(), runs.end(), std::size_t{0},
                         [](std::size_t n, const PageRun& r) { return n + r.count; });
}

PageOwners::PageOwners(const void* buffer, std::size_t bytes, std::size_t page_size)
    : begin_(reinterpret_cast<std::uintptr_t>(buffer)),
      end_(begin_ + bytes),
      first_((begin_ + page_size - 1) / page_size * page_size),
      page_size_(page_size) {
  const std::uintptr_t last = end_ / page_size * page_size;  // end of the last whole page
  owner_.assign(last > first_ ? (last - first_) / page_size : 0, kNone);
}

void PageOwners::mark(int place, std::size_t begin, std::size_t end) {
  if (end <= begin || owner_.empty()) return;
  const std::uintptr_t lo = begin_ + begin;
  const std::uintptr_t hi = begin_ + end;
  if (hi <= first_) return;
  const std::size_t p0 = lo <= first_ ? 0 : (lo - first_) / page_size_;
  const std::size_t p1 = std::min(owner_.size(), (hi - first_ + page_size_ - 1) / page_size_);
  for (std::size_t p = p0; p < p1; ++p) {
    int& o = owner_[p];
    if (o == kNone)
      o = place;
    else if (o != place)
      o = kShared;
  }
}

void PageOwners::runs_of(int place, std::vector<PageRun>& runs) const {
  for (std::size_t p = 0; p < owner_.size(); ++p)
    if (owner_[p] == place) append_run(runs, page_address(p), 1, page_size_);
}

void interleave_runs(const void* buffer, std::size_t bytes, std::size_t page_size, int targets,
                     std::vector<std::vector<PageRun>>& runs) {
  const auto begin = reinterpret_cast<std::uintptr_t>(buffer);
  const std::uintptr_t first = (begin + page_size - 1) / page_size * page_size;
  const std::uintptr_t last = (begin + bytes) / page_size * page_size;
  if (targets <= 0 || last <= first) return;
  runs.resize(std::max(runs.size(), static_cast<std::size_t>(targets)));
  const std::size_t pages = (last - first) / page_size;
  for (std::size_t p = 0; p < pages; ++p)
    append_run(runs[p % static_cast<std::size_t>(targets)], first + p * page_size, 1, page_size);
}

void plan_migrate(const Association& a, std::span<const Range> parts, std::size_t page_size,
                  std::vector<std::vector<PageRun>>& moves) {
  moves.resize(std::max(moves.size(), parts.size()));
  PageOwners data(a.host(), a.bytes(), page_size);
  std::unique_ptr<PageOwners> map;
  if (a.map() != nullptr) map = std::make_unique<PageOwners>(a.map(), a.map_bytes(), page_size);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const int place = static_cast<int>(p);
    a.for_each_owned(parts[p], [&](std::size_t b, std::size_t e) { data.mark(place, b, e); });
    if (map)
      a.for_each_owned_map(parts[p], [&](std::size_t b, std::size_t e) { map->mark(place, b, e); });
  }
  for (std::size_t p = 0; p < parts.size(); ++p) {
    data.runs_of(static_cast<int>(p), moves[p]);
    if (map) map->runs_of(static_cast<int>(p), moves[p]);
  }
}

void plan_interleave(const Association& a, std::span<const int> place_nodes, std::size_t page_size,
                     std::vector<std::vector<PageRun>>& moves) {
  moves.resize(std::max(moves.size(), place_nodes.size()));
  // Targets: the distinct nodes, in order of their first place.
  std::vector<std::size_t> first_place;
  for (std::size_t p = 0; p < place_nodes.size(); ++p) {
    bool seen = false;
    for (std::size_t q : first_place) seen = seen || place_nodes[q] == place_nodes[p];
    if (!seen) first_place.push_back(p);
  }
  const auto spread = [&](const void* buffer, std::size_t bytes) {
    std::vector<std::vector<PageRun>> runs;
    interleave_runs(buffer, bytes, page_size, static_cast<int>(first_place.size()), runs);
    for (std::size_t t = 0; t < runs.size(); ++t) {
      auto& m = moves[first_place[t]];
      m.insert(m.end(), runs[t].begin(), runs[t].end());
    }
  };
  spread(a.host(), a.bytes());
  if (a.map() != nullptr) spread(a.map(), a.map_bytes());
}

}  // namespace tsar::core
