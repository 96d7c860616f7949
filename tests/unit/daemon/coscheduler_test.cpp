// SPDX-License-Identifier: BSD-3-Clause
// Cross-job placement on a synthetic node: 4 cores, cores 0-1 and 2-3 each share an L3.
#include "coscheduler.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace symmer::daemon {
namespace {

using ::testing::HasSubstr;

const topology::NodeModel& node() {
  static const auto n = topology::NodeModel::from_synthetic("pack:1 l3:2 core:2 pu:1");
  return n;
}

// A busy rank: computes the whole 1 s window.
PlacedRank busy(const std::string& job, int core, int order, uid_t uid = 1000) {
  PlacedRank r;
  r.job = job;
  r.owner_uid = uid;
  r.local_rank = 0;
  r.pid = 100 + order;
  r.core = core;
  r.order = order;
  r.movable = true;
  r.window_s = 1.0;
  r.compute_s = 1.0;
  return r;
}

NodeState all_usable() {
  NodeState s;
  s.usable = {0, 1, 2, 3};
  return s;
}

TEST(Coscheduler, SeparatesTwoJobsOnOneCoreMovingTheLaterJob) {
  const auto result = coschedule(node(), all_usable(), {busy("b", 0, 1), busy("a", 0, 0)}, {});
  ASSERT_EQ(result.moves.size(), 1u);
  const auto& m = result.moves[0];
  EXPECT_EQ(m.job, "b");
  EXPECT_EQ(m.from_core, 0);
  EXPECT_NE(m.to_core, 0);
  EXPECT_EQ(m.reason, "shared-core");
  EXPECT_NEAR(m.gain, 0.5, 1e-9);  // half a core -> a whole one
  EXPECT_EQ(m.evidence["sharing"].size(), 2u);
  EXPECT_EQ(m.evidence["share_of_core"], 0.5);
}

TEST(Coscheduler, UsesTheMeasuredShareOfTheSharedCore) {
  auto state = all_usable();
  state.capability = {1.0, 0.5, 0.5, 0.5};  // busy foreign processes on the free cores
  auto a = busy("a", 0, 0);
  auto b = busy("b", 0, 1);
  b.cpu_share = 0.25;  // two ranks and a foreign process on core 0
  const auto result = coschedule(node(), state, {a, b}, {});
  ASSERT_EQ(result.moves.size(), 1u);
  EXPECT_NEAR(result.moves[0].gain, 0.5, 1e-9);  // a quarter of a core -> a half
  EXPECT_EQ(result.moves[0].evidence["share_of_core"], 0.25);
}

TEST(Coscheduler, PrefersTheMostCapableFreeCore) {
  auto state = all_usable();
  state.capability = {1.0, 0.3, 1.0, 0.6};
  const auto result = coschedule(node(), state, {busy("a", 0, 0), busy("b", 0, 1)}, {});
  ASSERT_EQ(result.moves.size(), 1u);
  EXPECT_EQ(result.moves[0].to_core, 2);
}

TEST(Coscheduler, ThreeRanksOnOneCoreGoToDistinctCores) {
  const auto result =
      coschedule(node(), all_usable(), {busy("a", 1, 0), busy("b", 1, 1), busy("c", 1, 2)}, {});
  ASSERT_EQ(result.moves.size(), 2u);
  EXPECT_NE(result.moves[0].to_core, result.moves[1].to_core);
  for (const auto& m : result.moves) EXPECT_NE(m.job, "a");
}

TEST(Coscheduler, KeepsAJobThatCannotMoveAndMovesTheOther) {
  auto a = busy("a", 0, 0);
  a.movable = false;  // paused, or its moves in flight
  const auto result = coschedule(node(), all_usable(), {a, busy("b", 0, 1)}, {});
  ASSERT_EQ(result.moves.size(), 1u);
  EXPECT_EQ(result.moves[0].job, "b");
  auto b = busy("b", 0, 1);
  b.movable = false;
  const auto none = coschedule(node(), all_usable(), {a, b}, {});
  EXPECT_TRUE(none.moves.empty());
  ASSERT_FALSE(none.notes.empty());
  EXPECT_THAT(none.notes[0], HasSubstr("cannot move now"));
}

TEST(Coscheduler, NoFreeCoreIsANote) {
  auto state = all_usable();
  state.usable = {0, 1};
  const auto result =
      coschedule(node(), state, {busy("a", 0, 0), busy("b", 0, 1), busy("c", 1, 2)}, {});
  EXPECT_TRUE(result.moves.empty());
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_THAT(result.notes[0], HasSubstr("no free core"));
}

TEST(Coscheduler, SmallGainIsNotWorthAMove) {
  auto state = all_usable();
  state.capability = {1.0, 0.55, 0.55, 0.55};  // half of core 0 vs 0.55 of another: +9%
  CoscheduleOptions options;
  options.min_gain = 0.2;
  const auto result = coschedule(node(), state, {busy("a", 0, 0), busy("b", 0, 1)}, options);
  EXPECT_TRUE(result.moves.empty());
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_THAT(result.notes[0], HasSubstr("would gain only"));
}

TEST(Coscheduler, RanksWithoutEvidenceWait) {
  auto b = busy("b", 0, 1);
  b.window_s = 0;
  EXPECT_TRUE(coschedule(node(), all_usable(), {busy("a", 0, 0), b}, {}).moves.empty());
}

TEST(Coscheduler, UnboundRanksAreLeftAlone) {
  auto b = busy("b", -1, 1);
  EXPECT_TRUE(coschedule(node(), all_usable(), {busy("a", 0, 0), b}, {}).moves.empty());
}

TEST(Coscheduler, ReservedCoresAreVacatedAndNeverTargets) {
  auto state = all_usable();
  state.reservations.push_back({{3}, 4242, 0, true, "gpu-driver"});
  const auto result =
      coschedule(node(), state, {busy("a", 0, 0), busy("b", 0, 1), busy("c", 3, 2)}, {});
  ASSERT_EQ(result.moves.size(), 2u);
  EXPECT_EQ(result.moves[0].job, "b");
  EXPECT_EQ(result.moves[0].to_core, 1);
  EXPECT_EQ(result.moves[1].job, "c");  // alone on its core, but the core is reserved
  EXPECT_EQ(result.moves[1].to_core, 2);
  EXPECT_EQ(result.moves[1].reason, "reserved-core");
  // With no free unreserved core left, the conflict is reported instead.
  state.reservations.push_back({{1, 2}, 4243, 0, true, "gpu-driver"});
  const auto full = coschedule(node(), state, {busy("a", 0, 0), busy("c", 3, 2)}, {});
  EXPECT_TRUE(full.moves.empty());
  ASSERT_EQ(full.notes.size(), 1u);
  EXPECT_THAT(full.notes[0], HasSubstr("reserved"));
}

TEST(Coscheduler, AUsersReservationBindsOnlyThatUsersJobs) {
  auto state = all_usable();
  state.reservations.push_back({{1}, 4242, 1000, false, "gpu-driver"});
  EXPECT_TRUE(reserved_for(state, 1, 1000));
  EXPECT_FALSE(reserved_for(state, 1, 2000));
  const auto ranks = std::vector<PlacedRank>{busy("a", 0, 0, 1000), busy("x", 2, 1, 2000)};
  EXPECT_EQ(allowed_cores(state, ranks, "a", 1000), (std::vector<int>{0, 3}));
  EXPECT_EQ(allowed_cores(state, ranks, "x", 2000), (std::vector<int>{1, 2, 3}));
}

TEST(Coscheduler, NearNicCoresShareACacheWithTheInterruptCore) {
  EXPECT_EQ(cores_near_nic(node(), {0}), (std::set<int>{0, 1}));
  EXPECT_EQ(cores_near_nic(node(), {3}), (std::set<int>{2, 3}));
  EXPECT_TRUE(cores_near_nic(node(), {}).empty());
}

// A communication-heavy rank: waits 60% of the window, sends 100 MB/s off the node.
PlacedRank talker(const std::string& job, int core, int order) {
  auto r = busy(job, core, order);
  r.compute_s = 0.4;
  r.idle_s = 0.6;
  r.offnode_bytes_per_s = 100e6;
  return r;
}

TEST(Coscheduler, CommunicationHeavyRankGoesNearTheNicWhenItGains) {
  auto state = all_usable();
  state.nic_irq_cores = {0};
  CoscheduleOptions options;
  options.nic_wait_saving = 0.2;  // 0.6 s wait -> 0.48 s: 12% of the rank's time
  const auto result = coschedule(node(), state, {busy("a", 0, 0), talker("t", 2, 1)}, options);
  ASSERT_EQ(result.moves.size(), 1u);
  EXPECT_EQ(result.moves[0].job, "t");
  EXPECT_EQ(result.moves[0].to_core, 1);  // shares the L3 with the interrupt core 0
  EXPECT_EQ(result.moves[0].reason, "near-nic");
  EXPECT_NEAR(result.moves[0].gain, 0.12, 1e-9);
}

TEST(Coscheduler, CommunicationHeavyRankStaysWhenTheNicCoreCostsMoreThanItSaves) {
  auto state = all_usable();
  state.nic_irq_cores = {0};
  state.capability = {0.5, 0.5, 1.0, 1.0};  // interrupt load slows the cores near the NIC
  CoscheduleOptions options;
  options.nic_wait_saving = 0.2;
  const auto result = coschedule(node(), state, {busy("a", 0, 0), talker("t", 2, 1)}, options);
  EXPECT_TRUE(result.moves.empty());
}

TEST(Coscheduler, QuietRanksIgnoreTheNic) {
  auto state = all_usable();
  state.nic_irq_cores = {0};
  auto quiet = talker("t", 2, 1);
  quiet.offnode_bytes_per_s = 1000;
  EXPECT_TRUE(coschedule(node(), state, {busy("a", 0, 0), quiet}, {}).moves.empty());
}

TEST(Coscheduler, AllowedCoresExcludeOtherJobsCores) {
  const auto state = all_usable();
  const std::vector<PlacedRank> ranks = {busy("a", 0, 0), busy("b", 2, 1)};
  EXPECT_EQ(allowed_cores(state, ranks, "a", 1000), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(allowed_cores(state, ranks, "b", 1000), (std::vector<int>{1, 2, 3}));
}

}  // namespace
}  // namespace symmer::daemon
