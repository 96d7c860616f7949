// SPDX-License-Identifier: BSD-3-Clause
// The side probe (schedule/side_probe.hpp): pass times in, whether the coming pass runs on
// the accelerators alone out.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "schedule/side_probe.hpp"

namespace {

using tsar::core::SideProbe;

/// Runs `passes` passes; `time(alone, pass)` is a pass's seconds per iteration. Returns the
/// passes that tried the way not held.
std::vector<int> run(SideProbe& probe, int passes, const auto& time, int from = 0) {
  std::vector<int> tries;
  for (int p = from; p < from + passes; ++p) {
    if (probe.trying()) tries.push_back(p);
    probe.record(time(probe.alone(), p), p);
  }
  return tries;
}

TEST(SideProbe, AFasterWayIsTakenAfterItsTriedPasses) {
  SideProbe probe;
  const auto tries = run(probe, 40, [](bool alone, int) { return alone ? 1.0 : 1.7; });
  EXPECT_TRUE(probe.held_alone());
  ASSERT_GE(tries.size(), static_cast<std::size_t>(SideProbe::kTried));
  EXPECT_EQ(tries.front(), SideProbe::kFirstCheck);
  EXPECT_EQ(tries[SideProbe::kTried - 1], SideProbe::kFirstCheck + SideProbe::kTried - 1);
}

TEST(SideProbe, ASlowerWayCostsOnePassATryAndTheTriesGetRarer) {
  SideProbe probe;
  const auto tries = run(probe, 400, [](bool alone, int) { return alone ? 1.1 : 1.0; });
  EXPECT_FALSE(probe.held_alone());
  // Each interval twice the last, up to kMaxInterval.
  EXPECT_EQ(tries, (std::vector<int>{16, 49, 114, 243, 372}));
}

TEST(SideProbe, TheCoresAreTakenBackWhenTheAcceleratorsAloneSlowDown) {
  // The GPU alone is faster until pass 100, then another process takes it: three times slower.
  SideProbe probe;
  const auto time = [](bool alone, int p) { return alone ? (p < 100 ? 1.0 : 3.0) : 1.5; };
  run(probe, 100, time);
  ASSERT_TRUE(probe.held_alone());
  const auto tries = run(probe, 200, time, 100);
  EXPECT_FALSE(probe.held_alone());
  ASSERT_FALSE(tries.empty());
  EXPECT_LE(tries.front(), 100 + SideProbe::kMaxInterval + 1);
}

TEST(SideProbe, EqualWaysUnderJitterRarelyChange) {
  // Both ways take the same time, each pass up to 30% off either way: a change is noise. Under
  // the rule a try wins with probability under 2%; over 10000 passes of tries every 129 passes
  // at most a few changes.
  SideProbe probe;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.7, 1.3);
  int changes = 0;
  bool held = probe.held_alone();
  for (int p = 0; p < 10000; ++p) {
    probe.record(u(rng), p);
    if (probe.held_alone() != held) ++changes, held = probe.held_alone();
  }
  EXPECT_LE(changes, 4);
}

TEST(SideProbe, ResetForgetsTheDecision) {
  SideProbe probe;
  run(probe, 40, [](bool alone, int) { return alone ? 1.0 : 2.0; });
  ASSERT_TRUE(probe.held_alone());
  probe.reset();
  EXPECT_FALSE(probe.held_alone());
  EXPECT_FALSE(probe.alone());
}

}  // namespace
