// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The shim's clock: the TSC where it is invariant (no syscall, ~10 ns), else
// clock_gettime(CLOCK_MONOTONIC) through the vDSO. Readings are "ticks"; Clock converts them.

#include <time.h>

#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace symmer::shim {

__extension__ using u128 = unsigned __int128;

/// Which source ticks come from.
enum class ClockSource { kTsc, kMonotonic };

/// Selected once at MPI_Init, before any call is timed.
extern ClockSource g_clock_source __attribute__((visibility("hidden")));

inline std::uint64_t monotonic_now_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

/// Current time in ticks.
inline std::uint64_t now_ticks() noexcept {
#if defined(__x86_64__)
  if (__builtin_expect(g_clock_source == ClockSource::kTsc, 1)) return __rdtsc();
#endif
  return monotonic_now_ns();
}

/// Tick <-> nanosecond conversion, calibrated against CLOCK_MONOTONIC.
class TickConverter {
 public:
  /// Starts a calibration interval.
  void begin() noexcept;
  /// Ends it, spinning until at least `min_ns` elapsed, and fixes the ratio.
  void end(std::uint64_t min_ns) noexcept;
  /// Ticks -> nanoseconds (identity for the monotonic source).
  std::uint64_t to_ns(std::uint64_t ticks) const noexcept {
    return static_cast<std::uint64_t>((static_cast<u128>(ticks) * mult_) >> 32);
  }
  /// Nanoseconds -> ticks.
  std::uint64_t to_ticks(std::uint64_t ns) const noexcept {
    return static_cast<std::uint64_t>((static_cast<u128>(ns) << 32) / (mult_ ? mult_ : 1));
  }
  /// Ticks per second, for reports.
  double ticks_per_second() const noexcept {
    return 1e9 * 4294967296.0 / static_cast<double>(mult_);
  }

 private:
  std::uint64_t mult_ = 1ull << 32;  ///< ns per tick in 32.32 fixed point
  std::uint64_t t0_ticks_ = 0;
  std::uint64_t t0_ns_ = 0;
};

/// True when the CPU's TSC is invariant (constant_tsc and nonstop_tsc in /proc/cpuinfo).
bool tsc_is_invariant();

}  // namespace symmer::shim
