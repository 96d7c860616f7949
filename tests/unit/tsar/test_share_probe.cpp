// SPDX-License-Identifier: BSD-3-Clause
// The share probe: after its warm-up it runs blocks of passes stealing, on own ranges, in
// chunks, in chunks, on own ranges and stealing, skipping the second block of a way that lost
// its first; it keeps stealing unless another way's median time per iteration was lower by
// more than the margin (the first pass after each change left out), takes the faster of two
// such ways, holds the decision, and probes again.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "schedule/share_probe.hpp"

namespace {

using tsar::core::ShareMode;
using tsar::core::ShareProbe;

constexpr int kWarmup = ShareProbe::kWarmupPasses;
constexpr int kProbe = ShareProbe::kProbePasses;
constexpr int kBlock = ShareProbe::kBlockPasses;

// Runs `passes` passes of n iterations on the probe; a pass takes seconds(mode, pass).
// Returns the mode of each pass.
std::vector<ShareMode> run(ShareProbe& probe, int passes,
                           const std::function<double(ShareMode, int)>& seconds,
                           std::int64_t n = 100) {
  std::vector<ShareMode> told;
  for (int p = 0; p < passes; ++p) {
    const ShareMode mode = probe.mode();
    told.push_back(mode);
    probe.record(seconds(mode, p), n);
  }
  return told;
}

// Runs passes until a probe has started (the warm-up, or the rest of a hold) and then until
// it ended; a pass takes seconds(mode, pass), passes counted from 0 in this call. Returns the
// mode of each pass.
std::vector<ShareMode> run_probe(ShareProbe& probe,
                                 const std::function<double(ShareMode, int)>& seconds) {
  std::vector<ShareMode> told;
  int p = 0;
  const auto pass = [&] {
    const ShareMode mode = probe.mode();
    told.push_back(mode);
    probe.record(seconds(mode, p++), 100);
  };
  while (!probe.probing()) pass();
  while (probe.probing()) pass();
  return told;
}

// Seconds per pass from a cost per mode.
std::function<double(ShareMode, int)> costs(double steal, double own, double chunks) {
  return [=](ShareMode m, int) {
    return m == ShareMode::kSteal ? steal : m == ShareMode::kOwn ? own : chunks;
  };
}

TEST(ShareProbe, WarmUpStealsThenBlocksStealOwnChunksChunksOwnSteal) {
  ShareProbe probe;
  const auto told = run(probe, kWarmup + kProbe, costs(1, 1, 1));
  for (int p = 0; p < kWarmup; ++p) EXPECT_EQ(told[p], ShareMode::kSteal) << p;
  const ShareMode blocks[] = {ShareMode::kSteal,  ShareMode::kOwn, ShareMode::kChunks,
                              ShareMode::kChunks, ShareMode::kOwn, ShareMode::kSteal};
  for (int p = 0; p < kProbe; ++p) EXPECT_EQ(told[kWarmup + p], blocks[p / kBlock]) << p;
}

TEST(ShareProbe, OwnRangesFasterTurnStealingOffUntilTheNextProbe) {
  ShareProbe probe;
  // Gram-Schmidt's shape: every pass a little shorter, stealing 40% slower, chunks slower still.
  const auto seconds = [](ShareMode m, int pass) {
    const double f = m == ShareMode::kOwn ? 1.0 : m == ShareMode::kSteal ? 1.4 : 1.8;
    return f * (1000.0 - pass) * 1e-6;
  };
  run_probe(probe, seconds);
  EXPECT_EQ(probe.decided(), ShareMode::kOwn);
  for (ShareMode m : run(probe, ShareProbe::kHoldPasses, seconds)) EXPECT_EQ(m, ShareMode::kOwn);
  // The next probe tries every way again: the loop or the machine may have changed.
  const auto again = run_probe(probe, costs(0.5, 1, 1));
  EXPECT_EQ(again[0], ShareMode::kSteal);
  EXPECT_EQ(probe.decided(), ShareMode::kSteal);
  EXPECT_EQ(probe.mode(), ShareMode::kSteal);
}

TEST(ShareProbe, EachConfirmingProbeDoublesTheHoldUpToALimit) {
  ShareProbe probe;
  const auto own = costs(1.4, 1.0, 1.8);
  run_probe(probe, own);  // own ranges: a change from stealing
  int hold = ShareProbe::kHoldPasses;
  for (int probes = 0; probes < ShareProbe::kMaxHoldDoublings + 2; ++probes) {
    for (ShareMode m : run(probe, hold, own)) ASSERT_EQ(m, ShareMode::kOwn) << "hold " << hold;
    ASSERT_EQ(probe.mode(), ShareMode::kSteal) << "a probe after " << hold << " passes";
    run_probe(probe, own);  // confirms own ranges
    hold = ShareProbe::kHoldPasses << std::min(probes + 1, ShareProbe::kMaxHoldDoublings);
  }
  // A probe that changes the decision starts again from the shortest hold.
  for (ShareMode m : run(probe, hold, own)) ASSERT_EQ(m, ShareMode::kOwn);
  run_probe(probe, costs(1.0, 1.4, 1.8));
  EXPECT_EQ(probe.decided(), ShareMode::kSteal);
  run(probe, ShareProbe::kHoldPasses, own);
  EXPECT_EQ(probe.mode(), ShareMode::kSteal);  // the first pass of the next probe
  EXPECT_EQ(run(probe, kBlock + 1, own).back(), ShareMode::kOwn);
}

TEST(ShareProbe, ChunksFasterAreTakenAndTheFasterOfTwoWins) {
  ShareProbe chunks;
  run(chunks, kWarmup + kProbe, costs(1.3, 1.3, 1.0));  // ATAX's column loop
  EXPECT_EQ(chunks.decided(), ShareMode::kChunks);
  ShareProbe both;
  run(both, kWarmup + kProbe, costs(1.0, 0.8, 0.9));
  EXPECT_EQ(both.decided(), ShareMode::kOwn);
}

TEST(ShareProbe, StealingStaysWhenItIsFasterOrTheOthersAreWithinTheMargin) {
  for (double other : {1.5, 1.0, 1.0 - ShareProbe::kMargin / 2}) {
    ShareProbe probe;
    run(probe, kWarmup + kProbe, costs(1.0, other, other));
    EXPECT_EQ(probe.decided(), ShareMode::kSteal) << "others: " << other;
    EXPECT_EQ(probe.mode(), ShareMode::kSteal);
  }
}

TEST(ShareProbe, ThePassAfterAChangeIsLeftOut) {
  // A steal's cost lands in the next pass (its owner fetches the stolen rows back): the first
  // pass on own ranges pays for the last one stealing. Counted, it would hide the gain.
  ShareProbe probe;
  ShareMode last = ShareMode::kSteal;
  run(probe, kWarmup + kProbe, [&](ShareMode m, int) {
    const double s = m != last ? 100.0 : m == ShareMode::kOwn ? 1.0 : 1.3;
    last = m;
    return s;
  });
  EXPECT_EQ(probe.decided(), ShareMode::kOwn);
}

TEST(ShareProbe, TheMedianDecidesNotASpike) {
  ShareProbe probe;
  // Own ranges 20% faster, except two spikes in passes on own ranges.
  run(probe, kWarmup + kProbe, [&](ShareMode m, int pass) {
    if (m == ShareMode::kOwn && (pass == kWarmup + 6 || pass == kWarmup + 18)) return 50.0;
    return m == ShareMode::kOwn ? 0.8 : 1.0;
  });
  EXPECT_EQ(probe.decided(), ShareMode::kOwn);
}

TEST(ShareProbe, TimesPerIterationCompareLoopsOfChangingLength) {
  ShareProbe probe;
  // Passes on own ranges have twice the iterations and are 10% cheaper per iteration: per
  // pass they look slower.
  for (int p = 0; p < kWarmup + kProbe; ++p) {
    const ShareMode m = probe.mode();
    const std::int64_t n = m == ShareMode::kOwn ? 200 : 100;
    probe.record((m == ShareMode::kOwn ? 0.9 : 1.0) * static_cast<double>(n), n);
  }
  EXPECT_EQ(probe.decided(), ShareMode::kOwn);
}

TEST(ShareProbe, EmptyOrUnmeasuredPassesLeaveTheDecisionAsItWas) {
  ShareProbe probe;
  run(probe, kWarmup + kProbe, costs(0, 0, 0));
  EXPECT_EQ(probe.decided(), ShareMode::kSteal);
  ShareProbe empty;
  run(empty, kWarmup + kProbe, costs(2, 1, 1), 0);
  EXPECT_EQ(empty.decided(), ShareMode::kSteal);
}

TEST(ShareProbe, AWayThatLosesItsFirstBlockSkipsItsSecond) {
  // 3DCONV's shape: chunks of a plane each read three planes (3x slower); own ranges as fast
  // as stealing. The chunks' second block is skipped; own ranges run both of theirs.
  const ShareMode S = ShareMode::kSteal, O = ShareMode::kOwn, C = ShareMode::kChunks;
  ShareProbe probe;
  auto told = run_probe(probe, costs(1.0, 1.0, 3.0));
  told.erase(told.begin(), told.begin() + kWarmup);
  std::vector<ShareMode> expected;
  for (ShareMode m : {S, O, C, O, S}) expected.insert(expected.end(), kBlock, m);
  EXPECT_EQ(told, expected);
  EXPECT_EQ(probe.decided(), ShareMode::kSteal);
  // Both ways lose: stealing, own ranges, chunks, stealing.
  ShareProbe both;
  told = run_probe(both, costs(1.0, 1.5, 3.0));
  told.erase(told.begin(), told.begin() + kWarmup);
  expected.clear();
  for (ShareMode m : {S, O, C, S}) expected.insert(expected.end(), kBlock, m);
  EXPECT_EQ(told, expected);
  EXPECT_EQ(both.decided(), ShareMode::kSteal);
  // The next probe tries them again.
  run(both, ShareProbe::kHoldPasses, costs(1.0, 1.5, 3.0));
  told = run_probe(both, costs(1.0, 0.5, 3.0));
  EXPECT_EQ(std::count(told.begin(), told.end(), O), 2 * kBlock);
  EXPECT_EQ(std::count(told.begin(), told.end(), C), kBlock);
  EXPECT_EQ(both.decided(), ShareMode::kOwn);
}

TEST(ShareProbe, ModesHaveNames) {
  EXPECT_STREQ(tsar::core::share_mode_name(ShareMode::kOwn), "own");
  EXPECT_STREQ(tsar::core::share_mode_name(ShareMode::kSteal), "steal");
  EXPECT_STREQ(tsar::core::share_mode_name(ShareMode::kChunks), "chunks");
}

}  // namespace
