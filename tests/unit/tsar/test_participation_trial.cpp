// SPDX-License-Identifier: BSD-3-Clause
// ParticipationTrial (schedule/participation_trial.hpp): its schedule of passes, when it
// switches, when it stops early, how long it holds a decision.
#include <gtest/gtest.h>

#include "schedule/participation_trial.hpp"

namespace {

using tsar::core::ParticipationTrial;
constexpr std::int64_t kN = 1000;
constexpr int kBeforeTrial =
    ParticipationTrial::kWarmupPasses + ParticipationTrial::kBaselinePasses;

/// Records `passes` passes of `seconds` each.
void run(ParticipationTrial& t, int passes, double seconds) {
  for (int p = 0; p < passes; ++p) t.record(seconds, kN);
}

TEST(ParticipationTrial, AFasterWayIsTakenAfterItsComparedPassesAndKept) {
  ParticipationTrial t;
  run(t, kBeforeTrial, 1.0);
  ASSERT_TRUE(t.choosing());
  EXPECT_FALSE(t.out()) << "no candidate named yet";
  t.choose(3);
  EXPECT_TRUE(t.out());
  t.record(5.0, kN);  // the first pass moves rows: slow, not compared
  for (int p = 0; p < ParticipationTrial::kTrialPasses; ++p) {
    EXPECT_TRUE(t.out());
    t.record(0.8, kN);
  }
  EXPECT_TRUE(t.decided_out());
  EXPECT_EQ(t.candidate(), 3);
  run(t, ParticipationTrial::kHoldPasses - 1, 0.8);
  EXPECT_TRUE(t.out()) << "held";
}

TEST(ParticipationTrial, ASlowerWayEndsAfterItsFirstComparedPass) {
  ParticipationTrial t;
  run(t, kBeforeTrial, 1.0);
  t.choose(0);
  t.record(3.0, kN);
  t.record(1.2, kN);
  EXPECT_FALSE(t.out());
  EXPECT_FALSE(t.decided_out());
  EXPECT_EQ(t.candidate(), ParticipationTrial::kNone);
}

TEST(ParticipationTrial, NoiseDoesNotSwitch) {
  // The trial's median is 10% lower, but one of its passes is slower than a baseline pass.
  ParticipationTrial t;
  t.record(1.0, kN);
  run(t, ParticipationTrial::kWarmupPasses - 1, 1.0);
  t.record(1.0, kN);
  t.record(0.92, kN);
  t.record(1.05, kN);
  t.choose(1);
  t.record(1.0, kN);
  t.record(0.9, kN);
  t.record(0.95, kN);
  t.record(0.85, kN);
  EXPECT_FALSE(t.decided_out());
  EXPECT_FALSE(t.out());
}

TEST(ParticipationTrial, TheNextTrialWaitsUntilTheLastOneIsPaidFor) {
  // A trial whose first pass cost 100 passes' time (moving a data environment's rows) and
  // that lost: the next comes once the passes held took 1/kTrialShare times that.
  ParticipationTrial t;
  run(t, kBeforeTrial, 1.0);
  t.choose(0);
  t.record(101.0, kN);  // 100 s beyond the baseline
  t.record(2.0, kN);    // 1 s more, and the trial ends
  ASSERT_FALSE(t.out());
  t.record(101.0, kN);  // moving the rows back: 100 s more
  const double cost = 201.0;
  const int held = static_cast<int>(cost / ParticipationTrial::kTrialShare) - 101;
  run(t, held - 1, 1.0);                             // one second short of paying for it
  run(t, ParticipationTrial::kBaselinePasses, 1.0);  // the first pays; a baseline follows
  EXPECT_FALSE(t.choosing());
  t.record(1.0, kN);
  EXPECT_TRUE(t.choosing());
}

TEST(ParticipationTrial, NothingToTryHoldsAsLongAsATrial) {
  ParticipationTrial t;
  run(t, kBeforeTrial, 1.0);
  t.choose(ParticipationTrial::kNone);
  EXPECT_FALSE(t.out());
  run(t, ParticipationTrial::kHoldPasses + ParticipationTrial::kBaselinePasses - 1, 1.0);
  EXPECT_FALSE(t.choosing());
  t.record(1.0, kN);
  EXPECT_TRUE(t.choosing());
}

TEST(ParticipationTrial, ACandidateThatIsGoneEndsTheTrialAndTheDecision) {
  ParticipationTrial t;
  run(t, kBeforeTrial, 1.0);
  t.choose(2);
  t.record(1.0, kN);
  t.forget();
  EXPECT_FALSE(t.out());
  EXPECT_EQ(t.candidate(), ParticipationTrial::kNone);
  // Kept out, then gone (retired): out no more.
  ParticipationTrial k;
  run(k, kBeforeTrial, 1.0);
  k.choose(2);
  run(k, 1 + ParticipationTrial::kTrialPasses, 0.5);
  ASSERT_TRUE(k.decided_out());
  k.forget();
  EXPECT_FALSE(k.out());
  EXPECT_FALSE(k.decided_out());
}

}  // namespace
