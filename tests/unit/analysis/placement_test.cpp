// SPDX-License-Identifier: BSD-3-Clause
// A job's places: ranks as CPU sets, free places of their sizes inside the domain, and the
// CPUs a moved rank goes to (its threads keep their places). Synthetic node: 8 cores of 2
// hardware threads, core c = Linux CPUs 2c and 2c+1.
#include "symmer/analysis/placement.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <span>

#include "symmer/analysis/move.hpp"
#include "symmer/topology/node_model.hpp"

namespace symmer::analysis {
namespace {

using V = std::vector<int>;

topology::NodeModel node() { return topology::NodeModel::from_synthetic("pack:1 core:8 pu:2"); }

RankCpus rank(int local, V current, V launch, int threads = 0) {
  RankCpus r;
  r.local_rank = local;
  r.current = std::move(current);
  r.launch = std::move(launch);
  r.compute_threads = threads;
  r.last_cpu = r.current.empty() ? -1 : r.current.front();
  return r;
}

TEST(Placement, BoundRanksKeepTheirWholeSets) {
  const auto n = node();
  ASSERT_EQ(n.cores()[1].pus, (V{2, 3}));
  // Two hybrid ranks of two cores each, launched on cores 0-3 of the node.
  const std::vector<RankCpus> ranks = {rank(0, {0, 1, 2, 3}, {0, 1, 2, 3}),
                                       rank(1, {4, 5, 6, 7}, {4, 5, 6, 7})};
  const auto p = job_placement(ranks, n, Domain::kJob);
  EXPECT_EQ(p.rank_place.at(0), 0);
  EXPECT_EQ(p.rank_place.at(1), 2);
  EXPECT_EQ(p.places.at(0).cores, (V{0, 1}));
  EXPECT_EQ(p.places.at(0).threads, 2);
  EXPECT_EQ(p.places.at(2).cores, (V{2, 3}));
  // The domain is what the ranks were launched on: no free place outside it.
  EXPECT_EQ(p.domain, (V{0, 1, 2, 3}));
  EXPECT_EQ(p.places.size(), 2u);
}

TEST(Placement, FreePlacesHaveTheRanksSizeInsideTheDomain) {
  const auto n = node();
  // Launched on cores 0-5 (a cpuset of 12 CPUs), bound to two cores each.
  const V launch = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  const std::vector<RankCpus> ranks = {rank(0, {0, 1, 2, 3}, launch, 2),
                                       rank(1, {4, 5, 6, 7}, launch, 2)};
  const auto p = job_placement(ranks, n, Domain::kJob);
  EXPECT_EQ(p.domain, (V{0, 1, 2, 3, 4, 5}));
  ASSERT_EQ(p.places.count(4), 1u);
  EXPECT_EQ(p.places.at(4).cores, (V{4, 5}));
  EXPECT_EQ(p.places.size(), 3u);
  // Widened by the user: the whole node.
  const auto wide = job_placement(ranks, n, Domain::kNode);
  EXPECT_EQ(wide.domain.size(), 8u);
  EXPECT_EQ(wide.places.at(6).cores, (V{6, 7}));
}

TEST(Placement, ControlCoresOfARuntimeAreNeverFree) {
  const auto n = node();
  const V launch = {0, 1, 2, 3, 4, 5, 6, 7};
  auto r = rank(0, {0, 1}, launch, 1);
  r.runtime_control = {6};  // core 3
  const std::vector<RankCpus> ranks = {r};
  const auto p = job_placement(ranks, n, Domain::kJob);
  EXPECT_EQ(p.control_cores, V{3});
  EXPECT_EQ(p.places.count(3), 0u);
  EXPECT_EQ(p.places.count(1), 1u);
  EXPECT_EQ(p.places.count(2), 1u);
}

TEST(Placement, UnboundRanksFloatAndHybridOnesAreNotSqueezed) {
  const auto n = node();
  const V all = {0, 1, 2, 3, 4, 5, 6, 7};  // cores 0-3, every rank on all of them
  auto a = rank(0, all, all, 1);
  a.last_cpu = 4;  // core 2
  auto b = rank(1, all, all, 0);  // single-threaded as far as anyone knows
  b.last_cpu = 1;
  auto c = rank(2, all, all, 2);  // two OpenMP threads somewhere in the set
  const std::vector<RankCpus> ranks = {a, b, c};
  const auto p = job_placement(ranks, n, Domain::kJob);
  EXPECT_EQ(p.rank_place.at(0), 2);
  EXPECT_EQ(p.rank_place.at(1), 0);
  EXPECT_EQ(p.rank_place.count(2), 0u);  // left where the kernel puts it
  EXPECT_EQ(p.places.at(2).cores, V{2});
}

TEST(Placement, MovedRanksKeepTheirThreadsRelativePlaces) {
  const auto n = node();
  // Whole cores 0-1 to cores 4-5.
  EXPECT_EQ(target_cpus(V{0, 1, 2, 3}, V{4, 5}, n), (V{8, 9, 10, 11}));
  // One hardware thread of each core (OMP_PLACES=threads, one per core): the same thread of
  // the target cores.
  EXPECT_EQ(target_cpus(V{1, 3}, V{5, 4}, n), (V{9, 11}));
  // A rank that floated over more cores than the target has: every thread of the target.
  EXPECT_EQ(target_cpus(V{0, 1, 2, 3, 4, 5}, V{7}, n), (V{14, 15}));
  EXPECT_TRUE(target_cpus(V{0}, V{99}, n).empty());
  EXPECT_EQ(cores_of_cpus(V{3, 2, 9, 999}, n), (V{1, 4}));
  EXPECT_EQ(n.cpus_of_cores(V{4, 1}), (V{2, 3, 8, 9}));
}

// Where Linux numbers the packages' CPUs alternately (logical core 2 holds CPUs 1 and 5), the
// CPUs a move names are the cores' own, not the logical indices read as CPUs.
TEST(Placement, MovesNameTheCoresLinuxCpus) {
  const auto n = topology::NodeModel::from_synthetic("pack:2 core:2 pu:2(indexes=0,4,2,6,1,5,3,7)");
  EXPECT_EQ(cores_of_cpus(V{1}, n), V{2});
  EXPECT_EQ(n.cpus_of_cores(V{2}), (V{1, 5}));
  const Move mv{0, 0, 2};
  const auto j = to_json(std::span(&mv, 1), &n);
  EXPECT_EQ(j[0]["from_core"], 0);
  EXPECT_EQ(j[0]["to_core"], 2);
  EXPECT_EQ(j[0]["from_cpus"], "0,4");
  EXPECT_EQ(j[0]["to_cpus"], "1,5");
  EXPECT_EQ(to_string(std::span(&mv, 1), &n), "r0: CPUs 0,4 -> 1,5");
  EXPECT_EQ(to_string(std::span(&mv, 1)), "r0: L:0 -> L:2");
}

TEST(Placement, DomainNames) {
  EXPECT_EQ(parse_domain("job").value(), Domain::kJob);
  EXPECT_EQ(parse_domain("node").value(), Domain::kNode);
  EXPECT_FALSE(parse_domain("socket"));
  EXPECT_STREQ(to_string(Domain::kNode), "node");
}

}  // namespace
}  // namespace symmer::analysis
