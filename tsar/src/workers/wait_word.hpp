// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A 32-bit word threads wait on: spin (passes are often microseconds apart, with a serial
// step of the program between them, and waking a sleeping thread costs tens of microseconds,
// more in a VM), then sleep in the kernel. Like libgomp's default wait policy, the spin is
// long enough to bridge the program's serial steps between loops; unlike a plain spin, after
// a short pure spin it yields the core at every round, so a runnable thread that shares the
// core (another pool's worker pinned there, another program) runs instead of waiting for
// the spinner's time slice to end. Wakers make a system call only when someone sleeps, so
// back-to-back passes stay in user space. Sleeping sooner, or spinning without yielding,
// measured no better beside a GPU and worse on the cores alone (docs/results/tsar/wait-policy/).

#include <linux/futex.h>
#include <sched.h>
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
  /// How long to spin without yielding: a scheduling step between passes (PAUSE costs
  /// 10-140 cycles depending on the core, so spins are bounded by the clock, not a count).
  static constexpr std::chrono::microseconds kPureSpin{20};
  /// How long to spin in all before sleeping: a serial step of the program between two
  /// loops (a norm, mirroring a matrix).
  static constexpr std::chrono::microseconds kSpin{2000};

  std::uint32_t load() const { return value_.load(std::memory_order_acquire); }

  /// Returns once the word differs from `old`: the value that differed (later stores may
  /// follow it at once).
  std::uint32_t wait_while(std::uint32_t old) {
    std::uint32_t v = value_.load(std::memory_order_acquire);
    if (v != old) return v;  // no clock read when it moved
    const auto start = std::chrono::steady_clock::now();
    for (auto now = start; now - start < kSpin; now = std::chrono::steady_clock::now()) {
      for (int i = 0; i < 32; ++i) {
        if ((v = value_.load(std::memory_order_acquire)) != old) return v;
        cpu_relax();
      }
      if (now - start >= kPureSpin) sched_yield();
    }
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    while ((v = value_.load(std::memory_order_seq_cst)) == old)
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&value_), FUTEX_WAIT_PRIVATE, old,
              nullptr, nullptr, 0);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
    return v;
  }

  /// Publishes `value` (release) and wakes sleepers, if any.
  void store(std::uint32_t value) {
    publish(value);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    wake_sleepers();
  }

  /// Publishes `value` without waking sleepers. A thread waking several words publishes all
  /// of them, issues one seq_cst fence, then calls wake_sleepers() on each: the stores'
  /// cache-line transfers overlap instead of each waiting behind a fence of its own.
  void publish(std::uint32_t value) { value_.store(value, std::memory_order_release); }

  /// Wakes the sleepers of a word published before a seq_cst fence of the calling thread
  /// (the fence orders the store before the read of sleepers_, against wait_while's
  /// increment before its last read of the value).
  void wake_sleepers() {
    if (sleepers_.load(std::memory_order_relaxed) != 0)
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&value_), FUTEX_WAKE_PRIVATE, INT32_MAX,
              nullptr, nullptr, 0);
  }

 private:
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  std::atomic<std::uint32_t> value_{0};
  std::atomic<std::uint32_t> sleepers_{0};
};

}  // namespace tsar::core
