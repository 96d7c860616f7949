// SPDX-License-Identifier: BSD-3-Clause
// The share probe: after its warm-up it runs blocks of passes stealing, on own ranges, in
// chunks, in chunks, on own ranges and stealing, skipping the second block of a way that lost
// its first; it keeps stealing unless another way's median time per iteration was lower by
// more than the margin (the first pass after each change left out), takes the faster of two
// such ways, holds the decision, and probes again -- all of it per band of pass sizes (a
// factor 2 in iterations), each band on its own passes alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>
#include <utility>
#include <vector>

#include "schedule/share_probe.hpp"

namespace tsar::core {
// Modes by name in failure messages.
void PrintTo(ShareMode mode, std::ostream* os) { *os << share_mode_name(mode); }
}  // namespace tsar::core

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
    const ShareMode mode = probe.mode(n);
    told.push_back(mode);
    probe.record(seconds(mode, p), n);
  }
  return told;
}

// Runs passes of n iterations until a probe has started (the warm-up, or the rest of a hold)
// and then until it ended; a pass takes seconds(mode, pass), passes counted from 0 in this
// call. Returns the mode of each pass.
std::vector<ShareMode> run_probe(ShareProbe& probe,
                                 const std::function<double(ShareMode, int)>& seconds,
                                 std::int64_t n = 100) {
  std::vector<ShareMode> told;
  int p = 0;
  const auto pass = [&] {
    const ShareMode mode = probe.mode(n);
    told.push_back(mode);
    probe.record(seconds(mode, p++), n);
  };
  while (!probe.probing(n)) pass();
  while (probe.probing(n)) pass();
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
  EXPECT_EQ(probe.decided(100), ShareMode::kOwn);
  for (ShareMode m : run(probe, ShareProbe::kHoldPasses, seconds)) EXPECT_EQ(m, ShareMode::kOwn);
  // The next probe tries every way again: the loop or the machine may have changed.
  const auto again = run_probe(probe, costs(0.5, 1, 1));
  EXPECT_EQ(again[0], ShareMode::kSteal);
  EXPECT_EQ(probe.decided(100), ShareMode::kSteal);
  EXPECT_EQ(probe.mode(100), ShareMode::kSteal);
}

TEST(ShareProbe, EachConfirmingProbeDoublesTheHoldUpToALimit) {
  ShareProbe probe;
  const auto own = costs(1.4, 1.0, 1.8);
  run_probe(probe, own);  // own ranges: a change from stealing
  int hold = ShareProbe::kHoldPasses;
  for (int probes = 0; probes < ShareProbe::kMaxHoldDoublings + 2; ++probes) {
    for (ShareMode m : run(probe, hold, own)) ASSERT_EQ(m, ShareMode::kOwn) << "hold " << hold;
    ASSERT_EQ(probe.mode(100), ShareMode::kSteal) << "a probe after " << hold << " passes";
    run_probe(probe, own);  // confirms own ranges
    hold = ShareProbe::kHoldPasses << std::min(probes + 1, ShareProbe::kMaxHoldDoublings);
  }
  // A probe that changes the decision starts again from the shortest hold.
  for (ShareMode m : run(probe, hold, own)) ASSERT_EQ(m, ShareMode::kOwn);
  run_probe(probe, costs(1.0, 1.4, 1.8));
  EXPECT_EQ(probe.decided(100), ShareMode::kSteal);
  run(probe, ShareProbe::kHoldPasses, own);
  EXPECT_EQ(probe.mode(100), ShareMode::kSteal);  // the first pass of the next probe
  EXPECT_EQ(run(probe, kBlock + 1, own).back(), ShareMode::kOwn);
}

TEST(ShareProbe, ChunksFasterAreTakenAndTheFasterOfTwoWins) {
  ShareProbe chunks;
  run(chunks, kWarmup + kProbe, costs(1.3, 1.3, 1.0));  // ATAX's column loop
  EXPECT_EQ(chunks.decided(100), ShareMode::kChunks);
  ShareProbe both;
  run(both, kWarmup + kProbe, costs(1.0, 0.8, 0.9));
  EXPECT_EQ(both.decided(100), ShareMode::kOwn);
}

