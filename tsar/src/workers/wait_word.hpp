#pragma once
// A 32-bit word threads wait on: spin briefly (passes are often microseconds apart and a
// futex round trip costs more than a short pass), then sleep in the kernel. Wakers make a
// system call only when someone sleeps, so back-to-back passes stay in user space.

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tsar::core {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

class WaitWord {
 public:
  /// How long to spin before sleeping: longer than a scheduling step between passes, much
  /// shorter than a time slice (PAUSE costs 10-140 cycles depending on the core, so the
  /// spin is bounded by the clock, not by a count).
  static constexpr std::chrono::microseconds kSpin{50};

  std::uint32_t load() const { return value_.load(std::memory_order_acquire); }

  /// Returns once the word differs from `old`.
  void wait_while(std::uint32_t old) {
    const auto deadline = std::chrono::steady_clock::now() + kSpin;
    do {
      for (int i = 0; i < 32; ++i) {
        if (value_.load(std::memory_order_acquire) != old) return;
        cpu_relax();
      }
    } while (std::chrono::steady_clock::now() < deadline);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    while (value_.load(std::memory_order_seq_cst) == old)
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&value_), FUTEX_WAIT_PRIVATE, old,
              nullptr, nullptr, 0);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
  }

  /// Publishes `value` (release) and wakes sleepers, if any.
  void store(std::uint32_t value) {
    value_.store(value, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) != 0)
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&value_), FUTEX_WAKE_PRIVATE, INT32_MAX,
              nullptr, nullptr, 0);
  }

 private:
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  std::atomic<std::uint32_t> value_{0};
  std::atomic<std::uint32_t> sleepers_{0};
};

}  // namespace tsar::core
