// SPDX-License-Identifier: BSD-3-Clause
// The end-of-pass barrier: worker 0 runs the completion once per round, only after every
// worker arrived for that round, and no worker leaves a round before its completion ran --
// also when arrivals come late enough for the waiters to sleep in the kernel.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "workers/pass_barrier.hpp"

namespace {

using tsar::core::PassBarrier;

struct Rounds {
  explicit Rounds(int workers) : arrived(static_cast<std::size_t>(workers)) {
    for (auto& a : arrived) a = -1;
  }
  std::vector<std::atomic<int>> arrived;  ///< the round each worker arrived for last (-1: none)
  std::atomic<int> completions{0};
  std::atomic<int> early_completions{0};    ///< completions that saw a worker not yet arrived
  std::atomic<int> early_releases{0};       ///< workers that left before their round completed
  std::atomic<int> foreign_completions{0};  ///< completions not run by worker 0
};

/// `workers` threads through `rounds` rounds; worker `late` (if >= 0) arrives after `delay`
/// in every `every`-th round.
void run_rounds(PassBarrier& barrier, Rounds& r, int workers, int rounds, int late = -1,
                std::chrono::milliseconds delay = {}, int every = 1) {
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (int round = 0; round < rounds; ++round) {
        if (w == late && round % every == 0) std::this_thread::sleep_for(delay);
        r.arrived[static_cast<std::size_t>(w)].store(round, std::memory_order_relaxed);
        barrier.arrive_and_wait(w, [&] {
          if (w != 0) r.foreign_completions++;
          for (auto& a : r.arrived)
            if (a.load(std::memory_order_relaxed) != round) r.early_completions++;
          r.completions++;
        });
        if (r.completions.load() != round + 1) r.early_releases++;
      }
    });
  for (auto& t : threads) t.join();
}

TEST(PassBarrier, EveryRoundCompletesOnceAfterAllArrivedAndBeforeAnyoneLeaves) {
  constexpr int kWorkers = 5;
  constexpr int kRounds = 3000;
  PassBarrier barrier;
  barrier.set_count(kWorkers);
  Rounds r(kWorkers);
  run_rounds(barrier, r, kWorkers, kRounds);
  EXPECT_EQ(r.completions.load(), kRounds);  // no round lost or run twice
  EXPECT_EQ(r.early_completions.load(), 0);
  EXPECT_EQ(r.early_releases.load(), 0);
  EXPECT_EQ(r.foreign_completions.load(), 0);
}

TEST(PassBarrier, LateArrivalsWakeSleepingWaiters) {
  // A worker 5 ms late outlasts the spin (WaitWord::kSpin): the leader and the others sleep
  // in the kernel and must be woken. Both the leader and another worker are late in turn.
  for (const int late : {0, 2}) {
    SCOPED_TRACE("late worker " + std::to_string(late));
    constexpr int kWorkers = 3;
    constexpr int kRounds = 12;
    PassBarrier barrier;
    barrier.set_count(kWorkers);
    Rounds r(kWorkers);
    run_rounds(barrier, r, kWorkers, kRounds, late, std::chrono::milliseconds(5), 3);
    EXPECT_EQ(r.completions.load(), kRounds);
    EXPECT_EQ(r.early_completions.load(), 0);
    EXPECT_EQ(r.early_releases.load(), 0);
  }
}

TEST(PassBarrier, ASingleWorkerRunsTheCompletionAlone) {
  PassBarrier barrier;
  barrier.set_count(1);
  int completions = 0;
  for (int round = 0; round < 3; ++round) barrier.arrive_and_wait(0, [&] { ++completions; });
  EXPECT_EQ(completions, 3);
}

TEST(PassBarrier, ReArmingForAnotherCountStartsOver) {
  PassBarrier barrier;
  barrier.set_count(2);
  Rounds two(2);
  run_rounds(barrier, two, 2, 100);
  EXPECT_EQ(two.completions.load(), 100);
  barrier.set_count(4);
  Rounds four(4);
  run_rounds(barrier, four, 4, 100);
  EXPECT_EQ(four.completions.load(), 100);
  EXPECT_EQ(four.early_completions.load(), 0);
  EXPECT_EQ(four.early_releases.load(), 0);
}

}  // namespace
