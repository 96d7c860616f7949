// SPDX-License-Identifier: BSD-3-Clause
// The ticket queue: concurrent takers cover every iteration exactly once, through the
// blocking (fetch-and-add, single or batched tickets) and the non-waiting (compare-and-swap)
// interfaces alike; batches shrink to single tickets for the tail.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "queue/chunk_queue.hpp"

namespace {

using tsar::core::ChunkQueue;
using tsar::core::Range;

TEST(ChunkQueue, SingleTakerWalksTheRange) {
  ChunkQueue q;
  q.reset(10, 25);
  Range r;
  ASSERT_EQ(q.take(4, r), ChunkQueue::Result::kSuccess);
  EXPECT_EQ(r.begin, 10);
  EXPECT_EQ(r.end, 14);
  EXPECT_EQ(q.remaining(), 11);
  ASSERT_EQ(q.take(100, r), ChunkQueue::Result::kSuccess);
  EXPECT_EQ(r.end, 25);  // clipped
  EXPECT_EQ(q.take(1, r), ChunkQueue::Result::kClosed);
  EXPECT_EQ(q.remaining(), 0);
  q.reset(0, 0);
  EXPECT_EQ(q.take(1, r), ChunkQueue::Result::kClosed);
}

TEST(ChunkQueue, ConcurrentTakersCoverEveryIterationOnce) {
  constexpr std::int64_t kN = 200'000;
  for (int mode = 0; mode < 3; ++mode) {
    ChunkQueue q;
    q.reset(0, kN);
    std::vector<ChunkQueue::Reserve> reserves(4);
    std::vector<std::atomic<int>> seen(kN);
    std::atomic<std::int64_t> chunks{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        Range r;
        for (;;) {
          ChunkQueue::Result res;
          if (mode == 0) {
            res = q.take(1 + t * 3, r);
          } else if (mode == 2) {
            res = q.take(1 + t * 3, 4, reserves[static_cast<std::size_t>(t)], r);
            EXPECT_LE(r.size(), 1 + t * 3);
          } else {
            res = q.try_take([](std::int64_t left) { return left / 8; }, r);
            if (res == ChunkQueue::Result::kBusy) continue;
          }
          if (res == ChunkQueue::Result::kClosed) return;
          ++chunks;
          for (auto i = r.begin; i < r.end; ++i) seen[static_cast<std::size_t>(i)]++;
        }
      });
    }
    for (auto& th : threads) th.join();
    for (std::int64_t i = 0; i < kN; ++i) ASSERT_EQ(seen[static_cast<std::size_t>(i)], 1) << i;
    if (mode == 2) {
      // Batches: far fewer fetch-and-adds than chunks (up to kMaxBatch chunks each; single
      // tickets only for the last few hundred iterations).
      std::int64_t fetches = 0;
      for (const auto& res : reserves) fetches += res.fetches;
      EXPECT_LT(fetches * 8, chunks.load())
          << fetches << " fetch-and-adds for " << chunks << " chunks";
    }
  }
}

TEST(ChunkQueue, BatchesShrinkToSingleTicketsForTheTail) {
  // One taker of two: chunks of 1 from [0, 1000).
  ChunkQueue q;
  q.reset(0, 1000);
  ChunkQueue::Reserve reserve;
  Range r;
  std::int64_t expect = 0;
  for (;;) {
    const std::int64_t fetches = reserve.fetches;
    if (q.take(1, 2, reserve, r) != ChunkQueue::Result::kSuccess) break;
    ASSERT_EQ(r.begin, expect);
    ASSERT_EQ(r.size(), 1);
    ++expect;
    if (reserve.fetches == fetches) continue;
    // A refill: at most kMaxBatch chunks, at most 1/(kBatchShare * takers) of what remained.
    const std::int64_t batch = reserve.end - r.begin;
    const std::int64_t remained = 1000 - r.begin;
    EXPECT_LE(batch, ChunkQueue::kMaxBatch);
    EXPECT_LE(batch, std::max<std::int64_t>(1, remained / (ChunkQueue::kBatchShare * 2)))
        << r.begin;
    if (r.begin == 0) {
      EXPECT_EQ(batch, ChunkQueue::kMaxBatch);
    }
    if (remained < 2 * ChunkQueue::kBatchShare * 2) {
      EXPECT_EQ(batch, 1) << r.begin;
    }
  }
  EXPECT_EQ(expect, 1000);
  EXPECT_LT(reserve.fetches, 1000 / 4);
  EXPECT_EQ(q.remaining(), 0);
}

TEST(ChunkQueue, AResetEmptiesTheReservesAndCloseStopsThem) {
  ChunkQueue q;
  q.reset(0, 10000);
  ChunkQueue::Reserve reserve;
  Range r;
  ASSERT_EQ(q.take(1, 1, reserve, r), ChunkQueue::Result::kSuccess);
  ASSERT_GT(reserve.end, 1) << "a batch is reserved";
  q.reset(20000, 20010);  // the next pass: the old reserve must not be handed out
  ASSERT_EQ(q.take(4, 1, reserve, r), ChunkQueue::Result::kSuccess);
  EXPECT_EQ(r.begin, 20000);
  EXPECT_EQ(r.end, 20004);
  q.close();
  EXPECT_EQ(q.take(4, 1, reserve, r), ChunkQueue::Result::kClosed);
  q.reset(0, 3);
  ASSERT_EQ(q.take(4, 1, reserve, r), ChunkQueue::Result::kSuccess);
  EXPECT_EQ(r.end, 3);  // clipped at the end
  EXPECT_EQ(q.take(4, 1, reserve, r), ChunkQueue::Result::kClosed);
}

TEST(ChunkQueue, NonWaitingSizesFromTheExactRemainder) {
  ChunkQueue q;
  q.reset(0, 100);
  Range r;
  ASSERT_EQ(q.try_take([](std::int64_t left) { return left / 2; }, r),
            ChunkQueue::Result::kSuccess);
  EXPECT_EQ(r.size(), 50);
  ASSERT_EQ(q.try_take([](std::int64_t left) { return left / 2; }, r),
            ChunkQueue::Result::kSuccess);
  EXPECT_EQ(r.size(), 25);
  ASSERT_EQ(q.try_take([](std::int64_t) { return 0; }, r), ChunkQueue::Result::kSuccess);
  EXPECT_EQ(r.size(), 1);  // at least one
}

TEST(ChunkQueue, CloseStopsEveryInterface) {
  ChunkQueue q;
  q.reset(0, 100);
  q.close();
  Range r;
  EXPECT_TRUE(q.closed());
  EXPECT_EQ(q.take(1, r), ChunkQueue::Result::kClosed);
  EXPECT_EQ(q.try_take([](std::int64_t) { return 1; }, r), ChunkQueue::Result::kClosed);
  q.reset(0, 100);
  EXPECT_FALSE(q.closed());
}

}  // namespace
