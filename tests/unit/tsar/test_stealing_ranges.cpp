// SPDX-License-Identifier: BSD-3-Clause
// The CPU share's stealing ranges: owners take their own range in quarters of what remains,
// down to their minimum piece, an exhausted member takes a quarter of the fullest other
// range, non-members' ranges are never handed out, and concurrent takers -- owners and thieves,
// through resets and a close -- hand out every iteration exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "queue/stealing_ranges.hpp"

namespace {

using tsar::core::ChunkQueue;
using tsar::core::Range;
using tsar::core::StealingRanges;

constexpr auto kSuccess = ChunkQueue::Result::kSuccess;
constexpr auto kClosed = ChunkQueue::Result::kClosed;

void reset(StealingRanges& s, const std::vector<Range>& ranges,
           const std::vector<unsigned char>& member, const std::vector<std::int64_t>& piece) {
  s.reset(ranges, member, piece);
}

TEST(StealingRanges, AnOwnerTakesItsRangeInShrinkingPiecesDownToItsMinimum) {
  StealingRanges s(1);
  reset(s, {{0, 100}}, {1}, {1});
  std::vector<std::int64_t> sizes;
  std::int64_t at = 0;
  Range r;
  while (s.take(0, r) == kSuccess) {
    EXPECT_EQ(r.begin, at);  // in order, no gap
    at = r.end;
    sizes.push_back(r.size());
  }
  EXPECT_EQ(at, 100);
  EXPECT_EQ(sizes, (std::vector<std::int64_t>{25, 19, 14, 11, 8, 6, 5, 3, 3, 2, 1, 1, 1, 1}));

  reset(s, {{0, 100}}, {1}, {30});  // no piece under 30 but the range's last
  sizes.clear();
  while (s.take(0, r) == kSuccess) sizes.push_back(r.size());
  EXPECT_EQ(sizes, (std::vector<std::int64_t>{30, 30, 30, 10}));
}

TEST(StealingRanges, OwnersStartOnTheirOwnRanges) {
  StealingRanges s(3);
  reset(s, {{0, 40}, {40, 50}, {50, 90}}, {1, 1, 1}, {1, 1, 1});
  Range r;
  ASSERT_EQ(s.take(2, r), kSuccess);
  EXPECT_EQ(r.begin, 50);
  EXPECT_EQ(r.end, 60);
  ASSERT_EQ(s.take(1, r), kSuccess);
  EXPECT_EQ(r.begin, 40);
  EXPECT_EQ(r.end, 43);
  ASSERT_EQ(s.take(0, r), kSuccess);
  EXPECT_EQ(r.begin, 0);
  EXPECT_EQ(r.end, 10);
}

TEST(StealingRanges, AnExhaustedMemberTakesAPieceOfTheFullestOtherRange) {
  StealingRanges s(3);
  reset(s, {{0, 0}, {0, 100}, {100, 140}}, {1, 1, 1}, {1, 1, 1});
  Range r;
  ASSERT_EQ(s.take(0, r), kSuccess);  // its own range is empty: from worker 1's 100
  EXPECT_EQ(r.begin, 0);
  EXPECT_EQ(r.end, 25);
  ASSERT_EQ(s.take(0, r), kSuccess);  // 75 left at worker 1, 40 at worker 2
  EXPECT_EQ(r.begin, 25);
  EXPECT_EQ(r.end, 44);
  ASSERT_EQ(s.take(1, r), kSuccess);  // the owner goes on where the thieves left off
  EXPECT_EQ(r.begin, 44);
  EXPECT_EQ(r.end, 58);
  ASSERT_EQ(s.take(1, r), kSuccess);
  EXPECT_EQ(r.begin, 58);
  EXPECT_EQ(r.end, 69);
  ASSERT_EQ(s.take(0, r), kSuccess);  // 31 left at worker 1: now worker 2's 40 is the fullest
  EXPECT_EQ(r.begin, 100);
  EXPECT_EQ(r.end, 110);
}

TEST(StealingRanges, ARangeWithAtMostOneOwnerPieceLeftIsLeftToItsOwner) {
  StealingRanges s(3);
  reset(s, {{0, 0}, {0, 50}, {50, 60}}, {1, 1, 1}, {1, 20, 20});
  Range r;
  ASSERT_EQ(s.take(0, r), kSuccess);  // 50 left at worker 1, more than its piece of 20
  EXPECT_EQ(r.begin, 0);
  EXPECT_EQ(r.end, 13);
  ASSERT_EQ(s.take(0, r), kSuccess);  // 37 left
  EXPECT_EQ(r.begin, 13);
  EXPECT_EQ(r.end, 23);
  ASSERT_EQ(s.take(0, r), kSuccess);  // 27 left: this piece leaves 20
  EXPECT_EQ(r.begin, 23);
  EXPECT_EQ(r.end, 30);
  EXPECT_EQ(s.take(0, r), kClosed);  // 20 at worker 1, 10 at worker 2: their owners'
  ASSERT_EQ(s.take(1, r), kSuccess);
  EXPECT_EQ(r.begin, 30);
  EXPECT_EQ(r.end, 50);
  ASSERT_EQ(s.take(2, r), kSuccess);
  EXPECT_EQ(r.begin, 50);
  EXPECT_EQ(r.end, 60);
  EXPECT_EQ(s.take(1, r), kClosed);
  EXPECT_EQ(s.take(2, r), kClosed);
}

TEST(StealingRanges, TheRestOfARangeWhoseOwnerNeverStartedGoesToOneTaker) {
  // Worker 1 never started: thieves emptied its range down to its last piece, which only a
  // worker standing in for it (take_rest) takes; then nothing is left for anyone.
  StealingRanges s(3);
  reset(s, {{0, 0}, {0, 50}, {50, 50}}, {1, 1, 1}, {1, 20, 1});
  Range r;
  while (s.take(0, r) == kSuccess) {
  }
  ASSERT_TRUE(s.take_rest(1, r));
  EXPECT_EQ(r.begin, 30);
  EXPECT_EQ(r.end, 50);
  EXPECT_FALSE(s.take_rest(1, r));
  EXPECT_EQ(s.take(1, r), kClosed);
  EXPECT_EQ(s.take(2, r), kClosed);
  EXPECT_FALSE(s.take_rest(2, r));  // an empty range has no rest
}

TEST(StealingRanges, NonMembersRangesAreNeverHandedOut) {
  StealingRanges s(3);
  reset(s, {{0, 10}, {10, 1000}, {1000, 1010}}, {1, 0, 1}, {1, 1, 1});
  EXPECT_TRUE(s.member(0));
  EXPECT_FALSE(s.member(1));
  std::int64_t taken = 0;
  Range r;
  while (s.take(0, r) == kSuccess) {
    EXPECT_TRUE(r.end <= 10 || r.begin >= 1000) << r.begin << ".." << r.end;
    taken += r.size();
  }
  EXPECT_EQ(taken, 19);  // all but worker 2's last piece (one iteration), left to its owner
  ASSERT_EQ(s.take(2, r), kSuccess);
  EXPECT_EQ(r.begin, 1009);
  EXPECT_EQ(r.end, 1010);
  EXPECT_EQ(s.take(2, r), kClosed);
}

TEST(StealingRanges, AThiefTakesOnlyFromMembersAndNoPieceUnderItsMinimum) {
  // Worker 1 is an accelerator that steals (not a member: its own range is run outside);
  // worker 3 neither member nor thief. The thief takes no piece smaller than its minimum
  // (40), from the fullest member range with that much left; a worker neither member nor
  // thief gets nothing.
  StealingRanges s(4);
  s.reset(std::vector<Range>{{0, 100}, {100, 500}, {500, 530}, {530, 600}},
          std::vector<unsigned char>{1, 0, 1, 0}, std::vector<std::int64_t>{1, 40, 1, 1},
          std::vector<unsigned char>{0, 1, 0, 0});
  EXPECT_TRUE(s.thief(1));
  EXPECT_FALSE(s.thief(0));  // a member is no thief
  EXPECT_FALSE(s.thief(3));
  Range r;
  EXPECT_EQ(s.take(3, r), kClosed);
  ASSERT_EQ(s.take(1, r), kSuccess);  // from worker 0's 100, not its own range
  EXPECT_EQ(r.begin, 0);
  EXPECT_EQ(r.end, 40);               // its minimum, over a quarter of what remained
  ASSERT_EQ(s.take(1, r), kSuccess);  // 60 left at worker 0, 30 at worker 2
  EXPECT_EQ(r.begin, 40);
  EXPECT_EQ(r.end, 80);
  // 20 left at worker 0 and 30 at worker 2: no piece of 40 pays.
  EXPECT_EQ(s.take(1, r), kClosed);
  ASSERT_EQ(s.take(2, r), kSuccess);  // the members go on
  EXPECT_EQ(r.begin, 500);
}

TEST(StealingRanges, CloseStopsEveryTaker) {
  StealingRanges s(2);
  reset(s, {{0, 100}, {100, 200}}, {1, 1}, {1, 1});
  Range r;
  ASSERT_EQ(s.take(0, r), kSuccess);
  s.close();
  EXPECT_EQ(s.take(0, r), kClosed);
  EXPECT_EQ(s.take(1, r), kClosed);
  reset(s, {{0, 100}, {100, 200}}, {1, 1}, {1, 1});  // a reset opens them again
  EXPECT_EQ(s.take(1, r), kSuccess);
}

TEST(StealingRanges, WhileNoMemberHasRowsRestingHandsOutNothingAndAResetRowsAgain) {
  // A pass all the accelerators': the members' ranges are empty, and rest() re-arms without
  // writing their lines -- takes find nothing, as after a reset with those ranges.
  StealingRanges s(3);
  EXPECT_TRUE(s.resting()) << "no member yet";
  reset(s, {{0, 10}, {10, 20}, {20, 20}}, {1, 1, 0}, {1, 1, 1});
  EXPECT_FALSE(s.resting());
  Range r;
  while (s.take(0, r) == kSuccess) {
  }
  reset(s, {{0, 0}, {0, 0}, {0, 20}}, {1, 1, 0}, {1, 1, 1});
  EXPECT_TRUE(s.resting());
  s.close();  // a canceled pass
  s.rest();
  EXPECT_EQ(s.take(0, r), kClosed);
  EXPECT_EQ(s.take(1, r), kClosed);
  EXPECT_EQ(s.take(2, r), kClosed) << "non-members take nothing";
  reset(s, {{0, 5}, {5, 10}, {10, 20}}, {1, 1, 0}, {1, 1, 1});
  EXPECT_FALSE(s.resting());
  ASSERT_EQ(s.take(1, r), kSuccess) << "reopened after the close";
  EXPECT_EQ(r.begin, 5);
}

TEST(StealingRanges, ConcurrentOwnersAndThievesRunEveryIterationOnce) {
  // Eight takers, one of them very slow (a preempted core), uneven ranges (an empty one, a
  // non-member's: an accelerator, in half the passes a thief with a large minimum piece),
  // several passes over the same object, small and large minimum pieces.
  constexpr int kWorkers = 8;
  constexpr std::int64_t kN = 60'000;
  StealingRanges s(kWorkers);
  std::mt19937 rng(7);
  for (int pass = 0; pass < 12; ++pass) {
    SCOPED_TRACE("pass " + std::to_string(pass));
    std::vector<std::int64_t> cuts = {0, kN};
    for (int c = 0; c < kWorkers - 1; ++c)
      cuts.push_back(std::uniform_int_distribution<std::int64_t>(0, kN)(rng));
    std::sort(cuts.begin(), cuts.end());
    std::vector<Range> ranges;
    for (int w = 0; w < kWorkers; ++w)
      ranges.push_back({cuts[static_cast<std::size_t>(w)], cuts[static_cast<std::size_t>(w) + 1]});
    std::vector<unsigned char> member(kWorkers, 1);
    member[3] = 0;  // an accelerator: its range stays its own; every other pass a thief
    std::vector<unsigned char> thief(kWorkers, 0);
    thief[3] = pass % 4 < 2 ? 1 : 0;
    std::vector<std::int64_t> piece(kWorkers, pass % 2 == 0 ? 1 : 97);
    piece[3] = 500;
    s.reset(ranges, member, piece, thief);

    std::vector<std::atomic<int>> seen(kN);
    std::vector<std::thread> threads;
    for (int w = 0; w < kWorkers; ++w) {
      if (!member[static_cast<std::size_t>(w)] && !thief[static_cast<std::size_t>(w)]) continue;
      threads.emplace_back([&, w] {
        Range r;
        if (!member[static_cast<std::size_t>(w)])  // a thief runs its own range first
          for (auto i = ranges[3].begin; i < ranges[3].end; ++i)
            seen[static_cast<std::size_t>(i)]++;
        while (s.take(w, r) == kSuccess) {
          ASSERT_LT(r.begin, r.end);
          for (auto i = r.begin; i < r.end; ++i) seen[static_cast<std::size_t>(i)]++;
          if (w == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
      });
    }
    for (auto& t : threads) t.join();
    const Range accel = ranges[3];
    for (std::int64_t i = 0; i < kN; ++i) {
      const int expected = (i >= accel.begin && i < accel.end && !thief[3]) ? 0 : 1;
      ASSERT_EQ(seen[static_cast<std::size_t>(i)].load(), expected) << "iteration " << i;
    }
  }
}

TEST(StealingRanges, AConcurrentCloseHandsNothingOutTwice) {
  constexpr std::int64_t kN = 200'000;
  StealingRanges s(4);
  s.reset(std::vector<Range>{{0, kN / 4}, {kN / 4, kN / 2}, {kN / 2, 3 * kN / 4}, {3 * kN / 4, kN}},
          std::vector<unsigned char>{1, 1, 1, 1}, std::vector<std::int64_t>{1, 1, 1, 1});
  std::vector<std::atomic<int>> seen(kN);
  std::atomic<std::int64_t> pieces{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w)
    threads.emplace_back([&, w] {
      Range r;
      while (s.take(w, r) == kSuccess) {
        for (auto i = r.begin; i < r.end; ++i) seen[static_cast<std::size_t>(i)]++;
        if (++pieces == 20) s.close();
      }
    });
  for (auto& t : threads) t.join();
  for (std::int64_t i = 0; i < kN; ++i) ASSERT_LE(seen[static_cast<std::size_t>(i)].load(), 1);
  Range r;
  EXPECT_EQ(s.take(0, r), kClosed);
}

}  // namespace
