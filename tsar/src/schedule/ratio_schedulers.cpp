// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/ratio_schedulers.hpp"

#include <algorithm>

namespace tsar::core {

void StaticScheduler::begin_pass(std::int64_t n, std::span<const double> tpi, SubPassPlan& plan) {
  if (frozen_.empty()) frozen_.assign(tpi.begin(), tpi.end());
  ratio_plan(0, n, frozen_, plan);
}

AdaptiveScheduler::AdaptiveScheduler(Mode mode, int div)
    : mode_(mode), div_(div > 0 ? div : kDefaultDiv) {}

std::int64_t AdaptiveScheduler::sub_pass_size(int k) const {
  if (mode_ == Mode::kAdaptive || (mode_ == Mode::kQuick && passes_ > 0)) return k == 0 ? n_ : 0;
  if (mode_ == Mode::kQuick) {  // first pass: a 1/div training sub-pass, then the rest
    const std::int64_t first = std::max<std::int64_t>(1, n_ / div_);
    if (k == 0) return std::min(first, n_);
    return k == 1 ? n_ - std::min(first, n_) : 0;
  }
  // split: min(div, n) sub-passes of n/div, the first n % div of them one larger.
  const std::int64_t parts = std::max<std::int64_t>(1, std::min<std::int64_t>(div_, n_));
  if (k >= parts) return 0;
  return n_ / parts + (k < n_ % parts ? 1 : 0);
}

void AdaptiveScheduler::begin_pass(std::int64_t n, std::span<const double> tpi, SubPassPlan& plan) {
  n_ = n;
  sub_pass_ = 0;
  const std::int64_t size = sub_pass_size(0);
  next_lo_ = size;
  ratio_plan(0, size, tpi, plan);
}

bool AdaptiveScheduler::last_sub_pass() const {
  return next_lo_ >= n_ || sub_pass_size(sub_pass_ + 1) <= 0;
}

bool AdaptiveScheduler::next_sub_pass(std::span<const double> tpi, SubPassPlan& plan) {
  const std::int64_t size = next_lo_ < n_ ? sub_pass_size(sub_pass_ + 1) : 0;
  if (size <= 0) {
    ++passes_;
    return false;
  }
  ++sub_pass_;
  const std::int64_t lo = next_lo_;
  next_lo_ += size;
  ratio_plan(lo, lo + size, tpi, plan);
  return true;
}

}  // namespace tsar::core
