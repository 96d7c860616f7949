// SPDX-License-Identifier: BSD-3-Clause
#include "workers/worker_pool.hpp"

#include <sched.h>

#include <cstdio>
#include <stdexcept>

namespace tsar::core {
namespace {
// The pools whose jobs the calling thread is inside, innermost first: a chain of frames on
// the stacks of run() and thread_main(), so nesting allocates nothing.
struct JobFrame {
  const WorkerPool* pool;
  const JobFrame* outer;
};
thread_local const JobFrame* tls_jobs = nullptr;
thread_local bool tls_pool_thread = false;
std::atomic<void (*)(int)> start_hook{nullptr};
std::atomic<void (*)(int)> leave_hook{nullptr};
}  // namespace

WorkerPool::WorkerPool(int slots) { threads_.resize(static_cast<std::size_t>(slots)); }

WorkerPool::~WorkerPool() {
  stopping_.store(true);
  for (auto& t : threads_) {
    if (t && t->thread.joinable()) {
      t->mailbox.store(t->mailbox.load() + 1);
      t->thread.join();
    }
  }
}

bool WorkerPool::running_here() const {
  for (const JobFrame* f = tls_jobs; f != nullptr; f = f->outer)
    if (f->pool == this) return true;
  return false;
}

bool WorkerPool::on_pool_thread() { return tls_pool_thread; }

void WorkerPool::thread_main(Thread& self) {
  tls_pool_thread = true;
  const JobFrame frame{this, nullptr};
  tls_jobs = &frame;
  std::uint32_t seen = 0;
  for (;;) {
    self.mailbox.wait_while(seen);
    seen = self.mailbox.load();
    if (stopping_.load()) return;
    if (auto* hook = start_hook.load(std::memory_order_relaxed)) hook(self.slot);
    // A job taken back (excuse), or one already replaced by a newer job, is not this one's
    // to run: its context is not read.
    std::uint64_t pending = claim_word(seen, kPending);
    const bool mine = self.claim.compare_exchange_strong(pending, claim_word(seen, kStarted),
                                                         std::memory_order_acq_rel);
    self.started.store(seen, std::memory_order_release);
    if (mine) {
      // Read before the job returns: the next run may hand the thread its next job while
      // it leaves this one.
      const bool counted = self.counted;
      self.job(self.context, self.worker);
      if (auto* hook = leave_hook.load(std::memory_order_relaxed)) hook(self.slot);
      if (counted && pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) done_.store(run_seq_);
    }
    self.finished.store(seen, std::memory_order_release);
  }
}

void WorkerPool::wait_left(const Thread& t, std::uint32_t run) {
  // Threads leave a job right after its end-of-pass barrier released them: this spin is
  // normally over at the first read; yielding covers a thread preempted on the way out.
  // finished is read first: the started read after it sees any job taken since. The run
  // is read again each time: its dispatch may be handing t its job right now.
  for (int spins = 0;; ++spins) {
    const std::uint32_t finished = t.finished.load(std::memory_order_acquire);
    const std::uint32_t started = t.started.load(std::memory_order_acquire);
    if (started == finished) return;
    if (run != 0 && t.run.load(std::memory_order_relaxed) == run && started == t.mailbox.load())
      return;
    cpu_relax();
    if (spins >= 64) sched_yield();
  }
}

void WorkerPool::run(std::span<const int> slots, Job job, void* context) {
  std::lock_guard lock(run_mutex_);
  const std::uint32_t seq = ++run_seq_;
  pending_.store(static_cast<int>(slots.size()) - 1, std::memory_order_relaxed);
  dispatch(slots, {}, job, context, true);
  if (slots.size() > 1)
    for (std::uint32_t v = done_.load(); v != seq; v = done_.load()) done_.wait_while(v);
}

void WorkerPool::run_ending_in_barrier(std::span<const int> slots, std::span<const int> workers,
                                       Job job, void* context) {
  std::lock_guard lock(run_mutex_);
  dispatch(slots, workers, job, context, false);
}

void WorkerPool::dispatch(std::span<const int> slots, std::span<const int> workers, Job job,
                          void* context, bool counted) {
  const std::size_t count = workers.empty() ? slots.size() : workers.size();
  const auto worker = [&](std::size_t i) {
    return workers.empty() ? static_cast<int>(i) : workers[i];
  };
  for (std::size_t i = 1; i < count; ++i) {  // before any thread starts its job
    const int w = worker(i);
    if (w <= 0 || static_cast<std::size_t>(w) >= slots.size() || slots[w] < 0 ||
        static_cast<std::size_t>(slots[w]) >= threads_.size())
      throw std::out_of_range("worker pool slot");
  }
  // No wait for threads still leaving earlier jobs: they read those jobs' fields before
  // starting them, and take the new ones once they have left.
  if (++run_id_ == 0) run_id_ = 1;
  for (std::size_t i = 1; i < count; ++i) {
    const int w = worker(i);
    auto& t = threads_[static_cast<std::size_t>(slots[w])];
    if (!t) {
      t = std::make_unique<Thread>();
      t->slot = slots[w];
      Thread* raw = t.get();
      t->thread = std::thread([this, raw] { thread_main(*raw); });
    }
    t->job = job;
    t->context = context;
    t->worker = w;
    t->counted = counted;
    t->run.store(run_id_, std::memory_order_relaxed);
    const std::uint32_t seq = t->mailbox.load() + 1;
    t->claim.store(claim_word(seq, kPending), std::memory_order_relaxed);
    t->mailbox.publish(seq);
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (std::size_t i = 1; i < count; ++i)
    threads_[static_cast<std::size_t>(slots[worker(i)])]->mailbox.wake_sleepers();
  const JobFrame frame{this, tls_jobs};
  tls_jobs = &frame;
  job(context, 0);
  tls_jobs = frame.outer;
}

void WorkerPool::wait_idle() {
  // From inside a job of this pool (a region freed by a body), the run in progress holds
  // the lock; the threads in their job of that run may wait for this one.
  if (running_here()) {
    for (const auto& t : threads_)
      if (t) wait_left(*t, run_id_);
    return;
  }
  std::lock_guard lock(run_mutex_);
  for (const auto& t : threads_)
    if (t) wait_left(*t, 0);
}

bool WorkerPool::excuse(int slot) {
  const auto i = static_cast<std::size_t>(slot);
  if (slot < 0 || i >= threads_.size() || !threads_[i]) return false;
  Thread& t = *threads_[i];
  const std::uint32_t job = t.mailbox.load();
  std::uint64_t pending = claim_word(job, kPending);
  return t.claim.compare_exchange_strong(pending, claim_word(job, kExcused),
                                         std::memory_order_acq_rel);
}

void WorkerPool::set_start_hook(void (*hook)(int slot)) { start_hook.store(hook); }

void WorkerPool::set_leave_hook(void (*hook)(int slot)) { leave_hook.store(hook); }

}  // namespace tsar::core
