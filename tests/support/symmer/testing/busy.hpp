// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Test programs' compute: spins the calling thread for about `span` of real time.
#include <chrono>

namespace symmer::testing {

/// Computes (floating-point updates) for about `span`; returns when it has passed.
inline void compute_for(std::chrono::microseconds span) {
  static volatile double sink = 0;  // keeps the loop from being optimised away
  const auto until = std::chrono::steady_clock::now() + span;
  double x = 1.0;
  while (std::chrono::steady_clock::now() < until)
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

}  // namespace symmer::testing
