// The steal probe: after its warm-up it runs blocks of passes with, without, without and with
// stealing, keeps stealing unless the median time per iteration without it was lower by more
// than the margin (the first pass after each change left out), holds that decision, and
// probes again.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "region/steal_probe.hpp"

namespace {

using tsar::core::StealProbe;

constexpr int kWarmup = StealProbe::kWarmupPasses;
constexpr int kProbe = StealProbe::kProbePasses;
constexpr int kBlock = StealProbe::kBlockPasses;

// Runs `passes` passes of n iterations on the probe; a pass takes seconds(steals, pass).
// Returns what each pass was told.
std::vector<bool> run(StealProbe& probe, int passes,
                      const std::function<double(bool, int)>& seconds, std::int64_t n = 100) {
  std::vector<bool> told;
  for (int p = 0; p < passes; ++p) {
    const bool steals = probe.steals();
    told.push_back(steals);
    probe.record(seconds(steals, p), n);
  }
  return told;
}

TEST(StealProbe, WarmUpStealsThenBlocksWithWithoutWithoutWith) {
  StealProbe probe;
  const auto told = run(probe, kWarmup + kProbe, [](bool, int) { return 1.0; });
  for (int p = 0; p < kWarmup; ++p) EXPECT_TRUE(told[p]) << p;
  for (int p = 0; p < kProbe; ++p) {
    const int block = p / kBlock;
    EXPECT_EQ(told[kWarmup + p], block == 0 || block == 3) << "probe pass " << p;
  }
}

TEST(StealProbe, PassesFasterWithoutStealingTurnItOffUntilTheNextProbe) {
  StealProbe probe;
  // Gram-Schmidt's shape: every pass a little shorter, passes with stealing 40% slower.
  const auto seconds = [](bool steals, int pass) {
    return (steals ? 1.4 : 1.0) * (1000.0 - pass) * 1e-6;
  };
  run(probe, kWarmup + kProbe, seconds);
  EXPECT_FALSE(probe.decided_steal());
  const auto held = run(probe, StealProbe::kHoldPasses, seconds);
  for (bool steals : held) EXPECT_FALSE(steals);
  // The next probe tries stealing again: the loop or the machine may have changed.
  const auto again = run(probe, kProbe, [](bool steals, int) { return steals ? 0.5 : 1.0; });
  EXPECT_TRUE(again[0]);
  EXPECT_TRUE(probe.decided_steal());
  EXPECT_TRUE(probe.steals());
}

TEST(StealProbe, StealingStaysWhenItIsFasterOrWithinTheMargin) {
  for (double without : {1.5, 1.0, 1.0 - StealProbe::kMargin / 2}) {
    StealProbe probe;
    run(probe, kWarmup + kProbe, [&](bool steals, int) { return steals ? 1.0 : without; });
    EXPECT_TRUE(probe.decided_steal()) << "without stealing: " << without;
    EXPECT_TRUE(probe.steals());
  }
}

TEST(StealProbe, ThePassAfterAChangeIsLeftOut) {
  // A steal's cost lands in the next pass (its owner fetches the stolen rows back): the first
  // pass without stealing pays for the last with it. Counted, it would hide the gain.
  StealProbe probe;
  bool last = true;
  run(probe, kWarmup + kProbe, [&](bool steals, int) {
    const double s = steals ? 1.3 : (last ? 100.0 : 1.0);
    last = steals;
    return s;
  });
  EXPECT_FALSE(probe.decided_steal());
}

TEST(StealProbe, TheMedianDecidesNotASpike) {
  StealProbe probe;
  // Without stealing 20% faster, except two spikes in passes without.
  run(probe, kWarmup + kProbe, [&](bool steals, int pass) {
    if (!steals && (pass == kWarmup + 6 || pass == kWarmup + 9)) return 50.0;
    return steals ? 1.0 : 0.8;
  });
  EXPECT_FALSE(probe.decided_steal());
}

TEST(StealProbe, TimesPerIterationCompareLoopsOfChangingLength) {
  StealProbe probe;
  // Passes without stealing have twice the iterations and are 10% cheaper per iteration:
  // per pass they look slower.
  for (int p = 0; p < kWarmup + kProbe; ++p) {
    const bool steals = probe.steals();
    const std::int64_t n = steals ? 100 : 200;
    probe.record((steals ? 1.0 : 0.9) * static_cast<double>(n), n);
  }
  EXPECT_FALSE(probe.decided_steal());
}

TEST(StealProbe, EmptyOrUnmeasuredPassesLeaveTheDecisionAsItWas) {
  StealProbe probe;
  run(probe, kWarmup + kProbe, [](bool, int) { return 0.0; });
  EXPECT_TRUE(probe.decided_steal());
  StealProbe empty;
  run(empty, kWarmup + kProbe, [](bool steals, int) { return steals ? 2.0 : 1.0; }, 0);
  EXPECT_TRUE(empty.decided_steal());
}

}  // namespace
