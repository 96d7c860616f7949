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
  // The parts r overlaps: [first, last).
  auto first = std::lower_bound(parts_.begin(), parts_.end(), r.begin,
                                [](const Range& p, std::int64_t v) { return p.end <= v; });
  auto last = first;
  while (last != parts_.end() && last->begin < r.end) ++last;
  if (first == last) return;
  // What is left of them: a piece before r and a piece after it. In place, so a steady pass
  // allocates nothing (a part cut in two grows the vector by one, within its capacity once
  // the pattern repeats).
  const Range before{first->begin, r.begin};
  const Range after{r.end, std::prev(last)->end};
  std::size_t at = static_cast<std::size_t>(first - parts_.begin());
  const std::size_t overlapped = static_cast<std::size_t>(last - first);
  std::size_t kept = 0;
  if (before.begin < before.end) parts_[at + kept++] = before;
  if (after.begin < after.end) {
    if (kept == overlapped) {  // one part cut in two
      parts_.insert(parts_.begin() + static_cast<std::ptrdiff_t>(at + kept), after);
      return;
    }
    parts_[at + kept++] = after;
  }
  at += kept;
  parts_.erase(parts_.begin() + static_cast<std::ptrdiff_t>(at),
               parts_.begin() + static_cast<std::ptrdiff_t>(at + overlapped - kept));
}

void IntervalSet::subtract(const IntervalSet& other) {
  for (const Range& r : other.parts_) subtract(r);
}

void IntervalSet::clip(Range r) {
  std::size_t kept = 0;
  for (const Range& p : parts_) {
    const Range q{std::max(p.begin, r.begin), std::min(p.end, r.end)};
    if (!q.empty()) parts_[kept++] = q;
  }
  parts_.resize(kept);
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

std::int64_t IntervalSet::count(Range r) const {
  std::int64_t n = 0;
  for (const Range& p : parts_)
    n += std::max<std::int64_t>(0, std::min(p.end, r.end) - std::max(p.begin, r.begin));
  return n;
}

}  // namespace tsar::core
