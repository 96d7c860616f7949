// SPDX-License-Identifier: BSD-3-Clause
// The worker pool: every run starts each participating worker's job exactly once with its
// own worker index; run() returns once every job did, run_ending_in_barrier() once job 0 did
// (the jobs end in a barrier); the next run does not wait for threads still leaving their
// jobs, wait_idle() does; sleeping threads wake, subsets of the slots and concurrent callers
// take turns.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "pool_threads.hpp"
#include "workers/pass_barrier.hpp"
#include "workers/worker_pool.hpp"

namespace {

using tsar::core::PassBarrier;
using tsar::core::WorkerPool;

/// A job as Region's: count the worker's start, meet the others at a barrier, then touch the
/// context once more on the way out (what wait_idle must wait for).
struct Job {
  explicit Job(int workers) : started(static_cast<std::size_t>(workers)) {
    barrier.set_count(workers);
  }
  std::vector<std::atomic<int>> started;  ///< per worker index
  std::atomic<int> left{0};
  std::atomic<int> wrong_worker{0};
  PassBarrier barrier;

  static void run(void* context, int worker) {
    auto* job = static_cast<Job*>(context);
    if (worker < 0 || worker >= static_cast<int>(job->started.size())) {
      job->wrong_worker++;
      return;
    }
    job->started[static_cast<std::size_t>(worker)]++;
    job->barrier.arrive_and_wait(worker, [] {});
    job->left++;
  }
};

/// Job's jobs, worker 0 doing `first` before its own: what a test does inside a run.
struct Job0First {
  Job* job;
  std::function<void()> first;
  static void run(void* context, int worker) {
    auto* self = static_cast<Job0First*>(context);
    if (worker == 0) self->first();
    Job::run(self->job, worker);
  }
};

void expect_runs(const Job& job, int runs) {
  for (std::size_t w = 0; w < job.started.size(); ++w)
    EXPECT_EQ(job.started[w].load(), runs) << "worker " << w;
  EXPECT_EQ(job.left.load(), runs * static_cast<int>(job.started.size()));
  EXPECT_EQ(job.wrong_worker.load(), 0);
}

TEST(WorkerPool, EveryRunStartsEachWorkerOnceAndWaitIdleSeesThemLeave) {
  WorkerPool pool(4);
  const std::vector<int> slots{0, 1, 2, 3};
  Job job(4);
  constexpr int kRuns = 2000;
  for (int r = 0; r < kRuns; ++r) pool.run_ending_in_barrier(slots, slots, &Job::run, &job);
  pool.wait_idle();
  expect_runs(job, kRuns);
}

TEST(WorkerPool, SubsetsOfTheSlotsTakeTurnsWithTheWholePool) {
  WorkerPool pool(4);
  Job all(4), some(2);
  const std::vector<int> all_slots{0, 1, 2, 3};
  const std::vector<int> some_slots{0, 2};  // worker 1 runs on slot 2's thread
  constexpr int kRuns = 500;
  for (int r = 0; r < kRuns; ++r) {
    pool.run_ending_in_barrier(all_slots, all_slots, &Job::run, &all);
    pool.run(some_slots, &Job::run, &some);
  }
  pool.wait_idle();
  expect_runs(all, kRuns);
  expect_runs(some, kRuns);
}

TEST(WorkerPool, WorkersLeftOutOfARunSitItOutAndRejoinLater) {
  // A pass with nothing for workers 1 and 3 starts only 0 and 2, each with its own index;
  // the barrier waits for those; in the next run all four take part again, and the words
  // the sitting-out workers left two runs back do not count as their arrivals.
  WorkerPool pool(4);
  const std::vector<int> slots{0, 1, 2, 3};
  const std::vector<int> all{0, 1, 2, 3}, some{0, 2};
  Job job(4);
  constexpr int kRounds = 300;
  for (int r = 0; r < kRounds; ++r) {
    job.barrier.expect(std::vector<int>{1, 2, 3});
    pool.run_ending_in_barrier(slots, all, &Job::run, &job);
    job.barrier.expect(std::vector<int>{2});  // as Region: while the others leave the last
    pool.run_ending_in_barrier(slots, some, &Job::run, &job);
  }
  pool.wait_idle();
  EXPECT_EQ(job.started[0].load(), 2 * kRounds);
  EXPECT_EQ(job.started[1].load(), kRounds);
  EXPECT_EQ(job.started[2].load(), 2 * kRounds);
  EXPECT_EQ(job.started[3].load(), kRounds);
  EXPECT_EQ(job.left.load(), 6 * kRounds);
  EXPECT_EQ(job.wrong_worker.load(), 0);
}

TEST(WorkerPool, RunWaitsForJobsThatEndInNoBarrier) {
  // A partition's places run independent jobs: run() must not return before the slowest.
  WorkerPool pool(3);
  const std::vector<int> slots{0, 1, 2};
  std::atomic<int> done{0};
  struct Late {
    std::atomic<int>* done;
    static void run(void* context, int worker) {
      if (worker == 2) std::this_thread::sleep_for(std::chrono::milliseconds(3));
      static_cast<Late*>(context)->done->fetch_add(1);
    }
  } late{&done};
  for (int r = 1; r <= 20; ++r) {
    pool.run(slots, &Late::run, &late);
    ASSERT_EQ(done.load(), 3 * r) << "run " << r << " returned before its jobs";
  }
}

TEST(WorkerPool, SleepingThreadsWakeForTheNextRun) {
  // Runs further apart than WaitWord::kSpin: the threads sleep in the kernel between them.
  WorkerPool pool(3);
  const std::vector<int> slots{0, 1, 2};
  Job job(3);
  for (int r = 0; r < 5; ++r) {
    pool.run_ending_in_barrier(slots, slots, &Job::run, &job);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  pool.wait_idle();
  expect_runs(job, 5);
}

TEST(WorkerPool, ConcurrentCallersTakeTurns) {
  WorkerPool pool(3);
  const std::vector<int> slots{0, 1, 2};
  Job a(3), b(3);
  constexpr int kRuns = 300;
  std::thread other([&] {
    for (int r = 0; r < kRuns; ++r) pool.run(slots, &Job::run, &b);
  });
  for (int r = 0; r < kRuns; ++r) pool.run_ending_in_barrier(slots, slots, &Job::run, &a);
  other.join();
  pool.wait_idle();
  expect_runs(a, kRuns);
  expect_runs(b, kRuns);
}

TEST(WorkerPool, AJobNotStartedIsTakenBackAndNeverRunsWhileTheNextRunsGoOn) {
  // Job 0 takes back worker 2's job (its thread held before starting it) and stops waiting
  // for it; the following runs, without worker 2, do not wait for its thread either; once
  // released, the thread runs none of the jobs taken back and joins the next run that
  // wakes it.
  WorkerPool pool(3);
  const std::vector<int> slots{0, 1, 2};
  Job job(3);
  std::atomic<int> excused{0};
  Job0First excusing{&job, [&] {
                       if (!pool.excuse(2)) return;
                       excused++;
                       job.barrier.expect(std::vector<int>{1});
                     }};
  {
    pool_threads::HeldSlots held(2, 2);
    job.barrier.expect(std::vector<int>{1, 2});
    pool.run_ending_in_barrier(slots, slots, &Job0First::run, &excusing);
    EXPECT_EQ(excused.load(), 1);
    // Its thread, woken for the job taken back, reaches the hold when the system runs it.
    while (pool_threads::HeldSlots::waiting.load() == 0) std::this_thread::yield();
    const std::vector<int> two{0, 1};
    for (int r = 0; r < 20; ++r) {
      job.barrier.expect(std::vector<int>{1});
      pool.run_ending_in_barrier(slots, two, &Job::run, &job);
    }
    pool.wait_idle();  // returns with slot 2 still held
    EXPECT_EQ(pool_threads::HeldSlots::waiting.load(), 1);
  }
  job.barrier.expect(std::vector<int>{1, 2});
  pool.run_ending_in_barrier(slots, slots, &Job::run, &job);
  pool.wait_idle();
  EXPECT_EQ(job.started[0].load(), 22);
  EXPECT_EQ(job.started[1].load(), 22);
  EXPECT_EQ(job.started[2].load(), 1);  // the last run's alone
  EXPECT_EQ(job.wrong_worker.load(), 0);
}

TEST(WorkerPool, AJobAlreadyStartedIsNotTakenBack) {
  WorkerPool pool(2);
  const std::vector<int> slots{0, 1};
  Job job(2);
  std::atomic<bool> excused{false};
  Job0First late{&job, [&] {
                   while (job.started[1].load() == 0) std::this_thread::yield();
                   excused = pool.excuse(1);
                 }};
  pool.run_ending_in_barrier(slots, slots, &Job0First::run, &late);
  pool.wait_idle();
  EXPECT_FALSE(excused.load());
  expect_runs(job, 1);
}

/// A job whose worker `slow` stays in it after the barrier until let go (at most
/// HeldSlots::kLimit): a thread preempted on its way out.
struct SlowToLeave {
  SlowToLeave(int workers, int slow_worker) : job(workers), slow(slow_worker) {}
  Job job;
  int slow;
  std::atomic<bool> go{false};
  std::atomic<bool> timed_out{false};
  std::atomic<bool> left{false};
  static void run(void* context, int worker) {
    auto* self = static_cast<SlowToLeave*>(context);
    Job::run(&self->job, worker);
    if (worker != self->slow) return;
    const auto until = std::chrono::steady_clock::now() + pool_threads::HeldSlots::kLimit;
    while (!self->go.load()) {
      if (std::chrono::steady_clock::now() > until) {
        self->timed_out = true;
        break;
      }
      std::this_thread::yield();
    }
    self->left = true;
  }
};

TEST(WorkerPool, TheNextRunDoesNotWaitForAThreadStillLeavingTheLast) {
  // Worker 1 of the first run stays in its job until job 0 of the second run lets it go:
  // the second run, worker 1 included, must start without waiting for it.
  WorkerPool pool(3);
  const std::vector<int> slots{0, 1, 2};
  SlowToLeave first(3, 1);
  pool.run_ending_in_barrier(slots, slots, &SlowToLeave::run, &first);
  Job second(3);
  Job0First releasing{&second, [&] { first.go = true; }};
  pool.run_ending_in_barrier(slots, slots, &Job0First::run, &releasing);
  pool.wait_idle();
  EXPECT_FALSE(first.timed_out.load()) << "the second run waited for the first's slow thread";
  EXPECT_TRUE(first.left.load());
  expect_runs(first.job, 1);
  expect_runs(second, 1);
}

TEST(WorkerPool, WaitIdleWaitsForAThreadInAnEarlierJobWhoseNextWasTakenBack) {
  // Worker 1 is still in the first run's job when the second run takes its job back: the
  // second run ends without it, but wait_idle (before that job's context goes) waits until
  // it has left the first.
  WorkerPool pool(2);
  const std::vector<int> slots{0, 1};
  SlowToLeave first(2, 1);
  pool.run_ending_in_barrier(slots, slots, &SlowToLeave::run, &first);
  Job second(2);
  std::atomic<bool> excused{false};
  Job0First excusing{&second, [&] {
                       if (!pool.excuse(1)) return;
                       excused = true;
                       second.barrier.expect(std::vector<int>{});
                     }};
  second.barrier.expect(std::vector<int>{1});
  pool.run_ending_in_barrier(slots, slots, &Job0First::run, &excusing);
  EXPECT_TRUE(excused.load());
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    first.go = true;
  });
  pool.wait_idle();
  EXPECT_TRUE(first.left.load()) << "wait_idle returned with a thread inside an earlier job";
  releaser.join();
  EXPECT_FALSE(first.timed_out.load());
  EXPECT_EQ(second.started[1].load(), 0);  // the job taken back never ran
}

