// SPDX-License-Identifier: BSD-3-Clause
// Metric plug-ins on fixture topologies: given these figures on this machine shape, these
// proposals (or none).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "symmer/analysis/capability_metric.hpp"
#include "symmer/analysis/compute_model.hpp"
#include "symmer/analysis/idleness_metric.hpp"
#include "symmer/analysis/locality_metric.hpp"
#include "symmer/analysis/metric.hpp"
#include "symmer/analysis/outofsync_metric.hpp"
#include "symmer/topology/node_model.hpp"
#include "synthetic_job.hpp"

namespace symmer::analysis {
namespace {

using testing::SyntheticJob;
using topology::NodeModel;

// Evidence as the analyzer builds it: four steady windows, split in halves.
struct Evidence {
  std::vector<WindowSample> windows;
  WindowSample all, first, second;
  std::vector<int> free_cores;

  Evidence(const SyntheticJob& job, const NodeModel& node, double window_s = 0.2) {
    for (int i = 0; i < 4; ++i)
      windows.push_back(job.window(window_s, static_cast<std::uint64_t>(i * window_s * 1e9)));
    all = aggregate(windows);
    first = aggregate(std::span(windows).first(2));
    second = aggregate(std::span(windows).last(2));
    for (const auto& c : node.cores())
      if (std::find(job.core.begin(), job.core.end(), c.index) == job.core.end())
        free_cores.push_back(c.index);
  }
  MetricContext context(const NodeModel& node) const {
    return {node, all, &first, &second, free_cores};
  }
};

SyntheticJob apply(SyntheticJob job, const std::vector<Move>& moves) {
  for (const auto& m : moves) job.core[m.local_rank] = m.to_core;
  return job;
}

const NodeModel& two_cores() {  // this machine's shape
  static const auto node = NodeModel::from_synthetic("pack:1 l3:1 core:2 pu:1");
  return node;
}
const NodeModel& four_numa() {  // 2 packages x 2 NUMA nodes x 4 cores, one L3 per NUMA node
  static const auto node = NodeModel::from_synthetic("pack:2 numa:2 l3:1 core:4 pu:1");
  return node;
}

// --- capability -----------------------------------------------------------------------------

// One rank in a phase without MPI calls (an application's setup) on a half-taken core, a clean
// core free: its silent time is computing there, and it moves without waiting for a call.
TEST(CapabilityMetric, SilentRankOnADegradedCoreMovesToAFreeCleanCore) {
  const auto& node = two_cores();
  const auto job = testing::paired_job({0.010}, {0.5, 1.0});
  Evidence ev(job, node);
  for (WindowSample* w : {&ev.all, &ev.first, &ev.second})
    for (auto& r : w->ranks) {
      r.silent_ns = w->duration_ns;
      r.compute_ns = r.idle_ns = r.calls = 0;
    }
  const auto result = CapabilityMetric().evaluate(ev.context(node));
  EXPECT_TRUE(result.symptom.present);
  ASSERT_FALSE(result.proposals.empty());
  const Proposal& p = result.proposals.front();
  ASSERT_EQ(p.moves.size(), 1u);
  EXPECT_EQ(p.moves[0].to_core, 1);
  EXPECT_NEAR(p.gain, 0.5, 0.01);
  EXPECT_GT(p.confidence, 0.9);
}

// Two ranks on half-taken cores, two clean cores free: the job ends with its last rank, so
// one move fixing both is preferred to either alone.
TEST(CapabilityMetric, TwoDegradedRanksMoveTogether) {
  const auto node = NodeModel::from_synthetic("pack:1 l3:1 core:6 pu:1");
  const auto job = testing::paired_job({0.01, 0.01, 0.01, 0.01}, {0.5, 1, 1, 0.5, 1, 1});
  const Evidence ev(job, node);
  const auto result = CapabilityMetric().evaluate(ev.context(node));
  ASSERT_FALSE(result.proposals.empty());
  const Proposal& p = result.proposals.front();
  ASSERT_EQ(p.moves.size(), 2u);
  std::set<int> moved, targets;
  for (const auto& m : p.moves) moved.insert(m.local_rank), targets.insert(m.to_core);
  EXPECT_EQ(moved, (std::set<int>{0, 3}));
  EXPECT_EQ(targets, (std::set<int>{4, 5}));
  for (const auto& q : result.proposals)
    if (q.moves.size() == 1) EXPECT_LT(q.gain, p.gain);
}

// --- idleness -------------------------------------------------------------------------------

TEST(IdlenessMetric, SwapsTheBusyRankOffTheNoisyCore) {
  // Thesis 3.4.1 idleness benchmark with ratio 4 on two cores, core 0 at 50% noise.
  const auto job = testing::paired_job({0.040, 0.010}, {0.5, 1.0});
  const Evidence ev(job, two_cores());
  const auto result = IdlenessMetric().evaluate(ev.context(two_cores()));
  ASSERT_TRUE(result.symptom.present);
  ASSERT_FALSE(result.proposals.empty());
  const Proposal& best = result.proposals.front();
  EXPECT_THAT(best.moves, ::testing::UnorderedElementsAre(Move{0, 0, 1}, Move{1, 1, 0}));
  // The model's prediction matches the reference job's runtime after the swap.
  const double expected = 1.0 - apply(job, best.moves).runtime(100) / job.runtime(100);
  EXPECT_NEAR(best.gain, expected, 0.01);
  EXPECT_GT(best.confidence, 0.9);  // steady windows, full coverage, many calls
  EXPECT_EQ(best.metric, "idleness");
}

TEST(IdlenessMetric, BalancedJobOnEqualCoresShowsNothing) {
  const auto job = testing::paired_job({0.010, 0.010, 0.010, 0.010}, {1, 1, 1, 1});
  const auto node = NodeModel::from_synthetic("pack:1 l3:1 core:4 pu:1");
  const Evidence ev(job, node);
  const auto result = IdlenessMetric().evaluate(ev.context(node));
  EXPECT_FALSE(result.symptom.present);
  EXPECT_TRUE(result.proposals.empty());
}

TEST(IdlenessMetric, SymmetricJobOnANoisyCoreHasNoSwapThatHelps) {
  // Both ranks need the same: whoever sits on the noisy core is the slow one.
  const auto job = testing::paired_job({0.010, 0.010}, {0.5, 1.0});
  const Evidence ev(job, two_cores());
  const auto result = IdlenessMetric().evaluate(ev.context(two_cores()));
  EXPECT_TRUE(result.symptom.present);
  EXPECT_TRUE(result.proposals.empty());
}

TEST(IdlenessMetric, PairsWhoseRanksMakeUnequalCallsPerIterationStillHaveNoSwapThatHelps) {
  // As the last, but the ranks exchange data every iteration and the one on the clean core
  // makes a third more calls per iteration (symmer-outofsync's sender posts, waits and receives
  // a token where the ready path receives and sends): the pair advances together, so its
  // ranks' compute per call says nothing of their work. Read per call, the rank on the noisy
  // core looked a third heavier, and the swap and its reverse each 25-30% better (a 2-rank run
  // swapped back and forth every hold-off).
  auto job = testing::paired_job({0.010, 0.010}, {0.5, 1.0});
  job.bytes = 1 << 20;
  Evidence ev(job, two_cores());
  for (auto& w : ev.windows) w.ranks[1].calls = w.ranks[1].calls * 4 / 3;
  ev.all = aggregate(ev.windows);
  ev.first = aggregate(std::span(ev.windows).first(2));
  ev.second = aggregate(std::span(ev.windows).last(2));
  const auto result = IdlenessMetric().evaluate(ev.context(two_cores()));
  EXPECT_TRUE(result.symptom.present);
  EXPECT_TRUE(result.proposals.empty()) << "predicted " << result.proposals.front().gain;
}

TEST(IdlenessMetric, UsesAFreeCleanCoreWhenThereIsOne) {
  // Two equal ranks, one on a noisy core, two idle clean cores: move it there.
  const auto node = NodeModel::from_synthetic("pack:1 l3:1 core:4 pu:1");
  const auto job = testing::paired_job({0.010, 0.010}, {0.5, 1.0, 1.0, 1.0});
  const Evidence ev(job, node);
  const auto result = IdlenessMetric().evaluate(ev.context(node));
  ASSERT_FALSE(result.proposals.empty());
  const auto& moves = result.proposals.front().moves;
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].local_rank, 0);
  EXPECT_THAT(moves[0].to_core, ::testing::AnyOf(2, 3));
  EXPECT_NEAR(result.proposals.front().gain,
              1.0 - apply(job, moves).runtime(100) / job.runtime(100), 0.01);
}

