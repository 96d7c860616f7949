// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Each distinct problem is said once: a corrupt segment or a refused action would otherwise
// repeat every window, each time with other figures. Messages that differ only in their
// numbers ("core 57 ...", "core 58 ...") are one problem. Remembers the last kRemembered.

#include <cstddef>
#include <deque>
#include <set>
#include <string>

namespace symmer {

class SaidOnce {
 public:
  static constexpr std::size_t kRemembered = 256;

  /// True the first time `message`, or one differing from it only in its numbers, comes (say
  /// it); false while it is remembered.
  bool first(const std::string& message) {
    std::string problem;
    for (char c : message)
      if (c < '0' || c > '9')
        problem += c;
      else if (problem.empty() || problem.back() != '#')
        problem += '#';
    if (!seen_.insert(problem).second) return false;
    order_.push_back(problem);
    if (order_.size() > kRemembered) {
      seen_.erase(order_.front());
      order_.pop_front();
    }
    return true;
  }

 private:
  std::set<std::string> seen_;
  std::deque<std::string> order_;
};

}  // namespace symmer
