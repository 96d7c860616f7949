// SPDX-License-Identifier: BSD-3-Clause
// Robust timing: one spike must not move the estimate (nor the split), a lasting change must
// re-train it quickly, and unmeasured devices get priors in the measured devices' unit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "schedule/split_math.hpp"
#include "schedule/time_estimator.hpp"

namespace {

using tsar::core::TimeEstimator;

TEST(TimeEstimator, PriorUntilMeasured) {
  TimeEstimator e;
  e.set_prior(2.0);
  EXPECT_FALSE(e.measured());
  EXPECT_EQ(e.estimate(), 2.0);
  e.add(1.0);
  EXPECT_TRUE(e.measured());
  EXPECT_EQ(e.estimate(), 1.0);
  e.add(0.0);  // not a measurement
  e.add(-1.0);
  EXPECT_EQ(e.samples(), 1);
}

TEST(TimeEstimator, OneSpikeDoesNotMoveTheEstimate) {
  TimeEstimator e;
  for (int i = 0; i < 5; ++i) e.add(1.0);
  e.add(100.0);
  EXPECT_EQ(e.estimate(), 1.0);
  e.add(1.0);
  e.add(0.01);  // and a dip
  EXPECT_EQ(e.estimate(), 1.0);
  EXPECT_EQ(e.retrains(), 0);
}

TEST(TimeEstimator, FirstSampleSpikeRecoversAtTheNextPass) {
  // Lower median: with two samples the faster wins, so a device whose very first pass was
  // slow is not starved afterwards.
  TimeEstimator e;
  e.add(50.0);
  e.add(1.0);
  EXPECT_EQ(e.estimate(), 1.0);
}

TEST(TimeEstimator, LastingChangeRetrainsWithinTwoPasses) {
  TimeEstimator e;
  for (int i = 0; i < 5; ++i) e.add(1.0);
  e.add(2.0);
  EXPECT_EQ(e.estimate(), 1.0);  // one pass at 2x: could be a spike
  e.add(2.0);
  EXPECT_EQ(e.estimate(), 2.0);  // two in a row: the device changed
  EXPECT_EQ(e.retrains(), 1);
  e.add(2.1);
  e.add(1.9);
  EXPECT_NEAR(e.estimate(), 2.0, 0.11);
}

TEST(TimeEstimator, SpikySequenceNeverCollapsesTheSplit) {
  // Two equal devices; device 0 has a 50x spike every 7th pass. The adaptive split after
  // every pass stays near 50/50: no pass sends (almost) everything to one device.
  TimeEstimator a, b;
  std::vector<std::int64_t> counts(2);
  for (int pass = 0; pass < 100; ++pass) {
    a.add(pass % 7 == 3 ? 50e-6 : 1e-6);
    b.add(1e-6 * (1.0 + 0.05 * std::sin(pass)));  // mild jitter
    const std::vector<double> tpi = {a.estimate(), b.estimate()};
    tsar::core::split_iterations(1000, tpi, counts);
    EXPECT_GT(counts[0], 400) << "pass " << pass;
    EXPECT_GT(counts[1], 400) << "pass " << pass;
  }
}

TEST(TimeEstimator, EstimateAndScatterAreThoseOfTheLastSamplesSorted) {
  // Noisy samples within the re-training factor, with repeats: after each, the estimate is the
  // lower median of the last kHistory samples and the scatter their spread over it, as a sort
  // of those samples gives them.
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> level(0, 6);
  TimeEstimator e;
  std::vector<double> all;
  for (int i = 0; i < 500; ++i) {
    const double sample = 1.0 + 0.05 * level(rng);
    e.add(sample);
    all.push_back(sample);
    const std::size_t kept = std::min<std::size_t>(all.size(), TimeEstimator::kHistory);
    std::vector<double> last(all.end() - static_cast<std::ptrdiff_t>(kept), all.end());
    std::sort(last.begin(), last.end());
    const double median = last[(kept - 1) / 2];
    ASSERT_EQ(e.estimate(), median) << "sample " << i;
    const double scatter =
        kept >= TimeEstimator::kScatterSamples ? (last.back() - last.front()) / median : 0.0;
    ASSERT_EQ(e.scatter(), scatter) << "sample " << i;
  }
}

TEST(EffectiveTimes, UnmeasuredDevicesUseScaledPriors) {
  // Priors are relative (peaks): 1 and 4. Device 0 measured 2 us per iteration, so device 1,
  // not measured yet, is predicted at 8 us, in the same unit.
  std::vector<TimeEstimator> e(3);
  e[0].set_prior(1.0);
  e[1].set_prior(4.0);
  e[2].set_prior(1.0);
  e[0].add(2e-6);
  const std::vector<unsigned char> active = {1, 1, 0};
  std::vector<double> t(3);
  std::vector<double> scratch;
  tsar::core::effective_times(e, active, t, scratch);
  EXPECT_DOUBLE_EQ(t[0], 2e-6);
  EXPECT_DOUBLE_EQ(t[1], 8e-6);
  EXPECT_TRUE(std::isinf(t[2]));
}

TEST(ConsistentPriors, PeakBasedFillsTheGapsInTheGivenUnit) {
  const auto p = tsar::core::consistent_priors(std::vector<double>{1.0, 1.0, 0.25},
                                               std::vector<double>{3e-6, 0.0, 0.0});
  EXPECT_DOUBLE_EQ(p[0], 3e-6);
  EXPECT_DOUBLE_EQ(p[1], 3e-6);
  EXPECT_DOUBLE_EQ(p[2], 0.75e-6);
  const auto q =
      tsar::core::consistent_priors(std::vector<double>{1.0, 2.0}, std::vector<double>{});
  EXPECT_EQ(q, (std::vector<double>{1.0, 2.0}));
}

}  // namespace
