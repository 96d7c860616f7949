#include "workers/worker_pool.hpp"

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

void WorkerPool::thread_main(Thread& self) {
  const JobFrame frame{this, nullptr};
  tls_jobs = &frame;
  std::uint32_t seen = 0;
  for (;;) {
    self.mailbox.wait_while(seen);
    seen = self.mailbox.load();
    if (stopping_.load()) return;
    self.job(self.context, self.worker);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) done_.store(run_seq_);
  }
}

void WorkerPool::run(std::span<const int> slots, Job job, void* context) {
  std::lock_guard lock(run_mutex_);
  const auto others = static_cast<int>(slots.size()) - 1;
  const std::uint32_t seq = ++run_seq_;
  pending_.store(others, std::memory_order_relaxed);
  for (int w = 1; w <= others; ++w) {
    const auto slot = static_cast<std::size_t>(slots[static_cast<std::size_t>(w)]);
    if (slot >= threads_.size()) throw std::out_of_range("worker pool slot");
    auto& t = threads_[slot];
    if (!t) {
      t = std::make_unique<Thread>();
      Thread* raw = t.get();
      t->thread = std::thread([this, raw] { thread_main(*raw); });
    }
    t->job = job;
    t->context = context;
    t->worker = w;
    t->mailbox.store(t->mailbox.load() + 1);
  }
  const JobFrame frame{this, tls_jobs};
  tls_jobs = &frame;
  job(context, 0);
  tls_jobs = frame.outer;
  if (others > 0) {
    for (std::uint32_t v = done_.load(); v != seq; v = done_.load()) done_.wait_while(v);
  }
}

}  // namespace tsar::core