TEST(IdlenessMetric, PrefersAFreeCleanCoreToASwapOfEqualGain) {
  // The ratio-4 job of the device benchmark: rank 0 on noisy core 0, two clean cores free.
  // Swapping 0 and 1 and moving 0 to a free core shorten the critical path alike, but the
  // swap would put rank 1 on the noisy core: the single move comes first.
  const auto node = NodeModel::from_synthetic("pack:1 l3:1 core:4 pu:1");
  const auto job = testing::paired_job({0.040, 0.010}, {0.5, 1.0, 1.0, 1.0});
  const Evidence ev(job, node);
  const auto result = IdlenessMetric().evaluate(ev.context(node));
  ASSERT_GE(result.proposals.size(), 2u);
  const auto swap = std::find_if(result.proposals.begin(), result.proposals.end(),
                                 [](const Proposal& p) { return p.moves.size() == 2; });
  ASSERT_NE(swap, result.proposals.end());
  const Proposal& best = result.proposals.front();
  ASSERT_EQ(best.moves.size(), 1u);
  EXPECT_EQ(best.moves[0].local_rank, 0);
  EXPECT_THAT(best.moves[0].to_core, ::testing::AnyOf(2, 3));
  EXPECT_NEAR(best.gain, swap->gain, 0.01);  // a tie on the model: the rule decided
}

