// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Call: the per-call fast path every generated wrapper runs (inline, no mpi.h).
//
//   if (ThreadState& ts = *t_state; FastCall::possible(ts)) {  // on, TSC, not nested
//     FastCall call(CallClass::kWait, ts); return MPI_Wait_tracked(call, ...);
//   }
//   return MPI_Wait_generic(...);   // out of line: Call call(...); if (!call.tracked()) ...
//   MPI_Wait_tracked: hooks::before_*; call.keep(...); rc = pmpi.X(...); call.stop();
//                     hooks::after_*(call.kept(...)); call.finish();
//
// Cost when tracked: two clock reads, a handful of thread-local adds, relaxed loads of
// process-wide words that only change rarely (fast flag, publish deadline). Nothing else
// unless a publish is due: the analyzer's commands are looked at then (publish_slow), not on
// every call, so no call reads the node segment. FastCall's path from entry to the real call
// calls no function, so the arguments go to it in the registers they came in; what the
// after-hook needs of them waits in the thread's state (keep), so the wrapper saves almost no
// registers.
//
// Polls (MPI_Test*, MPI_Iprobe, MPI_Improbe, MPI_Request_get_status: calls that never block)
// are what tight loops call millions of times, and a clock read costs 7-35 ns; so are blocking
// sends that hit the send cache and surely do not wait for their receiver (buffered, or
// standard/ready and under the eager limit: hooks::send_eager), half of every small-message
// exchange. Only one in kSample calls of each kind on average, chosen at random, is clocked
// (entry and exit); it updates that kind's running mean duration (SampledKind). The others
// read no clock at all and add their kind's mean to the thread's unclocked_ticks: the next
// clocked call splits the time elapsed since the last clocked exit into idle (that estimate)
// and compute (the rest), so idle + compute stays exactly the elapsed time, and the split is
// unbiased because which calls are clocked does not depend on how long they take.

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "runtime.hpp"
#include "symmer/segment/shared_words.hpp"

namespace symmer::shim {

/// Calls that never block.
constexpr bool is_poll_class(CallClass c) noexcept {
  return c == CallClass::kTest || c == CallClass::kIprobe;
}

/// What the hooks read of a call: its thread and, after stop(), the real call's duration.
/// Passed by value (two registers), so a wrapper's Call never needs an address and stays in
/// registers through the real call.
struct CallInfo {
  ThreadState* ts;
  std::uint64_t ticks;
  ThreadState& thread() const noexcept { return *ts; }
  std::uint64_t duration() const noexcept { return ticks; }
};

/// A tracked call's accounting. Two kinds: FastCall, which the wrappers take when
/// FastCall::thread() says monitoring is on, ticks are TSC readings and the thread is in no
/// other call (the common case: the path from entry to the real call then calls nothing, so
/// the arguments stay in their registers); Call for everything else (any clock, a thread's
/// first call, nested calls).
template <bool kFast>
class BasicCall {
 public:
  /// On average one sampled call (a poll, an eager cached send) in this many is clocked. A
  /// clocked call costs two clock reads and a mean update, 20-80 ns more than an unclocked
  /// one; spread over kSample calls that must stay a small part of the 10 ns a poll may add
  /// (64: 0.3-1.2 ns). Precision does not need more: a tight loop still clocks thousands of
  /// polls a second, and the split stays unbiased however rarely it samples.
  static constexpr std::uint64_t kSample = 64;

  /// Whether a FastCall may account a call of thread `ts` (t_state: unregistered_thread, whose
  /// in_mpi is set, before the thread's first call).
  SYMMER_INLINE static bool possible(const ThreadState& ts) noexcept {
    return __builtin_expect(g.fast.load(std::memory_order_relaxed), 1) &&
           __builtin_expect(!ts.in_mpi.load(std::memory_order_relaxed), 1);
  }

  /// FastCall: possible(ts) held.
  SYMMER_INLINE BasicCall(CallClass cls, ThreadState& ts) noexcept requires(kFast) : cls_(cls) {
    enter(ts, default_kind(ts));
  }
  /// FastCall of a call timed by sampling as `kind` (ts.eager_sends).
  SYMMER_INLINE BasicCall(CallClass cls, ThreadState& ts, SampledKind& kind) noexcept
      requires(kFast)
      : cls_(cls) {
    enter(ts, &kind);
  }

  SYMMER_INLINE explicit BasicCall(CallClass cls) noexcept requires(!kFast) : cls_(cls) {
    if (__builtin_expect(!g.active.load(std::memory_order_relaxed), 0)) return;
    ThreadState* ts = t_state;
    // The outer call (e.g. a Fortran binding) accounts for a nested one; a thread's first call
    // finds unregistered_thread, whose in_mpi is set.
    if (__builtin_expect(ts->in_mpi.load(std::memory_order_relaxed), 0) &&
        (ts != &unregistered_thread || (ts = thread_state_slow()) == nullptr))
      return;
    enter(*ts, default_kind(*ts));
  }

  BasicCall(const BasicCall&) = delete;
  BasicCall& operator=(const BasicCall&) = delete;

