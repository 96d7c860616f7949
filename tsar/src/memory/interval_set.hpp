// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A set of item indices (rows or columns of a buffer) as sorted, disjoint, non-adjacent
// half-open ranges. The copy engine keeps, per device copy of a buffer, the items whose device
// contents equal the host's; what a range needs minus that set is what must move.

#include <cstdint>
#include <vector>

#include "queue/chunk_queue.hpp"

namespace tsar::core {

class IntervalSet {
 public:
  /// Adds [r.begin, r.end) (merging with neighbours it touches).
  void add(Range r);
  /// Removes [r.begin, r.end).
  void subtract(Range r);
  /// Removes every range of `other`.
  void subtract(const IntervalSet& other);
  /// Keeps only the part inside `r`.
  void clip(Range r);
  void clear() { parts_.clear(); }
  bool empty() const { return parts_.empty(); }
  /// True when every item of `r` is in the set (an empty r always is).
  bool covers(Range r) const;
  /// The parts of `r` not in the set, in order, appended to `out` (cleared first).
  void missing(Range r, std::vector<Range>& out) const;
  /// Number of items in the set.
  std::int64_t count() const;
  /// Number of items of the set inside `r`.
  std::int64_t count(Range r) const;
  const std::vector<Range>& parts() const { return parts_; }

 private:
  std::vector<Range> parts_;
};

}  // namespace tsar::core