TEST(ShareProbe, StealingStaysWhenItIsFasterOrTheOthersAreWithinTheMargin) {
  for (double other : {1.5, 1.0, 1.0 - ShareProbe::kMargin / 2}) {
    ShareProbe probe;
    run(probe, kWarmup + kProbe, costs(1.0, other, other));
    EXPECT_EQ(probe.decided(100), ShareMode::kSteal) << "others: " << other;
    EXPECT_EQ(probe.mode(100), ShareMode::kSteal);
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
  EXPECT_EQ(probe.decided(100), ShareMode::kOwn);
}

TEST(ShareProbe, TheMedianDecidesNotASpike) {
  ShareProbe probe;
  // Own ranges 20% faster, except two spikes in passes on own ranges.
  run(probe, kWarmup + kProbe, [&](ShareMode m, int pass) {
    if (m == ShareMode::kOwn && (pass == kWarmup + 6 || pass == kWarmup + 18)) return 50.0;
    return m == ShareMode::kOwn ? 0.8 : 1.0;
  });
  EXPECT_EQ(probe.decided(100), ShareMode::kOwn);
}

TEST(ShareProbe, TimesPerIterationCompareLoopsOfChangingLength) {
  ShareProbe probe;
  // Passes on own ranges have 20% more iterations (the same band of sizes) and are 10%
  // cheaper per iteration: per pass they look slower.
  for (int p = 0; p < kWarmup + kProbe; ++p) {
    const ShareMode m = probe.mode(100);
    const std::int64_t n = m == ShareMode::kOwn ? 120 : 100;
    probe.record((m == ShareMode::kOwn ? 0.9 : 1.0) * static_cast<double>(n), n);
  }
  EXPECT_EQ(probe.decided(100), ShareMode::kOwn);
}

TEST(ShareProbe, EmptyOrUnmeasuredPassesLeaveTheDecisionAsItWas) {
  ShareProbe probe;
  run(probe, kWarmup + kProbe, costs(0, 0, 0));
  EXPECT_EQ(probe.decided(100), ShareMode::kSteal);
  ShareProbe empty;
  run(empty, kWarmup + kProbe, costs(2, 1, 1), 0);
  EXPECT_EQ(empty.decided(0), ShareMode::kSteal);
  EXPECT_FALSE(empty.probing(0));
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
  EXPECT_EQ(probe.decided(100), ShareMode::kSteal);
  // Both ways lose: stealing, own ranges, chunks, stealing.
  ShareProbe both;
  told = run_probe(both, costs(1.0, 1.5, 3.0));
  told.erase(told.begin(), told.begin() + kWarmup);
  expected.clear();
  for (ShareMode m : {S, O, C, S}) expected.insert(expected.end(), kBlock, m);
  EXPECT_EQ(told, expected);
  EXPECT_EQ(both.decided(100), ShareMode::kSteal);
  // The next probe tries them again.
  run(both, ShareProbe::kHoldPasses, costs(1.0, 1.5, 3.0));
  told = run_probe(both, costs(1.0, 0.5, 3.0));
  EXPECT_EQ(std::count(told.begin(), told.end(), O), 2 * kBlock);
  EXPECT_EQ(std::count(told.begin(), told.end(), C), kBlock);
  EXPECT_EQ(both.decided(100), ShareMode::kOwn);
}

// Modes as runs of one mode: {mode, passes}.
std::vector<ShareMode> runs(std::initializer_list<std::pair<ShareMode, int>> list) {
  std::vector<ShareMode> out;
  for (const auto& [m, count] : list) out.insert(out.end(), static_cast<std::size_t>(count), m);
  return out;
}

TEST(ShareProbe, BandsAreFactorsOfTwoInIterations) {
  EXPECT_EQ(ShareProbe::band_of(-3), 0);
  EXPECT_EQ(ShareProbe::band_of(0), 0);
  EXPECT_EQ(ShareProbe::band_of(1), 0);
  EXPECT_EQ(ShareProbe::band_of(2), 1);
  EXPECT_EQ(ShareProbe::band_of(3), 1);
  EXPECT_EQ(ShareProbe::band_of(4), 2);
  EXPECT_EQ(ShareProbe::band_of(255), 7);
  EXPECT_EQ(ShareProbe::band_of(256), 8);
  EXPECT_EQ(ShareProbe::band_of(320), 8);
  EXPECT_EQ(ShareProbe::band_of(std::numeric_limits<std::int64_t>::max()), ShareProbe::kBands - 1);
}

TEST(ShareProbe, AConstantSizeRunsTheSameSequenceInEveryBand) {
  // Own ranges faster, then chunks, then stealing; the sequence the probe ran before passes
  // were sorted into bands (one probe for all passes), written out.
  const auto seconds = [](ShareMode m, int pass) {
    if (pass < 600) return m == ShareMode::kSteal ? 1.4 : m == ShareMode::kOwn ? 1.0 : 1.8;
    if (pass < 1400) return m == ShareMode::kChunks ? 1.0 : 1.3;
    return m == ShareMode::kSteal ? 1.0 : m == ShareMode::kOwn ? 1.5 : 3.0;
  };
  const ShareMode S = ShareMode::kSteal, O = ShareMode::kOwn, C = ShareMode::kChunks;
  const auto expected = runs({
      {S, kWarmup},                                              // warm-up
      {S, 4},       {O, 4}, {C, 4}, {O, 4}, {S, 4},   {O, 256},  // own (chunks dropped)
      {S, 4},       {O, 4}, {C, 4}, {O, 4}, {S, 4},   {O, 512},  // confirmed: twice the hold
      {S, 4},       {O, 4}, {C, 4}, {C, 4}, {O, 4},   {S, 4},   {C, 256},  // chunks: the short hold
      {S, 4},       {O, 4}, {C, 4}, {C, 4}, {O, 4},   {S, 4},   {C, 512},  // confirmed
      {S, 4},       {O, 4}, {C, 4}, {S, 4}, {S, 256},  // stealing (both dropped)
      {S, 4},       {O, 4}, {C, 4}, {S, 4}, {S, 86},   // confirmed
  });
  ASSERT_EQ(expected.size(), 2000u);
  for (std::int64_t n :
       {std::int64_t{1}, std::int64_t{100}, std::int64_t{1000}, std::int64_t{1} << 40}) {
    ShareProbe probe;
    EXPECT_EQ(run(probe, 2000, seconds, n), expected) << "n " << n;
    EXPECT_EQ(probe.decided(n), S) << "n " << n;
  }
}

TEST(ShareProbe, AShrinkingLoopDecidesItsSmallPassesOnTheirOwnTimes) {
  // Gram-Schmidt's projection: n shrinks from 320 to 1, pass after pass, and the region runs
  // the loop again and again. Stealing and own ranges tie on passes of 256 iterations and
  // more (a tie keeps stealing); below, own ranges run 1.7 times as fast. Probed on the
  // long passes alone, the short ones would keep stealing for a hold.
  ShareProbe probe;
  std::array<bool, ShareProbe::kBands> probed{};  // a probe of the band completed
  int held = 0;
  for (int sweep = 0; sweep < 30; ++sweep)
    for (std::int64_t n = 320; n >= 1; --n) {
      const int band = ShareProbe::band_of(n);
      const bool probing = probe.probing(n);
      const ShareMode m = probe.mode(n);
      if (probed[static_cast<std::size_t>(band)] && !probing) {
        ++held;
        ASSERT_EQ(m, n >= 256 ? ShareMode::kSteal : ShareMode::kOwn)
            << "sweep " << sweep << " n " << n;
      }
      const double tpi = m == ShareMode::kChunks             ? 1300e-9
                         : m == ShareMode::kSteal && n < 256 ? 460e-9
                                                             : 270e-9;
      probe.record(100e-9 + tpi * static_cast<double>(n), n);
      if (probing && !probe.probing(n)) probed[static_cast<std::size_t>(band)] = true;
    }
  EXPECT_GT(held, 20 * 320);  // most passes hold a decision
  for (std::int64_t n = 1; n <= 320; ++n) {
    EXPECT_TRUE(probed[static_cast<std::size_t>(ShareProbe::band_of(n))]) << "n " << n;
    EXPECT_EQ(probe.decided(n), n >= 256 ? ShareMode::kSteal : ShareMode::kOwn) << "n " << n;
  }
}

TEST(ShareProbe, TwoLoopsOfDifferentSizesEachGetTheirOwnDecision) {
  // A region whose passes alternate between a loop of 1000 iterations, faster in chunks,
  // and one of 10, faster on own ranges. The large loop settles alone first, so the passes
  // alternate between a held mode and another probe's. The first pass after a change of mode
  // within a band pays 100 times (the rows are in other cores' caches) and is left out.
  const auto seconds = [](std::int64_t n, ShareMode m, ShareMode last) {
    const double tpi = n == 1000 ? (m == ShareMode::kChunks ? 1.0 : 1.3)
                                 : (m == ShareMode::kOwn     ? 1.0
                                    : m == ShareMode::kSteal ? 1.4
                                                             : 1.8);
    return (m != last ? 100.0 : 1.0) * tpi * static_cast<double>(n);
  };
  // Each loop's modes, as the probe tells them in the region and alone.
  const auto alone = [&](std::int64_t n, int passes) {
    ShareProbe probe;
    ShareMode last = ShareMode::kSteal;
    std::vector<ShareMode> told;
    for (int p = 0; p < passes; ++p) {
      const ShareMode m = probe.mode(n);
      told.push_back(m);
      probe.record(seconds(n, m, last), n);
      last = m;
    }
    return told;
  };
  constexpr int kLead = kWarmup + kProbe;  // the large loop's passes before the small one's
  constexpr int kPairs = 700;
  ShareProbe probe;
  std::vector<ShareMode> large, small;
  ShareMode last_large = ShareMode::kSteal, last_small = ShareMode::kSteal;
  const auto pass = [&](std::int64_t n, std::vector<ShareMode>& told, ShareMode& last) {
    const ShareMode m = probe.mode(n);
    told.push_back(m);
    probe.record(seconds(n, m, last), n);
    last = m;
  };
  for (int p = 0; p < kLead; ++p) pass(1000, large, last_large);
  EXPECT_EQ(probe.decided(1000), ShareMode::kChunks);
  for (int p = 0; p < kPairs; ++p) {
    pass(10, small, last_small);
    pass(1000, large, last_large);
  }
  EXPECT_EQ(large, alone(1000, kLead + kPairs));
  EXPECT_EQ(small, alone(10, kPairs));
  EXPECT_EQ(probe.decided(1000), ShareMode::kChunks);
  EXPECT_EQ(probe.decided(10), ShareMode::kOwn);
  // All but the warm-up and two probes' blocks stealing and in chunks ran on own ranges.
  EXPECT_EQ(std::count(small.begin(), small.end(), ShareMode::kOwn),
            kPairs - kWarmup - 2 * 3 * kBlock);
}

TEST(ShareProbe, ModesHaveNames) {
  EXPECT_STREQ(tsar::core::share_mode_name(ShareMode::kOwn), "own");
  EXPECT_STREQ(tsar::core::share_mode_name(ShareMode::kSteal), "steal");
  EXPECT_STREQ(tsar::core::share_mode_name(ShareMode::kChunks), "chunks");
}

}  // namespace
