// SPDX-License-Identifier: BSD-3-Clause
// Actuator: the swap handshake keeps ranks from sharing cores; faults leave nobody sharing.
#include "symmer/analysis/actuator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_rank_control.hpp"

namespace symmer::analysis {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;
using testing::FakeRankControl;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Plan plan_of(std::vector<Move> moves) {
  Plan p;
  p.id = 7;
  p.moves = std::move(moves);
  return p;
}

const std::vector<Move> kSwap = {{0, 0, 1}, {1, 1, 0}};

// Free one-core places (staging points) on `cores`.
std::map<int, std::vector<int>> places(std::initializer_list<int> cores) {
  std::map<int, std::vector<int>> out;
  for (int c : cores) out[c] = {c};
  return out;
}

// Polls until the actuator finishes, letting `step` act between polls (ranks entering MPI).
template <typename Step>
ActuationResult run(Actuator& a, TimePoint& now, Step step, int limit = 100) {
  for (int i = 0; i < limit; ++i) {
    step(i);
    now += 10ms;
    if (auto r = a.poll(now)) return *r;
  }
  ADD_FAILURE() << "actuator did not finish";
  return {};
}

TEST(Actuator, SwapWithoutAFreeCoreCommandsBothAtOnce) {
  FakeRankControl ranks({{0, 0}, {1, 1}});
  Actuator a(ranks, {});
  TimePoint now{};
  ASSERT_TRUE(a.start(plan_of(kSwap), ranks.placement(), {}, now));
  EXPECT_THAT(ranks.log, ElementsAre(std::pair{0, 1}, std::pair{1, 0}));
  // Rank 0 reaches MPI at once, rank 1 30 ms later: they share core 1 for those 30 ms.
  const auto r = run(a, now, [&](int i) {
    if (i == 0) ranks.enter_mpi(0);
    if (i == 3) ranks.enter_mpi(1);
  });
  EXPECT_TRUE(r.completed);
  EXPECT_THAT(r.faults, IsEmpty());
  EXPECT_EQ(ranks.placement(), (std::map<int, int>{{0, 1}, {1, 0}}));
  EXPECT_EQ(r.longest_sharing, 30ms);
  EXPECT_THAT(r.done, ::testing::UnorderedElementsAreArray(kSwap));
}

TEST(Actuator, SwapThroughAFreeCoreNeverShares) {
  FakeRankControl ranks({{0, 0}, {1, 1}});
  Actuator a(ranks, {});
  TimePoint now{};
  ASSERT_TRUE(a.start(plan_of(kSwap), ranks.placement(), places({2}), now));
  const auto r = run(a, now, [&](int) {
    ranks.everyone_enters_mpi();
    EXPECT_THAT(ranks.shared_cores(), IsEmpty());
  });
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(r.longest_sharing, 0ns);
  // Staged: 0 -> free core 2, then 1 -> 0's core, then 0 -> 1's core.
  EXPECT_THAT(ranks.log, ElementsAre(std::pair{0, 2}, std::pair{1, 0}, std::pair{0, 1}));
  EXPECT_EQ(ranks.placement(), (std::map<int, int>{{0, 1}, {1, 0}}));
}

TEST(Actuator, MoveToAFreeCoreAndChainsGoInOrder) {
  // 2 -> free 3, then 1 -> 2, then 0 -> 1: a chain, each move waits for the core to empty.
  FakeRankControl ranks({{0, 0}, {1, 1}, {2, 2}});
  Actuator a(ranks, {});
  TimePoint now{};
  ASSERT_TRUE(
      a.start(plan_of({{0, 0, 1}, {1, 1, 2}, {2, 2, 3}}), ranks.placement(), places({3}), now));
  EXPECT_THAT(ranks.log, ElementsAre(std::pair{2, 3}));
  const auto r = run(a, now, [&](int) {
    ranks.everyone_enters_mpi();
    EXPECT_THAT(ranks.shared_cores(), IsEmpty());
  });
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(ranks.placement(), (std::map<int, int>{{0, 1}, {1, 2}, {2, 3}}));
}

// A rank in a phase without MPI calls (an application's setup) would act on its command only
// when the phase ends: it is bound from outside at once, and the plan completes without it.
TEST(Actuator, RankWithoutCallsIsBoundFromOutsideAtOnce) {
  FakeRankControl ranks({{0, 0}, {1, 1}});
  ranks.allow_force_bind = true;
  ranks.slots.at(0).silent = true;
  ranks.slots.at(0).without_calls = true;
  Actuator a(ranks, {});
  TimePoint now{};
  ASSERT_TRUE(a.start(plan_of({{0, 0, 2}}), ranks.placement(), places({2}), now));
  EXPECT_THAT(ranks.forced, ElementsAre(std::pair{0, 2}));
  EXPECT_THAT(ranks.log, ElementsAre(std::pair{0, 2}));  // commanded too: it acts at its next call
  const auto r = run(a, now, [&](int) { ranks.everyone_enters_mpi(); });
  EXPECT_TRUE(r.completed);
  EXPECT_THAT(r.faults, IsEmpty());
  EXPECT_EQ(r.bound_from_outside.count(0), 1u);
  EXPECT_EQ(ranks.placement(), (std::map<int, int>{{0, 2}, {1, 1}}));
}

TEST(Actuator, ThreeCycleWithoutAFreeCoreCompletes) {
  FakeRankControl ranks({{0, 0}, {1, 1}, {2, 2}});
  Actuator a(ranks, {});
  TimePoint now{};
  ASSERT_TRUE(a.start(plan_of({{0, 0, 1}, {1, 1, 2}, {2, 2, 0}}), ranks.placement(), {}, now));
  const auto r = run(a, now, [&](int) { ranks.everyone_enters_mpi(); });
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(ranks.placement(), (std::map<int, int>{{0, 1}, {1, 2}, {2, 0}}));
  EXPECT_THAT(ranks.shared_cores(), IsEmpty());
}

TEST(Actuator, SilentPartnerIsToldToStayAndTheOtherComesBack) {
  FakeRankControl ranks({{0, 0}, {1, 1}});
  ranks.slots[1].silent = true;  // stuck in a compute phase longer than the timeout
  ActuatorOptions o;
  o.ack_timeout = 200ms;
  Actuator a(ranks, o);
  TimePoint now{};
  ASSERT_TRUE(a.start(plan_of(kSwap), ranks.placement(), {}, now));
  const auto r = run(a, now, [&](int) { ranks.enter_mpi(0); });
  EXPECT_FALSE(r.completed);
  ASSERT_EQ(r.faults.size(), 1u);
  EXPECT_THAT(r.faults[0], HasSubstr("local rank 1 did not answer within 200 ms"));
  EXPECT_THAT(r.shared_cores, IsEmpty());
  EXPECT_THAT(ranks.shared_cores(), IsEmpty());
  EXPECT_EQ(ranks.placement(), (std::map<int, int>{{0, 0}, {1, 1}}));
  // The silent rank's pending command now says: stay on core 1.
  EXPECT_EQ(ranks.slots[1].command_core, 1);
  EXPECT_THAT(r.done, IsEmpty());
}

TEST(Actuator, UnsettledUntilTheSilentRankAnswersItsStayCommand) {
  FakeRankControl ranks({{0, 0}, {1, 1}});
  ranks.slots[1].silent = true;
  ActuatorOptions o;
  o.ack_timeout = 50ms;
  Actuator a(ranks, o);
  TimePoint now{};
  EXPECT_TRUE(a.settled());
  ASSERT_TRUE(a.start(plan_of(kSwap), ranks.placement(), {}, now));
  const auto r = run(a, now, [&](int) { ranks.enter_mpi(0); });
  EXPECT_FALSE(r.completed);
  EXPECT_FALSE(a.settled());
  EXPECT_FALSE(a.settled());  // asking again changes nothing
  ranks.slots[1].silent = false;
  ranks.enter_mpi(1);
  EXPECT_TRUE(a.settled());
  EXPECT_EQ(ranks.placement(), (std::map<int, int>{{0, 0}, {1, 1}}));
}

TEST(Actuator, ARankThatDiedIsSettled) {
  FakeRankControl ranks({{0, 0}, {1, 1}});
  ranks.slots[1].silent = true;
  ActuatorOptions o;
  o.ack_timeout = 50ms;
  Actuator a(ranks, o);
  TimePoint now{};
  ASSERT_TRUE(a.start(plan_of(kSwap), ranks.placement(), {}, now));
  run(a, now, [&](int) { ranks.enter_mpi(0); });
  EXPECT_FALSE(a.settled());
  ranks.slots[1].alive = false;
  EXPECT_TRUE(a.settled());
}

TEST(Actuator, RankDyingMidSwapLeavesNobodySharing) {
  FakeRankControl ranks({{0, 0}, {1, 1}});
  Actuator a(ranks, {});
  TimePoint now{};
  ASSERT_TRUE(a.start(plan_of(kSwap), ranks.placement(), {}, now));
  const auto r = run(a, now, [&](int i) {
    if (i == 0) ranks.enter_mpi(0);            // rank 0 moved onto core 1 ...
    if (i == 1) ranks.slots[1].alive = false;  // ... where rank 1 dies
    if (i > 1) ranks.everyone_enters_mpi();
  });
  EXPECT_FALSE(r.completed);
  EXPECT_THAT(r.dead_ranks, ElementsAre(1));
  EXPECT_THAT(r.faults[0], HasSubstr("local rank 1 died"));
  EXPECT_THAT(ranks.shared_cores(), IsEmpty());
  EXPECT_EQ(ranks.placement(), (std::map<int, int>{{0, 0}}));  // rank 0 went home
}

TEST(Actuator, TargetThatLeftTheCpusetChangesNothing) {
  FakeRankControl ranks({{0, 0}, {1, 1}});
  ranks.forbidden_cores = {3};  // the free core the plan chose left the job's cpuset
  Actuator a(ranks, {});
  TimePoint now{};
  ASSERT_TRUE(a.start(plan_of({{0, 0, 3}}), ranks.placement(), places({2, 3}), now));
  const auto r = run(a, now, [&](int) { ranks.everyone_enters_mpi(); });
  EXPECT_FALSE(r.completed);
  EXPECT_THAT(r.faults[0], HasSubstr("local rank 0 could not bind to place L:3"));
  EXPECT_THAT(ranks.shared_cores(), IsEmpty());
  EXPECT_EQ(ranks.placement(), (std::map<int, int>{{0, 0}, {1, 1}}));
  EXPECT_THAT(r.done, IsEmpty());
}

TEST(Actuator, RankThatCannotGoHomeGoesToAFreeCore) {
  // Core 0 leaves the cpuset mid-swap: rank 1 cannot take it and rank 0 cannot return.
  FakeRankControl ranks({{0, 0}, {1, 1}, {2, 2}});
  ranks.forbidden_cores = {0};
  Actuator a(ranks, {});
  TimePoint now{};
  ASSERT_TRUE(a.start(plan_of({{0, 0, 1}, {1, 1, 0}}), ranks.placement(), places({3}), now));
  const auto r = run(a, now, [&](int) {
    ranks.everyone_enters_mpi();
    EXPECT_THAT(ranks.shared_cores(), IsEmpty());
  });
  EXPECT_FALSE(r.completed);
  EXPECT_THAT(ranks.shared_cores(), IsEmpty());
  EXPECT_EQ(ranks.placement().at(1), 1);
  EXPECT_EQ(ranks.placement().at(0), 3);  // staged there, could not go home: stays, alone
  EXPECT_THAT(r.done, ::testing::ElementsAre(Move{0, 0, 3}));
}

TEST(Actuator, CpusetShrunkBelowTheRanksIsReportedAsShared) {
  // Two ranks, and core 0 is gone: the kernel leaves them no choice but to share core 1.
  FakeRankControl ranks({{0, 0}, {1, 1}});
  ranks.forbidden_cores = {0};
  Actuator a(ranks, {});
  TimePoint now{};
  ASSERT_TRUE(a.start(plan_of(kSwap), ranks.placement(), {}, now));
  const auto r = run(a, now, [&](int) { ranks.everyone_enters_mpi(); });
  EXPECT_FALSE(r.completed);
  EXPECT_THAT(r.shared_cores, ElementsAre(1));
}

TEST(Actuator, RankSilentOnTheWayBackIsBoundFromOutside) {
  FakeRankControl ranks({{0, 0}, {1, 1}});
  ranks.slots[1].silent = true;
  ranks.allow_force_bind = true;
  ActuatorOptions o;
  o.ack_timeout = 100ms;
  Actuator a(ranks, o);
  TimePoint now{};
  ASSERT_TRUE(a.start(plan_of(kSwap), ranks.placement(), {}, now));
  const auto r = run(a, now, [&](int i) {
    if (i == 0) ranks.enter_mpi(0);
    if (i == 1) ranks.slots[0].silent = true;  // and now rank 0 goes quiet too
  });
  EXPECT_FALSE(r.completed);
  EXPECT_THAT(ranks.forced, ElementsAre(std::pair{0, 0}));
  EXPECT_THAT(r.shared_cores, IsEmpty());
  EXPECT_THAT(ranks.shared_cores(), IsEmpty());
}

TEST(Actuator, ReportsACoreLeftSharedWhenNothingElseWorks) {
  FakeRankControl ranks({{0, 0}, {1, 1}});
  ranks.slots[1].silent = true;
  ActuatorOptions o;
  o.ack_timeout = 100ms;
  Actuator a(ranks, o);
  TimePoint now{};
  ASSERT_TRUE(a.start(plan_of(kSwap), ranks.placement(), {}, now));
  const auto r = run(a, now, [&](int i) {
    if (i == 0) ranks.enter_mpi(0);
    if (i == 1) ranks.slots[0].silent = true;
  });
  EXPECT_THAT(r.shared_cores, ElementsAre(1));
  EXPECT_THAT(r.faults.back(), HasSubstr("place L:1 is left shared by 2 ranks"));
}

TEST(Actuator, RefusesPlansThatDoNotStartFromThePlacement) {
  FakeRankControl ranks({{0, 0}, {1, 1}, {2, 2}});
  Actuator a(ranks, {});
  EXPECT_FALSE(a.start(plan_of({{0, 3, 1}}), ranks.placement(), {}, TimePoint{}));
  EXPECT_THAT(a.refusal(), HasSubstr("local rank 0 is not on place L:3"));
  EXPECT_FALSE(a.start(plan_of({{0, 0, 2}}), ranks.placement(), {}, TimePoint{}));
  EXPECT_THAT(a.refusal(), HasSubstr("place L:2 is held by local rank 2"));
  EXPECT_FALSE(a.start(plan_of({{0, 0, 3}, {1, 1, 3}}), ranks.placement(), {}, TimePoint{}));
  EXPECT_THAT(a.refusal(), HasSubstr("two moves target place L:3"));
  EXPECT_TRUE(ranks.log.empty());
  EXPECT_FALSE(a.busy());
}

TEST(Actuator, CommandThatCannotBePostedIsAFault) {
  FakeRankControl ranks({{0, 0}, {1, 1}});
  Actuator a(ranks, {});
  TimePoint now{};
  ASSERT_TRUE(a.start(plan_of({{0, 0, -5}}), ranks.placement(), {}, now));
  const auto r = run(a, now, [&](int) { ranks.everyone_enters_mpi(); });
  EXPECT_FALSE(r.completed);
  EXPECT_THAT(r.faults[0], HasSubstr("cannot post a command moving local rank 0 to place L:-5"));
  EXPECT_EQ(ranks.placement(), (std::map<int, int>{{0, 0}, {1, 1}}));
}

TEST(Actuator, BusyActuatorRefusesASecondPlan) {
  FakeRankControl ranks({{0, 0}, {1, 1}});
  Actuator a(ranks, {});
  ASSERT_TRUE(a.start(plan_of(kSwap), ranks.placement(), {}, TimePoint{}));
  EXPECT_TRUE(a.busy());
  EXPECT_FALSE(a.start(plan_of(kSwap), ranks.placement(), {}, TimePoint{}));
  EXPECT_THAT(a.refusal(), HasSubstr("still running"));
}

}  // namespace
}  // namespace symmer::analysis