TEST(WorkerPool, WaitIdleInsideAJobWaitsForEarlierJobsOnly) {
  // A body freeing another region waits for threads in that region's jobs (worker 2, still
  // leaving the first run), not for those in its own run (worker 1, at its barrier).
  WorkerPool pool(3);
  const std::vector<int> slots{0, 1, 2};
  SlowToLeave first(3, 2);
  pool.run_ending_in_barrier(slots, slots, &SlowToLeave::run, &first);
  Job second(2);
  std::atomic<bool> saw_left{false};
  Job0First freeing{&second, [&] {
                      std::thread releaser([&] {
                        std::this_thread::sleep_for(std::chrono::milliseconds(20));
                        first.go = true;
                      });
                      pool.wait_idle();
                      saw_left = first.left.load();
                      releaser.join();
                    }};
  const std::vector<int> two{0, 1};
  pool.run_ending_in_barrier(slots, two, &Job0First::run, &freeing);
  pool.wait_idle();
  EXPECT_TRUE(saw_left.load());
  EXPECT_FALSE(first.timed_out.load());
  expect_runs(second, 1);
}

TEST(WorkerPool, ABadSlotStartsNothing) {
  WorkerPool pool(2);
  Job job(2);
  const std::vector<int> bad{0, 5};
  const std::vector<int> good_workers{0, 1};
  EXPECT_THROW(pool.run_ending_in_barrier(bad, good_workers, &Job::run, &job), std::out_of_range);
  const std::vector<int> good{0, 1};
  pool.run_ending_in_barrier(good, good_workers, &Job::run, &job);
  pool.wait_idle();
  expect_runs(job, 1);
}

}  // namespace