  /// False when the wrapper must just pass the call through.
  bool tracked() const noexcept { return ts_ != nullptr; }
  /// Whether a tracked call reads the clock (sampled ones: one in kSample on average).
  bool clocked() const noexcept { return !unclocked_; }

  /// Marks the end of the real call.
  SYMMER_INLINE void stop() noexcept {
    if (!unclocked_) t1_ = now();
  }

  /// Marks the end of a sampled call; a clocked one updates its kind's running mean (a
  /// preempted or unusually busy call counts in full, but moves the mean only so far).
  SYMMER_INLINE void stop_sampled() noexcept {
    if (unclocked_) return;
    t1_ = now();
    SampledKind& k = *kind_;
    const std::uint64_t d = elapsed();
    k.mean_ticks =
        k.samples++ == 0 ? d : (3 * k.mean_ticks + std::min(d, 4 * k.mean_ticks + 64)) / 4;
  }

  /// Time the real call took, in ticks (after stop()); its kind's mean for an unclocked call.
  std::uint64_t duration() const noexcept { return unclocked_ ? kind_->mean_ticks : elapsed(); }

  /// What the hooks get: the thread and the duration so far (the real call's, after stop()).
  SYMMER_INLINE CallInfo info() const noexcept { return {ts_, duration()}; }

  /// The status argument to give the real call: per-thread scratch instead of
  /// MPI_STATUS_IGNORE, because the shim reads MPI_SOURCE and the byte count.
  SYMMER_INLINE void* status_arg(void* status) noexcept {
    return status == g.status_ignore ? ts_->scratch_status : status;
  }
  ThreadState& thread() const noexcept { return *ts_; }

  /// Keeps argument `v` of the real call in word `i` of the thread's state for the after-hook
  /// (ThreadState::kept): nothing the wrapper needs after the call then stays in a register.
  template <typename T>
  SYMMER_INLINE void keep(int i, T v) noexcept {
    static_assert(sizeof(T) <= sizeof(std::uint64_t) && std::is_trivially_copyable_v<T>);
    std::memcpy(&ts_->kept[i], &v, sizeof v);
  }
  /// What keep(i, v) kept, with the type of `v` (whose value is not read).
  template <typename T>
  SYMMER_INLINE T kept(int i, const T& /*v*/) const noexcept {
    T v;
    std::memcpy(&v, &ts_->kept[i], sizeof v);
    return v;
  }

  /// Accounts the call's time and count, publishes when due and leaves the call: every tracked
  /// call ends with it.
  SYMMER_INLINE void finish() noexcept {
    ThreadState& ts = *ts_;
    ThreadCounters& c = ts.counters;
    c.calls[static_cast<std::size_t>(cls_)].add(1);
    if (unclocked_) {
      ts.unclocked_ticks += kind_->mean_ticks;  // idle at the next clocked call (account_compute)
    } else {
      (is_idle_class(cls_) ? c.idle : c.other).add(elapsed());
      ts.last_exit = t1_;
      if (__builtin_expect(t1_ >= g.next_publish.load(std::memory_order_relaxed), 0))
        publish_slow(ts, t1_);
    }
    ts.in_mpi.store(false, std::memory_order_relaxed);
  }

 private:
  SYMMER_INLINE static std::uint64_t now() noexcept {
#if defined(__x86_64__)
    if constexpr (kFast) return __rdtsc();
#endif
    return now_ticks();
  }

  SYMMER_INLINE SampledKind* default_kind(ThreadState& ts) const noexcept {
    return is_poll_class(cls_) ? &ts.polls : nullptr;
  }

  // `kind`: null for a call clocked every time.
  SYMMER_INLINE void enter(ThreadState& ts, SampledKind* kind) noexcept {
    ts.in_mpi.store(true, std::memory_order_relaxed);
    ts_ = &ts;
    kind_ = kind;
    if (kind != nullptr && !sample(ts, *kind)) {
      unclocked_ = true;
      return;
    }
    t0_ = now();
    account_compute(ts, t0_);
  }

  SYMMER_INLINE std::uint64_t elapsed() const noexcept { return ticks_since(t0_, t1_); }

  // A countdown to the next clocked call of the kind (the first one is), drawn uniformly from
  // 1 .. 2 kSample - 1 by xorshift64 when it runs out: random, so that no periodic pattern of
  // calls aliases with the sampling, and one decrement per unclocked call.
  SYMMER_INLINE static bool sample(ThreadState& ts, SampledKind& kind) noexcept {
    if (__builtin_expect(--kind.countdown != 0, 1)) return false;
    std::uint64_t x = ts.sample_rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    ts.sample_rng = x;
    kind.countdown = static_cast<std::uint32_t>(1 + x % (2 * kSample - 1));
    return true;
  }

  ThreadState* ts_ = nullptr;
  SampledKind* kind_ = nullptr;  ///< how the call is sampled; null: clocked every time
  CallClass cls_;
  bool unclocked_ = false;
  std::uint64_t t0_ = 0;
  std::uint64_t t1_ = 0;
};

using FastCall = BasicCall<true>;
using Call = BasicCall<false>;

}  // namespace symmer::shim
