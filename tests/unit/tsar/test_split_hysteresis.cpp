// SPDX-License-Identifier: BSD-3-Clause
// Split hysteresis (schedule/split_hysteresis.hpp) against hand-computed predictions: a move
// happens exactly when its gain over the payback passes beats the copies of the iterations
// that change owner, the payback passes grow with the time the split has held, gains within
// the noise band or the times' own scatter never move data, a device's data waits for its settled
// times, and devices that move nothing still re-split their own part.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "schedule/split_hysteresis.hpp"

namespace {

using namespace tsar::core;
using Counts = std::vector<std::int64_t>;

struct Case {
  std::vector<double> tpi;
  std::vector<double> move;
  std::vector<unsigned char> pooled;
  std::vector<unsigned char> settled = {};
  double payback = kPaybackPasses;
  SplitCosts costs() const { return {tpi, move, pooled, settled, payback}; }
};

bool keep(const Counts& previous, Counts& proposed, const Case& c) {
  SplitScratch scratch;
  return keep_split_unless_it_pays(previous, proposed, c.costs(), scratch);
}

TEST(SplitHysteresis, PredictsThePassAsItsSlowestDeviceWithPooledDevicesAsOne) {
  const Case c{{1, 1, 1}, {0, 0, 1}, {1, 1, 0}};
  // Pooled devices 0 and 1 finish their 40 together in 20; device 2 takes 60.
  EXPECT_DOUBLE_EQ(predicted_pass_seconds(Counts{30, 10, 60}, c.costs()), 60.0);
  EXPECT_DOUBLE_EQ(predicted_pass_seconds(Counts{70, 10, 20}, c.costs()), 40.0);
  const Case unpooled{{1, 1, 1}, {0, 0, 1}, {}};
  EXPECT_DOUBLE_EQ(predicted_pass_seconds(Counts{70, 10, 20}, unpooled.costs()), 70.0);
}

TEST(SplitHysteresis, EachBoundaryOfADevicesRangeCostsItThePerPassCopies) {
  // Device 1 (its own memory) pays 10 for each neighbouring range: one neighbour when it
  // shares the pass with device 0, two in the middle of three, none alone.
  const std::vector<double> tpi{4, 1, 4}, move{0, 1, 0}, boundary{0, 10, 0};
  const SplitCosts costs{tpi, move, {}, {}, kPaybackPasses, boundary};
  EXPECT_DOUBLE_EQ(predicted_pass_seconds(Counts{8, 32, 0}, costs), 42.0);
  EXPECT_DOUBLE_EQ(predicted_pass_seconds(Counts{4, 32, 4}, costs), 52.0);
  EXPECT_DOUBLE_EQ(predicted_pass_seconds(Counts{0, 40, 0}, costs), 40.0);
  // So the move to the device alone pays (2 a pass, 8 rows to copy once) where the split's
  // compute alone says it would not (32 against 40).
  Counts proposed{0, 40, 0};
  SplitScratch scratch;
  EXPECT_FALSE(keep_split_unless_it_pays(Counts{8, 32, 0}, proposed, costs, scratch));
  const SplitCosts free_halos{tpi, move, {}, {}, kPaybackPasses};
  proposed = {0, 40, 0};
  EXPECT_TRUE(keep_split_unless_it_pays(Counts{8, 32, 0}, proposed, free_halos, scratch));
}

TEST(SplitHysteresis, CountsTheIterationsThatChangeOwner) {
  const Case c{{1, 1}, {2, 3}, {}};
  // [0,60) -> [0,50): 10 change; [60,100) -> [50,100): 10 change.
  EXPECT_DOUBLE_EQ(move_seconds(Counts{60, 40}, Counts{50, 50}, c.costs()), 10 * 2 + 10 * 3);
  EXPECT_DOUBLE_EQ(move_seconds(Counts{60, 40}, Counts{60, 40}, c.costs()), 0.0);
}

TEST(SplitHysteresis, CountsTheIterationsEachDeviceGains) {
  Counts out(3);
  entering_iterations(Counts{60, 40, 0}, Counts{50, 30, 20}, out);  // [60,100) -> [50,80)
  EXPECT_EQ(out, Counts({0, 10, 20}));
  entering_iterations(Counts{0, 0, 0}, Counts{50, 30, 20}, out);  // a first split: all of it
  EXPECT_EQ(out, Counts({50, 30, 20}));
}

TEST(SplitHysteresis, MovesExactlyWhenTheGainPaysForTheCopiesWithinThePaybackPasses) {
  // 60/40 -> 50/50 gains 10 per pass and moves 20 iterations: it pays iff
  // 10 * kPaybackPasses > 20 * move.
  const double even = 10.0 * kPaybackPasses / 20.0;
  for (const double move : {0.5 * even, 0.99 * even, 1.01 * even, 2 * even}) {
    SCOPED_TRACE(move);
    const Case c{{1, 1}, {move, move}, {}};
    Counts proposed{50, 50};
    const bool kept = keep({60, 40}, proposed, c);
    EXPECT_EQ(kept, move >= even);
    EXPECT_EQ(proposed, kept ? Counts({60, 40}) : Counts({50, 50}));
  }
}

TEST(SplitHysteresis, ThePaybackPassesAreHalfAsManyAsTheSplitHasHeldAtLeastTheMinimum) {
  EXPECT_DOUBLE_EQ(payback_passes(0), kPaybackPasses);
  EXPECT_DOUBLE_EQ(payback_passes(16), kPaybackPasses);
  EXPECT_DOUBLE_EQ(payback_passes(40), 20.0);
}

TEST(SplitHysteresis, AMoveThatDoesNotPayEarlyPaysOnceTheSplitHasHeldLongEnough) {
  // 60/40 -> 50/50 gains 10 per pass and moves 20 iterations at 4 each (80): it pays over
  // more than 8 passes -- not at first, but for a split that has held 18 passes and more.
  for (const std::int64_t held : {0, 8, 16, 18, 30}) {
    SCOPED_TRACE(held);
    const Case c{{1, 1}, {4, 4}, {}, {}, payback_passes(held)};
    Counts proposed{50, 50};
    const bool kept = keep({60, 40}, proposed, c);
    EXPECT_EQ(kept, held <= 16);
    EXPECT_EQ(proposed, kept ? Counts({60, 40}) : Counts({50, 50}));
  }
}

TEST(SplitHysteresis, DataWaitsForTheSettledTimesOfTheDevicesThatHoldIt) {
  // 90/10 -> 50/50 pays many times over, but device 0's time rests on one (cold) sample:
  // kept, the cores before it re-splitting their part. Settled, it moves.
  const Case cold{{1, 1, 1, 1}, {0, 0, 1e-3, 1e-3}, {1, 1, 0, 0}, {1, 1, 0, 1}};
  EXPECT_FALSE(times_settled(Counts{15, 5, 70, 10}, cold.costs()));
  Counts proposed{10, 10, 40, 40};
  EXPECT_TRUE(keep({15, 5, 70, 10}, proposed, cold));
  EXPECT_EQ(proposed, Counts({10, 10, 70, 10}));
  Case settled = cold;
  settled.settled = {1, 1, 1, 1};
  proposed = {10, 10, 40, 40};
  EXPECT_FALSE(keep({15, 5, 70, 10}, proposed, settled));
  // A device joining the split (none of the previous one) is not judged by its times: it
  // would never get the iterations that measure it.
  const Case joining{{1, 1}, {1e-3, 1e-3}, {}, {1, 0}};
  EXPECT_TRUE(times_settled(Counts{100, 0}, joining.costs()));
  proposed = {50, 50};
  EXPECT_FALSE(keep({100, 0}, proposed, joining));
}

TEST(SplitHysteresis, GainsWithinTheNoiseBandNeverMoveData) {
  // 101/99 -> 100/100 gains 1 of 101 (< 1%) however cheap the copies.
  const Case c{{1, 1}, {1e-12, 1e-12}, {}};
  Counts proposed{100, 100};
  EXPECT_TRUE(keep({101, 99}, proposed, c));
  EXPECT_EQ(proposed, Counts({101, 99}));
  // 102/98 -> 100/100 gains 2 of 102: beyond the band, and the copies are cheap.
  proposed = {100, 100};
  EXPECT_FALSE(keep({102, 98}, proposed, c));
}

TEST(SplitHysteresis, GainsWithinTheTimesOwnScatterNeverMoveData) {
  // 120/80 -> 100/100 gains 20 of 120 (17%), the copies cheap, the horizon long: it moves
  // where the times it rests on scatter 10%, not where they scatter 20% -- over a few samples
  // each device may be that much faster or slower than its estimate.
  Case c{{1, 1}, {1e-12, 1e-12}, {}};
  c.payback = 1000.0;
  SplitCosts costs = c.costs();
  SplitScratch scratch;
  Counts proposed{100, 100};
  costs.noise = 0.10;
  EXPECT_FALSE(keep_split_unless_it_pays(Counts{120, 80}, proposed, costs, scratch));
  proposed = {100, 100};
  costs.noise = 0.20;
  EXPECT_TRUE(keep_split_unless_it_pays(Counts{120, 80}, proposed, costs, scratch));
  EXPECT_EQ(proposed, Counts({120, 80}));
}

TEST(SplitHysteresis, SplitsThatMoveNoDataAreTakenAsProposed) {
  const Case c{{1, 1}, {0, 0}, {}};
  Counts proposed{50, 50};
  EXPECT_FALSE(keep({51, 49}, proposed, c));
  EXPECT_EQ(proposed, Counts({50, 50}));
}

TEST(SplitHysteresis, DevicesThatMoveNothingReSplitTheirPartWhenTheSplitIsKept) {
  // Two CPU cores (no copies) before an accelerator whose rows are expensive to move: the
  // accelerator keeps its 60, the cores split their 40 by their new times (2:1 -> 13/27,
  // the remainder to the faster).
  const Case c{{2, 1, 1}, {0, 0, 1e9}, {1, 1, 0}};
  Counts proposed{10, 20, 70};
  EXPECT_TRUE(keep({20, 20, 60}, proposed, c));
  EXPECT_EQ(proposed, Counts({13, 27, 60}));
}

TEST(SplitHysteresis, ADeviceLeavingTheSplitTakesTheProposal) {
  const double inf = std::numeric_limits<double>::infinity();
  const Case c{{1, inf}, {1e9, 1e9}, {}};
  Counts proposed{100, 0};
  EXPECT_FALSE(keep({50, 50}, proposed, c));
  EXPECT_EQ(proposed, Counts({100, 0}));
  // A different pass size: no previous split to keep.
  const Case d{{1, 1}, {1e9, 1e9}, {}};
  proposed = {60, 60};
  EXPECT_FALSE(keep({50, 50}, proposed, d));
}

}  // namespace
