// SPDX-License-Identifier: BSD-3-Clause
// TSC calibration against CLOCK_MONOTONIC.
#include "clock.hpp"

#include <fstream>
#include <string>

namespace symmer::shim {

ClockSource g_clock_source = ClockSource::kMonotonic;

void TickConverter::begin() noexcept {
  t0_ns_ = monotonic_now_ns();
  t0_ticks_ = now_ticks();
}

void TickConverter::end(std::uint64_t min_ns) noexcept {
  if (g_clock_source == ClockSource::kMonotonic) {
    mult_ = 1ull << 32;
    return;
  }
  std::uint64_t ns = 0, ticks = 0;
  do {
    ns = monotonic_now_ns() - t0_ns_;
    ticks = now_ticks() - t0_ticks_;
  } while (ns < min_ns);
  mult_ = static_cast<std::uint64_t>((static_cast<u128>(ns) << 32) / (ticks ? ticks : 1));
}

bool tsc_is_invariant() {
#if defined(__x86_64__)
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    const auto has = [&line](const char* f) {
      const std::string word = std::string(" ") + f;
      const auto at = line.find(word);
      return at != std::string::npos &&
             (at + word.size() == line.size() || line[at + word.size()] == ' ');
    };
    return has("constant_tsc") && has("nonstop_tsc");
  }
#endif
  return false;
}

}  // namespace symmer::shim