TEST(IdlenessMetric, EightRanksPutTheHeaviestOnTheBestCore) {
  // 16-core fixture, ranks 0-7 on cores 0-7; core 2 has lost 60% to interrupts.
  std::vector<double> cap(16, 1.0);
  cap[2] = 0.4;
  auto job = testing::paired_job({0.01, 0.01, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01}, cap);
  const Evidence ev(job, four_numa());
  const auto result = IdlenessMetric().evaluate(ev.context(four_numa()));
  ASSERT_FALSE(result.proposals.empty());
  const auto after = apply(job, result.proposals.front().moves);
  EXPECT_EQ(cap[static_cast<std::size_t>(after.core[2])], 1.0);  // rank 2 left the noisy core
  EXPECT_LT(after.runtime(100), job.runtime(100) * 0.5);
}

TEST(IdlenessMetric, InconsistentHalvesLowerConfidence) {
  const auto job = testing::paired_job({0.040, 0.010}, {0.5, 1.0});
  Evidence ev(job, two_cores());
  // The older half saw a balanced job: the imbalance is new, not yet steady.
  auto calm = testing::paired_job({0.010, 0.010}, {1.0, 1.0});
  ev.first = aggregate(std::vector<WindowSample>{calm.window(0.2, 0), calm.window(0.2, 0)});
  const auto result = IdlenessMetric().evaluate(ev.context(two_cores()));
  ASSERT_FALSE(result.proposals.empty());
  EXPECT_LT(result.proposals.front().confidence, 0.1);
}

TEST(IdlenessMetric, UncoveredWindowLowersConfidence) {
  // A rank sat in one long phase the counters have not credited: coverage 25%.
  const auto job = testing::paired_job({0.040, 0.010}, {0.5, 1.0});
  Evidence ev(job, two_cores());
  ev.all.duration_ns *= 4;
  ev.first.duration_ns *= 4;
  ev.second.duration_ns *= 4;
  const auto result = IdlenessMetric().evaluate(ev.context(two_cores()));
  ASSERT_FALSE(result.proposals.empty());
  EXPECT_LT(result.proposals.front().confidence, 0.3);
}

