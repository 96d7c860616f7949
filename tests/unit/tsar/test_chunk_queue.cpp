// The ticket queue: concurrent takers cover every iteration exactly once, through the
// blocking (fetch-and-add) and the non-waiting (compare-and-swap) interfaces alike.
#include <gtest/gtest.h>

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
  for (int mode = 0; mode < 2; ++mode) {
    ChunkQueue q;
    q.reset(0, kN);
    std::vector<std::atomic<int>> seen(kN);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        Range r;
        for (;;) {
          ChunkQueue::Result res;
          if (mode == 0) {
            res = q.take(1 + t * 3, r);
          } else {
            res = q.try_take([](std::int64_t left) { return left / 8; }, r);
            if (res == ChunkQueue::Result::kBusy) continue;
          }
          if (res == ChunkQueue::Result::kClosed) return;
          for (auto i = r.begin; i < r.end; ++i) seen[static_cast<std::size_t>(i)]++;
        }
      });
    }
    for (auto& th : threads) th.join();
    for (std::int64_t i = 0; i < kN; ++i) ASSERT_EQ(seen[static_cast<std::size_t>(i)], 1) << i;
  }
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
