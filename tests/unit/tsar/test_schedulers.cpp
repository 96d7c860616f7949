// SPDX-License-Identifier: BSD-3-Clause
// Schedulers as pure logic: fed synthetic times (no clocks, no threads), every schedule must
// cover each pass exactly once, and each must split the way its definition says.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "schedule/chunk_schedulers.hpp"
#include "schedule/scheduler.hpp"
#include "schedule/split_math.hpp"
#include "schedule/time_estimator.hpp"

namespace {

using namespace tsar::core;
constexpr double kInf = std::numeric_limits<double>::infinity();

struct SimulatedPass {
  std::vector<std::vector<Range>> ranges;  // per worker
  int sub_passes = 0;
};

// Runs one pass of `n` on a scheduler the way Region does, with workers of true speeds `p`
// taking chunks in simulated time order; feeds the estimators like Region does.
SimulatedPass simulate(Scheduler& s, std::int64_t n, std::vector<TimeEstimator>& est,
                       const std::vector<double>& p) {
  const auto workers = p.size();
  std::vector<unsigned char> active(workers);
  for (std::size_t w = 0; w < workers; ++w) active[w] = std::isfinite(p[w]) ? 1 : 0;
  SimulatedPass out;
  out.ranges.resize(workers);
  std::vector<double> tpi(workers), scratch;
  effective_times(est, active, tpi, scratch);
  SubPassPlan plan;
  s.begin_pass(n, tpi, plan);
  for (;;) {
    ++out.sub_passes;
    std::vector<std::int64_t> iters(workers, 0);
    if (!plan.chunked) {
      std::int64_t at = plan.lo;
      for (std::size_t w = 0; w < workers; ++w) {
        out.ranges[w].push_back({at, at + plan.counts[w]});
        iters[w] = plan.counts[w];
        at += plan.counts[w];
      }
      EXPECT_EQ(at, plan.hi);
    } else {
      ChunkQueue q;
      q.reset(plan.lo, plan.hi);
      std::vector<double> clock(workers, 0.0);
      std::vector<ChunkTiming> last(workers);
      std::vector<bool> done(workers, false);
      for (std::size_t w = 0; w < workers; ++w) done[w] = !active[w];
      for (;;) {  // the worker whose clock is earliest takes next
        std::size_t w = workers;
        for (std::size_t k = 0; k < workers; ++k)
          if (!done[k] && (w == workers || clock[k] < clock[w])) w = k;
        if (w == workers) break;
        Range r;
        if (s.take_chunk(static_cast<int>(w), last[w], q, r) != ChunkQueue::Result::kSuccess) {
          done[w] = true;
          continue;
        }
        out.ranges[w].push_back(r);
        iters[w] += r.size();
        last[w] = {r.size(), static_cast<double>(r.size()) * p[w] + 1e-6};
        clock[w] += last[w].seconds;
      }
    }
    for (std::size_t w = 0; w < workers; ++w)
      if (active[w] && iters[w] > 0) est[w].add(p[w] + 1e-6 / static_cast<double>(iters[w]));
    effective_times(est, active, tpi, scratch);
    if (!s.next_sub_pass(tpi, plan)) break;
  }
  return out;
}

void expect_exact_cover(const SimulatedPass& pass, std::int64_t n) {
  std::vector<int> seen(static_cast<std::size_t>(n), 0);
  for (const auto& list : pass.ranges)
    for (const Range& r : list) {
      ASSERT_GE(r.begin, 0);
      ASSERT_LE(r.end, n);
      for (auto i = r.begin; i < r.end; ++i) seen[static_cast<std::size_t>(i)]++;
    }
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_EQ(seen[static_cast<std::size_t>(i)], 1) << "iteration " << i;
}

std::vector<TimeEstimator> estimators(const std::vector<double>& priors) {
  std::vector<TimeEstimator> e(priors.size());
  for (std::size_t w = 0; w < priors.size(); ++w) e[w].set_prior(priors[w]);
  return e;
}

std::int64_t total(const std::vector<Range>& list) {
  std::int64_t t = 0;
  for (const auto& r : list) t += r.size();
  return t;
}

const char* kAllSchedules[] = {"static",  "adaptive",     "split:4",       "quick:4", "chunk",
                               "chunk:7", "chunk-static", "chunk-dynamic", "hybrid",  "hguided"};

TEST(Schedulers, EverySchedulerCoversEveryPassExactlyOnce) {
  const std::vector<double> speeds = {1e-6, 3e-6, 1e-6, kInf, 10e-6};
  for (const char* name : kAllSchedules) {
    for (std::int64_t n : {0, 1, 3, 4, 5, 97, 1000, 10007}) {
      auto s = make_scheduler(parse_schedule(name), static_cast<int>(speeds.size()));
      auto est = estimators({1, 1, 1, 1, 1});
      for (int pass = 0; pass < 3; ++pass) {
        SCOPED_TRACE(std::string(name) + " n=" + std::to_string(n) + " pass " +
                     std::to_string(pass));
        const auto sim = simulate(*s, n, est, speeds);
        expect_exact_cover(sim, n);
        EXPECT_EQ(total(sim.ranges[3]), 0);  // the retired worker never gets work
      }
    }
  }
}

TEST(Schedulers, ARatioPlanFromRepeatedInputsEqualsAFreshSplit) {
  // ratio_plan keeps the counts when n and the times' ratios repeat: whatever the sequence
  // of inputs, each plan must be the split of its own inputs -- times scaled by one factor
  // (cores planned at a common rate that moved), one time that kept its value while the
  // others scaled, a device sitting out (an infinite time).
  const std::vector<std::vector<double>> times = {
      {1.0, 2.0, 4.0},  {1.0, 2.0, 4.0},   {1.0, 2.5, 4.0},  {1.0, 2.0, 4.0},  {2.0, 4.0, 8.0},
      {3.0, 6.0, 12.0}, {6.0, 12.0, 12.0}, {1.0, kInf, 4.0}, {2.0, kInf, 8.0}, {2.0, 4.0, 8.0},
      {kInf, 1.0, 1.0}, {kInf, 2.0, 2.0},  {3.0, 1.0, 1.0}};
  SubPassPlan plan;
  for (const std::int64_t n : {1000, 1000, 999, 1000, 0, 7}) {
    for (const auto& tpi : times) {
      ratio_plan(10, 10 + n, tpi, plan);
      std::vector<std::int64_t> fresh(tpi.size());
      split_iterations(n, tpi, fresh);
      EXPECT_EQ(plan.counts, fresh) << "n = " << n;
      EXPECT_EQ(plan.lo, 10);
      EXPECT_EQ(plan.hi, 10 + n);
      EXPECT_FALSE(plan.chunked);
      plan.counts.back() += 1;  // changed by its user (split hysteresis): planned again
      ratio_plan(10, 10 + n, tpi, plan);
      EXPECT_EQ(plan.counts, fresh);
    }
  }
}

TEST(Schedulers, StaticKeepsItsFirstSplit) {
  auto s = make_scheduler(parse_schedule("static"), 2);
  SubPassPlan a, b;
  s->begin_pass(300, std::vector<double>{1, 2}, a);
  EXPECT_EQ(a.counts, (std::vector<std::int64_t>{200, 100}));
  s->begin_pass(300, std::vector<double>{5, 1}, b);  // measurements are ignored
  EXPECT_EQ(b.counts, a.counts);
  EXPECT_FALSE(s->adapts());
}

TEST(Schedulers, AdaptiveTrainsOnePassThenSplitsByMeasuredSpeed) {
  auto s = make_scheduler(parse_schedule("adaptive"), 3);
  auto est = estimators({1, 1, 1});  // defaults: equal
  const std::vector<double> truth = {1e-6, 2e-6, 4e-6};
  auto first = simulate(*s, 7000, est, truth);
  EXPECT_EQ(total(first.ranges[0]), 2334);  // training pass: the default (equal) split
  auto second = simulate(*s, 7000, est, truth);
  EXPECT_NEAR(static_cast<double>(total(second.ranges[0])), 4000, 2);
  EXPECT_NEAR(static_cast<double>(total(second.ranges[1])), 2000, 2);
  EXPECT_NEAR(static_cast<double>(total(second.ranges[2])), 1000, 2);
  EXPECT_EQ(second.sub_passes, 1);
}

TEST(Schedulers, SplitAdaptsBetweenSubPasses) {
  auto s = make_scheduler(parse_schedule("split:4"), 2);
  auto est = estimators({1, 1});
  const auto sim = simulate(*s, 10, est, {1e-6, 3e-6});
  EXPECT_EQ(sim.sub_passes, 4);
  ASSERT_EQ(sim.ranges[0].size(), 4u);
  EXPECT_EQ(sim.ranges[0][0].begin, 0);  // sub-pass sizes 3, 3, 2, 2
  EXPECT_EQ(sim.ranges[1][1].end, 6);
  EXPECT_EQ(sim.ranges[0][0].size(), 2);  // first sub-pass: default split
  EXPECT_EQ(sim.ranges[0][1].size() + sim.ranges[1][1].size(), 3);
  EXPECT_GE(sim.ranges[0][1].size(), 2);           // then 3:1 by measured speed
  auto more = simulate(*s, 5, est, {1e-6, 3e-6});  // fewer iterations than div
  EXPECT_EQ(more.sub_passes, 4);
}

TEST(Schedulers, QuickTrainsOnASlicedFirstPassOnly) {
  auto s = make_scheduler(parse_schedule("quick:10"), 2);
  auto est = estimators({1, 1});
  const auto first = simulate(*s, 1000, est, {1e-6, 4e-6});
  EXPECT_EQ(first.sub_passes, 2);
  EXPECT_EQ(first.ranges[0][0].size() + first.ranges[1][0].size(), 100);
  EXPECT_NEAR(static_cast<double>(first.ranges[0][1].size()), 720,
              5);  // the rest, ~4:1 after training
  const auto second = simulate(*s, 1000, est, {1e-6, 4e-6});
  EXPECT_EQ(second.sub_passes, 1);
}

TEST(Schedulers, ChunkStaticScalesChunkSizeBySpeed) {
  PerDeviceChunkScheduler s(100, 3, /*dynamic=*/false);
  SubPassPlan plan;
  s.begin_pass(100000, std::vector<double>{1, 2, 4}, plan);
  EXPECT_EQ(s.chunk_size(0), 171);  // 100 * 3 * 4/7
  EXPECT_EQ(s.chunk_size(1), 86);
  EXPECT_EQ(s.chunk_size(2), 43);
  EXPECT_FALSE(s.adapts());
}

TEST(Schedulers, ChunkDynamicGrowsChunksTooShortToAmortiseDispatch) {
  PerDeviceChunkScheduler s(1, 2, /*dynamic=*/true);
  SubPassPlan plan;
  s.begin_pass(1'000'000, std::vector<double>{1e-8, 1e-8}, plan);
  ChunkQueue q;
  q.reset(0, 1'000'000);
  Range r;
  ChunkTiming last{};
  for (int k = 0; k < 5; ++k) {
    ASSERT_EQ(s.take_chunk(0, last, q, r), ChunkQueue::Result::kSuccess);
    last = {r.size(), static_cast<double>(r.size()) * 1e-8};
  }
  // 10 ns per iteration: a 20 us chunk is 2000 iterations.
  EXPECT_GE(s.chunk_size(0), 2000);
}

TEST(Schedulers, ChunkDynamicKeepsTheTailBalanced) {
  // A fast and a 10x slower worker with huge chunk sizes: near the end, no chunk exceeds half
  // of the worker's fair share of what remains.
  PerDeviceChunkScheduler s(100000, 2, /*dynamic=*/true);
  SubPassPlan plan;
  s.begin_pass(1000, std::vector<double>{1e-6, 10e-6}, plan);
  ChunkQueue q;
  q.reset(0, 1000);
  Range r;
  ASSERT_EQ(s.take_chunk(1, {}, q, r), ChunkQueue::Result::kSuccess);
  EXPECT_LE(r.size(), 1000 / 11 / 2 + 1);
}

TEST(Schedulers, HGuidedShrinksChunksWithTheRemainder) {
  HGuidedScheduler s(1, 2);
  SubPassPlan plan;
  s.begin_pass(1000, std::vector<double>{1.0, 1.0}, plan);
  ChunkQueue q;
  q.reset(0, 1000);
  Range a, b;
  ASSERT_EQ(s.take_chunk(0, {}, q, a), ChunkQueue::Result::kSuccess);
  ASSERT_EQ(s.take_chunk(1, {}, q, b), ChunkQueue::Result::kSuccess);
  EXPECT_EQ(a.size(), 250);  // 1000 * 0.5 / 2
  EXPECT_EQ(b.size(), 188);  // ceil(750 * 0.5 / 2)
}

TEST(Schedulers, HybridLearnsWithChunksThenRunsAdaptive) {
  auto s = make_scheduler(parse_schedule("hybrid"), 2);
  auto est = estimators({1, 1});
  const auto first = simulate(*s, 10000, est, {1e-6, 3e-6});
  EXPECT_GT(first.ranges[0].size(), 1u);  // chunks
  const auto second = simulate(*s, 10000, est, {1e-6, 3e-6});
  ASSERT_EQ(second.ranges[0].size(), 1u);  // one range each: adaptive
  EXPECT_NEAR(static_cast<double>(total(second.ranges[0])), 7500, 20);
}

}  // namespace
