// SPDX-License-Identifier: BSD-3-Clause
// Whole assignment: ranks by demand onto cores by capability, locality groups kept together.
#include "symmer/analysis/assignment.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "symmer/topology/node_model.hpp"
#include "synthetic_job.hpp"

namespace symmer::analysis {
namespace {

using topology::NodeModel;

const NodeModel& four_numa() {
  static const auto node = NodeModel::from_synthetic("pack:2 numa:2 l3:1 core:4 pu:1");
  return node;
}

std::vector<int> all_cores(const NodeModel& node) {
  std::vector<int> out;
  for (const auto& c : node.cores()) out.push_back(c.index);
  return out;
}

testing::SyntheticJob placed(testing::SyntheticJob job, const std::vector<Move>& moves) {
  for (const auto& m : moves) job.core[m.local_rank] = m.to_core;
  return job;
}

TEST(Assignment, TwoRanksSwapOffTheNoisyCore) {
  const auto node = NodeModel::from_synthetic("pack:1 l3:1 core:2 pu:1");
  const auto job = testing::paired_job({0.040, 0.010}, {0.5, 1.0});
  const auto moves = whole_assignment(node, job.window(1, 0), all_cores(node), {});
  EXPECT_THAT(moves, ::testing::UnorderedElementsAre(Move{0, 0, 1}, Move{1, 1, 0}));
}

TEST(Assignment, BalancedJobOnEqualCoresStaysPut) {
  const auto job = testing::paired_job(std::vector<double>(8, 0.01), std::vector<double>(16, 1.0));
  EXPECT_TRUE(whole_assignment(four_numa(), job.window(1, 0), all_cores(four_numa()), {}).empty());
}

TEST(Assignment, EqualCapabilitiesMoveNobody) {
  // Very different demands, but every core is as good as any other: nothing to gain.
  const auto job = testing::paired_job({0.05, 0.01, 0.03, 0.02}, std::vector<double>(16, 0.8));
  EXPECT_TRUE(whole_assignment(four_numa(), job.window(1, 0), all_cores(four_numa()), {}).empty());
}

TEST(Assignment, HeavyPairsStayUnderOneCacheOnGoodCores) {
  // Pairs (0,1) and (2,3) exchange 8 MiB per iteration; cores 0-3 are noisy.
  std::vector<double> cap(16, 1.0);
  cap[0] = cap[1] = cap[2] = cap[3] = 0.5;
  auto job = testing::paired_job({0.02, 0.02, 0.01, 0.01}, cap);
  job.bytes = 8u << 20;
  const auto moves = whole_assignment(four_numa(), job.window(1, 0), all_cores(four_numa()), {});
  const auto after = placed(job, moves);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(cap[after.core[r]], 1.0) << "rank " << r;
  EXPECT_EQ(four_numa().shared_cache_level(after.core[0], after.core[1]), 3);
  EXPECT_EQ(four_numa().shared_cache_level(after.core[2], after.core[3]), 3);
}

TEST(Assignment, GroupsFromTheByteMatrix) {
  auto job = testing::paired_job({0.01, 0.01, 0.01, 0.01, 0.01}, std::vector<double>(16, 1.0));
  job.bytes = 8u << 20;
  job.partner = {1, 0, 3, 2, -1};
  const auto groups = locality_groups(job.window(1, 0), 64.0 * 1024 * 1024);
  EXPECT_THAT(groups, ::testing::UnorderedElementsAre(std::vector<int>{0, 1},
                                                      std::vector<int>{2, 3}, std::vector<int>{4}));
}

TEST(Assignment, KeepNumaNodeKeepsRanksHome) {
  std::vector<double> cap(16, 1.0);
  cap[0] = 0.2;  // rank 0's core is bad, but the good cores of NUMA 0 are 1-3
  auto job = testing::paired_job({0.05, 0.01, 0.01, 0.01}, cap);
  job.core = {0, 1, 2, 3};
  AssignmentOptions o;
  o.keep_numa_node = true;
  const auto moves = whole_assignment(four_numa(), job.window(1, 0), all_cores(four_numa()), {}, o);
  ASSERT_FALSE(moves.empty());
  for (const auto& m : moves)
    EXPECT_EQ(four_numa().cores()[m.to_core].numa_node, four_numa().cores()[m.from_core].numa_node);
  const auto after = placed(job, moves);
  EXPECT_EQ(cap[after.core[0]], 1.0);
}

TEST(Assignment, PinnedAndDisallowedStayWhereTheyAre) {
  std::vector<double> cap(16, 1.0);
  cap[0] = 0.2;
  auto job = testing::paired_job({0.05, 0.01}, cap);
  EXPECT_TRUE(whole_assignment(four_numa(), job.window(1, 0), all_cores(four_numa()), {0}).empty());
  // Only core 0 and 1 allowed: the heavy rank takes core 1.
  const auto moves = whole_assignment(four_numa(), job.window(1, 0), std::vector<int>{0, 1}, {});
  EXPECT_THAT(moves, ::testing::UnorderedElementsAre(Move{0, 0, 1}, Move{1, 1, 0}));
}

}  // namespace
}  // namespace symmer::analysis