// --- out-of-sync ----------------------------------------------------------------------------

TEST(OutOfSyncMetric, PairsPeersOnCoresOfEqualCapability) {
  // Two pairs, each split across a clean and a noisy core: every pair is out of sync.
  const auto node = NodeModel::from_synthetic("pack:1 l3:1 core:4 pu:1");
  auto job = testing::paired_job({0.02, 0.02, 0.02, 0.02}, {1.0, 0.5, 0.5, 1.0});
  job.outofsync = true;
  ASSERT_TRUE(job.desynchronised(0));
  const Evidence ev(job, node);
  const auto result = OutOfSyncMetric().evaluate(ev.context(node));
  ASSERT_TRUE(result.symptom.present);
  ASSERT_FALSE(result.proposals.empty());
  const auto after = apply(job, result.proposals.front().moves);
  for (int r = 0; r < 4; ++r) EXPECT_FALSE(after.desynchronised(r)) << "rank " << r;
  EXPECT_LT(after.runtime(100), job.runtime(100));
  EXPECT_GT(result.proposals.front().confidence, 0.9);
}

TEST(OutOfSyncMetric, TwoRanksOnTwoUnequalCoresHaveNoRemedy) {
  auto job = testing::paired_job({0.02, 0.02}, {1.0, 0.5});
  job.outofsync = true;
  const Evidence ev(job, two_cores());
  const auto result = OutOfSyncMetric().evaluate(ev.context(two_cores()));
  EXPECT_TRUE(result.symptom.present);
  EXPECT_TRUE(result.proposals.empty());  // a swap keeps the mismatch
}

TEST(OutOfSyncMetric, WaitsNotCausedByCapabilityAreReportedNotMoved) {
  auto job = testing::paired_job({0.02, 0.02}, {1.0, 1.0});
  const Evidence ev(job, two_cores());
  WindowSample w = ev.all;
  w.ranks[0].outofsync_compute_ns = w.duration_ns / 4;
  w.ranks[1].late_sender_wait_local[0] = w.duration_ns / 4;
  const MetricContext context{two_cores(), w, nullptr, nullptr, {}};
  const auto result = OutOfSyncMetric().evaluate(context);
  EXPECT_TRUE(result.symptom.present);
  EXPECT_FALSE(result.symptom.evidence["pairs"][0]["capability_caused"].get<bool>());
  EXPECT_TRUE(result.proposals.empty());
}

TEST(OutOfSyncMetric, InSyncJobShowsNothing) {
  auto job = testing::paired_job({0.02, 0.02, 0.02, 0.02}, {1.0, 1.0, 0.5, 0.5});
  job.outofsync = true;  // buffered sends, but every pair is on equal cores
  const auto node = NodeModel::from_synthetic("pack:1 l3:1 core:4 pu:1");
  const Evidence ev(job, node);
  const auto result = OutOfSyncMetric().evaluate(ev.context(node));
  EXPECT_FALSE(result.symptom.present);
  EXPECT_TRUE(result.proposals.empty());
}

// --- locality -------------------------------------------------------------------------------

SyntheticJob split_pairs() {
  // Pairs (0,1) and (2,3) exchange 4 MiB per iteration; each pair is split across NUMA nodes:
  // rank 0 on core 0, rank 1 on core 4, rank 2 on core 1, rank 3 on core 5.
  auto job = testing::paired_job({0.005, 0.005, 0.005, 0.005}, std::vector<double>(16, 1.0));
  job.core = {0, 4, 1, 5};
  job.bytes = 4u << 20;
  return job;
}

TEST(LocalityMetric, BringsHeavyPairsUnderOneCache) {
  const auto job = split_pairs();
  const Evidence ev(job, four_numa());
  const auto result = LocalityMetric().evaluate(ev.context(four_numa()));
  ASSERT_TRUE(result.symptom.present);
  EXPECT_EQ(result.symptom.evidence["split_heavy_pairs"].size(), 2u);
  ASSERT_FALSE(result.proposals.empty());
  const auto after = apply(job, result.proposals.front().moves);
  // One swap fixes both pairs: each pair ends under one L3.
  EXPECT_EQ(result.proposals.front().moves.size(), 2u);
  EXPECT_EQ(four_numa().shared_cache_level(after.core[0], after.core[1]), 3);
  EXPECT_EQ(four_numa().shared_cache_level(after.core[2], after.core[3]), 3);
}

