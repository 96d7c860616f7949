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

#include "runtime.hpp"
#include "symmer/segment/shared_words.hpp"

namespace symmer::shim {

class Call {
 public:
  explicit Call(CallClass cls) noexcept : cls_(cls) {
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
    if (__builtin_expect(segment::load_word(*g.command_word) !=
                             g.seen_command.load(std::memory_order_relaxed), 0))
      apply_command();
  }

  ~Call() {
    if (ts_) ts_->depth.store(ts_->depth.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  }

  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  /// False when the wrapper must just pass the call through.
  bool tracked() const noexcept { return tracked_; }

  /// Marks the end of the real call.
  void stop() noexcept { t1_ = now_ticks(); }

  /// Time the real call took, in ticks (after stop()).
  std::uint64_t duration() const noexcept { return t1_ - t0_; }

  CallClass call_class() const noexcept { return cls_; }
  ThreadState& thread() const noexcept { return *ts_; }

  /// Accounts the call's time and count; publishes when due.
  void finish() noexcept {
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
