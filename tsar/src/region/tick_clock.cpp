// SPDX-License-Identifier: BSD-3-Clause
#include "region/tick_clock.hpp"

#include <chrono>
#include <fstream>
#include <string>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace tsar::core {
namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#if defined(__x86_64__)
// Seconds per TSC tick where the kernel's clocksource is the TSC, else 0.
double seconds_per_tsc_tick() {
  std::ifstream source("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string name;
  source >> name;
  if (name != "tsc" || !__builtin_cpu_supports("sse2")) return 0.0;
  // 2 ms against CLOCK_MONOTONIC: the rate to within ~1e-4, once per process.
  const double t0 = steady_seconds();
  const unsigned long long k0 = __rdtsc();
  double t1 = t0;
  while (t1 - t0 < 2e-3) t1 = steady_seconds();
  const unsigned long long k1 = __rdtsc();
  if (k1 <= k0) return 0.0;
  return (t1 - t0) / static_cast<double>(k1 - k0);
}
#endif

}  // namespace

double now_seconds() {
#if defined(__x86_64__)
  static const double seconds_per_tick = seconds_per_tsc_tick();
  if (seconds_per_tick > 0.0) return static_cast<double>(__rdtsc()) * seconds_per_tick;
#endif
  return steady_seconds();
}

}  // namespace tsar::core
