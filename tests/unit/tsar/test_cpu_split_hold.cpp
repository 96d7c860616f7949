// SPDX-License-Identifier: BSD-3-Clause
// The CPU split hold: cores keep their previous counts while, by the new times, none of them
// would run more than kCpuHoldBand longer than the cores' balanced time; a real slowdown, a
// moved accelerator share or unusable times take the new split.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "schedule/cpu_split_hold.hpp"

namespace {

using tsar::core::hold_cpu_split;
using tsar::core::kCpuHoldBand;

using Counts = std::vector<std::int64_t>;
const std::vector<unsigned char> kAllCores(4, 1);

TEST(CpuSplitHold, NoiseWithinTheBandKeepsThePreviousCounts) {
  const Counts previous{40, 40, 40, 40};
  Counts proposed{37, 43, 41, 39};  // the split of times a few percent apart
  EXPECT_TRUE(
      hold_cpu_split(previous, proposed, std::vector<double>{1.08, 0.93, 0.97, 1.03}, kAllCores));
  EXPECT_EQ(proposed, previous);
}

TEST(CpuSplitHold, ACoreSlowerThanTheBandTakesTheNewSplit) {
  const Counts previous{40, 40, 40, 40};
  const Counts split{48, 48, 48, 16};  // core 3 runs at a third of the others' speed
  Counts proposed = split;
  EXPECT_FALSE(
      hold_cpu_split(previous, proposed, std::vector<double>{1.0, 1.0, 1.0, 3.0}, kAllCores));
  EXPECT_EQ(proposed, split);
}

TEST(CpuSplitHold, TheBandIsMeasuredAgainstTheBalancedTime) {
  // Two cores at times 1 and t: balanced time 2 * 50 / (1 + 1/t); core 1 runs 50 t.
  const Counts previous{50, 50};
  const double inside = 1.0 + 0.9 * kCpuHoldBand * 2.0;
  Counts proposed{45, 55};
  // 50 t <= (1 + band) * 100 / (1 + 1/t)  <=>  t (1 + 1/t) / 2 <= 1 + band  <=>  t <= 1 + 2 band
  EXPECT_TRUE(hold_cpu_split(previous, proposed, std::vector<double>{1.0, inside},
                             std::vector<unsigned char>{1, 1}));
  proposed = {45, 55};
  const double outside = 1.0 + 1.1 * kCpuHoldBand * 2.0;
  EXPECT_FALSE(hold_cpu_split(previous, proposed, std::vector<double>{1.0, outside},
                              std::vector<unsigned char>{1, 1}));
  EXPECT_EQ(proposed, (Counts{45, 55}));
}

TEST(CpuSplitHold, OnlyTheCoresAreHeldAndOnlyWhileTheOthersKeepTheirCounts) {
  const std::vector<unsigned char> pooled{1, 1, 1, 0};  // device 3: an accelerator
  const std::vector<double> tpi{1.0, 1.05, 0.95, 0.1};
  const Counts previous{30, 30, 30, 110};
  Counts proposed{29, 31, 30, 110};
  EXPECT_TRUE(hold_cpu_split(previous, proposed, tpi, pooled));
  EXPECT_EQ(proposed, previous);
  Counts moved{25, 25, 25, 125};  // the accelerator's share grew: the cores' total changed
  EXPECT_FALSE(hold_cpu_split(previous, moved, tpi, pooled));
  EXPECT_EQ(moved, (Counts{25, 25, 25, 125}));
}

TEST(CpuSplitHold, UnusableInputsTakeTheNewSplit) {
  const Counts previous{40, 40};
  Counts proposed{30, 50};
  const std::vector<unsigned char> two(2, 1);
  EXPECT_FALSE(hold_cpu_split(previous, proposed, std::vector<double>{1.0, 0.0}, two));
  EXPECT_FALSE(hold_cpu_split(
      previous, proposed, std::vector<double>{1.0, std::numeric_limits<double>::infinity()}, two));
  EXPECT_FALSE(hold_cpu_split(Counts{40, 40, 0}, proposed, std::vector<double>{1.0, 1.0}, two));
  EXPECT_FALSE(hold_cpu_split(previous, proposed, std::vector<double>{1.0, 1.0},
                              std::vector<unsigned char>{1, 0}));  // one core: nothing to hold
  EXPECT_EQ(proposed, (Counts{30, 50}));
}

}  // namespace
