#pragma once
// Call: the per-call fast path every generated wrapper runs (inline, no mpi.h).
//
//   Call call(CallClass::kWait);              // clock read, compute time since the last call
//   if (!call.tracked()) return pmpi.X(...);   // monitoring off, or nested inside another call
//   ... hooks::before_*; rc = pmpi.X(...); call.stop(); hooks::after_*; call.finish();
//
// Cost when tracked: two clock reads, a handful of thread-local adds, three relaxed loads of
// shared words (active flag, command word, publish deadline). Nothing else unless a publish is
// due or the analyzer posted a new command.
//
// Polls (MPI_Test*, MPI_Iprobe, MPI_Improbe: calls that never block) are what tight loops call
// millions of times; for them only one call in kPollSample reads the clock on the way out, the
// others take the running mean of those samples as their duration (stop_poll): the idle and
// compute totals stay unbiased. Where a TSC read costs ~14 ns (virtual machines) this halves
// the shim's cost per poll.

#include "runtime.hpp"
#include "symmer/segment/shared_words.hpp"

namespace symmer::shim {

class Call {
 public:
  /// One poll in this many that finds nothing reads the clock on the way out.
  static constexpr std::uint64_t kPollSample = 16;

  SYMMER_INLINE explicit Call(CallClass cls) noexcept : cls_(cls) {
    if (!g.active.load(std::memory_order_relaxed)) return;
    ThreadState* ts = t_state;
    if (__builtin_expect(ts == nullptr, 0) && (ts = thread_state_slow()) == nullptr) return;
    ts_ = ts;
    const int depth = ts->depth.load(std::memory_order_relaxed);
    ts->depth.store(depth + 1, std::memory_order_relaxed);
    if (depth != 0) return;  // the outer call (e.g. a Fortran binding) accounts for this one
    tracked_ = true;
    t0_ = now_ticks();
    account_compute(*ts, t0_);
    if (__builtin_expect(
            segment::load_word(*g.command_word) != g.seen_command.load(std::memory_order_relaxed),
            0))
      apply_command();
  }

  SYMMER_INLINE ~Call() {
    if (ts_)
      ts_->depth.store(ts_->depth.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  }

  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  /// False when the wrapper must just pass the call through.
  bool tracked() const noexcept { return tracked_; }

  /// Marks the end of the real call.
  SYMMER_INLINE void stop() noexcept { t1_ = now_ticks(); }

  /// Marks the end of a poll: one in kPollSample reads the clock and updates the running
  /// mean, the others end at t0 + mean.
  SYMMER_INLINE void stop_poll() noexcept {
    ThreadState& ts = *ts_;
    if (ts.polls++ % kPollSample == 0) {
      t1_ = now_ticks();
      ts.poll_ticks = ts.polls == 1 ? t1_ - t0_ : (3 * ts.poll_ticks + (t1_ - t0_)) / 4;
    } else {
      t1_ = t0_ + ts.poll_ticks;
    }
  }

  /// Time the real call took, in ticks (after stop()).
  std::uint64_t duration() const noexcept { return t1_ - t0_; }

  CallClass call_class() const noexcept { return cls_; }

  /// The status argument to give the real call: per-thread scratch instead of
  /// MPI_STATUS_IGNORE, because the shim reads MPI_SOURCE and the byte count.
  SYMMER_INLINE void* status_arg(void* status) noexcept {
    return status == g.status_ignore ? ts_->scratch_status : status;
  }
  ThreadState& thread() const noexcept { return *ts_; }

  /// Accounts the call's time and count; publishes when due.
  SYMMER_INLINE void finish() noexcept {
    ThreadCounters& c = ts_->counters;
    (is_idle_class(cls_) ? c.idle : c.other).add(t1_ - t0_);
    c.calls[static_cast<std::size_t>(cls_)].add(1);
    ts_->last_exit = t1_;
    if (__builtin_expect(t1_ >= g.next_publish.load(std::memory_order_relaxed), 0))
      publish_slow(*ts_, t1_);
  }

 private:
  ThreadState* ts_ = nullptr;
  CallClass cls_;
  bool tracked_ = false;
  std::uint64_t t0_ = 0;
  std::uint64_t t1_ = 0;
};

}  // namespace symmer::shim
