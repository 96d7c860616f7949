// SPDX-License-Identifier: BSD-3-Clause
#include "memory/interval_set.hpp"

#include <algorithm>

namespace tsar::core {

void IntervalSet::add(Range r) {
  if (r.empty()) return;
  // First part that ends at or after r.begin (touching parts merge).
  auto first = std::lower_bound(parts_.begin(), parts_.end(), r.begin,
                                [](const Range& p, std::int64_t v) { return p.end < v; });
  auto last = first;
  while (last != parts_.end() && last->begin <= r.end) {
    r.begin = std::min(r.begin, last->begin);
    r.end = std::max(r.end, last->end);
    ++last;
  }
  first = parts_.erase(first, last);
  parts_.insert(first, r);
}

void IntervalSet::subtract(Range r) {
  if (r.empty()) return;
  const bool overlaps = std::any_of(parts_.begin(), parts_.end(), [&](const Range& p) {
    return p.begin < r.end && r.begin < p.end;
  });
  if (!overlaps) return;  // the common case at a pass start: nothing to allocate
  std::vector<Range> kept;
  kept.reserve(parts_.size() + 1);
  for (const Range& p : parts_) {
    if (p.end <= r.begin || p.begin >= r.end) {
      kept.push_back(p);
      continue;
    }
    if (p.begin < r.begin) kept.push_back({p.begin, r.begin});
    if (p.end > r.end) kept.push_back({r.end, p.end});
  }
  parts_.swap(kept);
}

void IntervalSet::subtract(const IntervalSet& other) {
  for (const Range& r : other.parts_) subtract(r);
}

void IntervalSet::clip(Range r) {
  std::vector<Range> kept;
  for (const Range& p : parts_) {
    const Range q{std::max(p.begin, r.begin), std::min(p.end, r.end)};
    if (!q.empty()) kept.push_back(q);
  }
  parts_.swap(kept);
}

bool IntervalSet::covers(Range r) const {
  if (r.empty()) return true;
  for (const Range& p : parts_)
    if (p.begin <= r.begin && r.end <= p.end) return true;
  return false;
}

void IntervalSet::missing(Range r, std::vector<Range>& out) const {
  out.clear();
  if (r.empty()) return;
  std::int64_t at = r.begin;
  for (const Range& p : parts_) {
    if (p.end <= at) continue;
    if (p.begin >= r.end) break;
    if (p.begin > at) out.push_back({at, p.begin});
    at = std::max(at, p.end);
    if (at >= r.end) return;
  }
  if (at < r.end) out.push_back({at, r.end});
}

std::int64_t IntervalSet::count() const {
  std::int64_t n = 0;
  for (const Range& p : parts_) n += p.size();
  return n;
}

}  // namespace tsar::core
