// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/side_probe.hpp"

#include <algorithm>

namespace tsar::core {

void SideProbe::record(double seconds_per_iteration, std::int64_t pass) {
  if (!trying_) {
    held_[static_cast<std::size_t>(held_count_ % kHeld)] = seconds_per_iteration;
    ++held_count_;
    if (held_count_ >= kHeld && pass + 1 >= next_try_) {
      trying_ = true;
      tried_count_ = 0;
    }
    return;
  }
  const double held_fastest = *std::min_element(held_.begin(), held_.end());
  const bool faster = seconds_per_iteration < held_fastest;
  if (faster) tried_[static_cast<std::size_t>(tried_count_++)] = seconds_per_iteration;
  if (faster && tried_count_ < kTried) return;
  trying_ = false;
  if (faster) {
    held_alone_ = !held_alone_;
    std::copy(tried_.begin(), tried_.end(), held_.begin());
    held_count_ = kTried;
    interval_ = kFirstCheck;
  } else {
    interval_ = std::min(kMaxInterval, 2 * interval_);
  }
  next_try_ = pass + 1 + interval_;
}

}  // namespace tsar::core