TEST(LocalityMetric, WithoutCountersSaysSoAndIsLessSure) {
  auto job = split_pairs();
  const Evidence without(job, four_numa());
  job.cache_misses = 1000;
  const Evidence with(job, four_numa());
  const auto a = LocalityMetric().evaluate(without.context(four_numa()));
  const auto b = LocalityMetric().evaluate(with.context(four_numa()));
  ASSERT_FALSE(a.proposals.empty());
  ASSERT_FALSE(b.proposals.empty());
  EXPECT_EQ(a.symptom.evidence["cache_misses"], "unavailable: per-peer bytes alone");
  EXPECT_EQ(b.symptom.evidence["cache_misses"], "available");
  EXPECT_NEAR(a.proposals.front().confidence / b.proposals.front().confidence,
              LocalityMetric::kBytesOnlyConfidence, 1e-9);
}

TEST(LocalityMetric, PairsSharingACacheShowNothing) {
  auto job = split_pairs();
  job.core = {0, 1, 4, 5};
  const Evidence ev(job, four_numa());
  const auto result = LocalityMetric().evaluate(ev.context(four_numa()));
  EXPECT_FALSE(result.symptom.present);
  EXPECT_TRUE(result.proposals.empty());
}

TEST(LocalityMetric, LightTrafficIsNoSymptom) {
  auto job = split_pairs();
  job.bytes = 1024;  // 1 KiB per iteration: far below the heavy rate
  const Evidence ev(job, four_numa());
  EXPECT_FALSE(LocalityMetric().evaluate(ev.context(four_numa())).symptom.present);
}

TEST(LocalityMetric, OffNodeTrafficMovesTowardTheProtocolCore) {
  // Core 8 does the interrupt processing; rank 0 sends heavily off-node from core 0.
  auto job = testing::paired_job({0.005, 0.005}, std::vector<double>(16, 1.0));
  job.core = {0, 1};
  job.remote_bytes = 8u << 20;
  const Evidence ev0(job, four_numa());
  Evidence ev = ev0;
  for (WindowSample* w : {&ev.all, &ev.first, &ev.second}) {
    w->core_irq_share.assign(16, 0.0);
    w->core_irq_share[8] = 0.3;
  }
  const auto result = LocalityMetric().evaluate(ev.context(four_numa()));
  // Both ranks send off-node; no local pair is split, but moves toward core 8's L3 pay.
  const double g = LocalityMetric().predict(ev.context(four_numa()), std::vector<Move>{{0, 0, 9}});
  EXPECT_GT(g, 0.0);
  EXPECT_FALSE(result.symptom.present);  // the symptom is about split pairs only
}

// --- cross-metric predictions ---------------------------------------------------------------

TEST(Metrics, EachPricesTheOthersMoves) {
  const auto job = testing::paired_job({0.040, 0.010}, {0.5, 1.0});
  const Evidence ev(job, two_cores());
  const std::vector<Move> swap = {{0, 0, 1}, {1, 1, 0}};
  EXPECT_GT(IdlenessMetric().predict(ev.context(two_cores()), swap), 0.3);
  EXPECT_DOUBLE_EQ(LocalityMetric().predict(ev.context(two_cores()), swap), 0.0);  // no traffic
  EXPECT_DOUBLE_EQ(OutOfSyncMetric().predict(ev.context(two_cores()), swap), 0.0);
}

TEST(Metrics, RegistryKnowsTheThreeByName) {
  for (auto name : metric_names()) {
    const auto m = make_metric(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->name(), name);
  }
  EXPECT_EQ(make_metric("nonsense"), nullptr);
}

}  // namespace
}  // namespace symmer::analysis
