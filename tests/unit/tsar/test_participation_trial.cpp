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

/// Records `passes` passes of `seconds` each, of the region in slot 0.
void run(ParticipationTrial& t, int passes, double seconds) {
  for (int p = 0; p < passes; ++p) t.record(0, seconds, kN);
}

TEST(ParticipationTrial, AFasterWayIsTakenAfterItsComparedPassesAndKept) {
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  ASSERT_TRUE(t.choosing());
  EXPECT_FALSE(t.out()) << "no candidate named yet";
  t.choose("cuda:3");
  EXPECT_TRUE(t.out());
  t.record(0, 5.0, kN);  // the first pass moves rows: slow, not compared
  for (int p = 0; p < ParticipationTrial::kTrialPasses; ++p) {
    EXPECT_TRUE(t.out());
    t.record(0, 0.8, kN);
  }
  EXPECT_TRUE(t.decided_out());
  EXPECT_EQ(t.candidate(), "cuda:3");
  run(t, ParticipationTrial::kHoldPasses - 1, 0.8);
  EXPECT_TRUE(t.out()) << "held";
}

TEST(ParticipationTrial, ASlowerWayEndsAfterItsFirstComparedPass) {
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  t.choose("cuda:0");
  t.record(0, 3.0, kN);
  t.record(0, 1.2, kN);
  EXPECT_FALSE(t.out());
  EXPECT_FALSE(t.decided_out());
  EXPECT_EQ(t.candidate(), "");
}

TEST(ParticipationTrial, NoiseDoesNotSwitch) {
  // The trial's median is 10% lower, but one of its passes is slower than a baseline pass.
  ParticipationTrial t;
  t.join();
  t.record(0, 1.0, kN);
  run(t, ParticipationTrial::kWarmupPasses - 1, 1.0);
  t.record(0, 1.0, kN);
  t.record(0, 0.92, kN);
  t.record(0, 1.05, kN);
  t.choose("cuda:1");
  t.record(0, 1.0, kN);
  t.record(0, 0.9, kN);
  t.record(0, 0.95, kN);
  t.record(0, 0.85, kN);
  EXPECT_FALSE(t.decided_out());
  EXPECT_FALSE(t.out());
}

TEST(ParticipationTrial, TheNextTrialWaitsUntilTheLastOneIsPaidFor) {
  // A trial whose first pass cost 100 passes' time (moving a data environment's rows) and
  // that lost: the next comes once the passes held took 1/kTrialShare times that.
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  t.choose("cuda:0");
  t.record(0, 101.0, kN);  // 100 s beyond the baseline
  t.record(0, 2.0, kN);    // 1 s more, and the trial ends
  ASSERT_FALSE(t.out());
  t.record(0, 101.0, kN);  // moving the rows back: 100 s more
  const double cost = 201.0;
  const int held = static_cast<int>(cost / ParticipationTrial::kTrialShare) - 101;
  run(t, held - 1, 1.0);                             // one second short of paying for it
  run(t, ParticipationTrial::kBaselinePasses, 1.0);  // the first pays; a baseline follows
  EXPECT_FALSE(t.choosing());
  t.record(0, 1.0, kN);
  EXPECT_TRUE(t.choosing());
}

TEST(ParticipationTrial, NothingToTryHoldsAsLongAsATrial) {
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  t.choose("");
  EXPECT_FALSE(t.out());
  run(t, ParticipationTrial::kHoldPasses + ParticipationTrial::kBaselinePasses - 1, 1.0);
  EXPECT_FALSE(t.choosing());
  t.record(0, 1.0, kN);
  EXPECT_TRUE(t.choosing());
}

TEST(ParticipationTrial, ACandidateThatIsGoneEndsTheTrialAndTheDecision) {
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  t.choose("cuda:2");
  t.record(0, 1.0, kN);
  t.forget("cuda:2");
  EXPECT_FALSE(t.out());
  EXPECT_EQ(t.candidate(), "");
  // Kept out, then gone (retired): out no more.
  ParticipationTrial k;
  k.join();
  run(k, kBeforeTrial, 1.0);
  k.choose("cuda:2");
  run(k, 1 + ParticipationTrial::kTrialPasses, 0.5);
  ASSERT_TRUE(k.decided_out());
  k.forget("cuda:2");
  EXPECT_FALSE(k.out());
  EXPECT_FALSE(k.decided_out());
}

TEST(ParticipationTrial, ATrialPredictedToCostMoreThanTheRunCanPayWaits) {
  // Passes of 1 s, and a trial (its moves, its passes without the candidate) predicted at
  // 100 s: the first trial's baseline starts once the run took 100 / kTrialShare seconds.
  ParticipationTrial t;
  t.join();
  const int paid = static_cast<int>(100.0 / ParticipationTrial::kTrialShare);
  for (int p = 0; p < paid - 1; ++p) t.record(0, 1.0, kN, true, 100.0);
  EXPECT_TRUE(t.holding());
  t.record(0, 1.0, kN, true, 100.0);
  EXPECT_FALSE(t.holding());

  // Two regions of one environment, each predicting 50 s for its own loop: the trial costs
  // both, 100 s, and waits for 100 / kTrialShare seconds of their passes.
  ParticipationTrial u;
  const int a = u.join(), b = u.join();
  for (int p = 0; p < paid / 2 - 1; ++p) {
    u.record(a, 1.0, kN, true, 50.0);
    u.record(b, 1.0, kN, true, 50.0);
  }
  u.record(a, 1.0, kN, true, 50.0);
  EXPECT_TRUE(u.holding());
  u.record(b, 1.0, kN, true, 50.0);
  EXPECT_FALSE(u.holding());
}

TEST(ParticipationTrial, PassesThatMovedRowsAreNeitherBaselineNorCompared) {
  // A baseline of settling passes (moving rows, 5 s) would make a slower way look faster.
  ParticipationTrial t;
  t.join();
  run(t, ParticipationTrial::kWarmupPasses, 1.0);
  for (int p = 0; p < 5; ++p) t.record(0, 5.0, kN, false);
  EXPECT_FALSE(t.choosing()) << "no steady pass yet";
  run(t, ParticipationTrial::kBaselinePasses, 1.0);
  ASSERT_TRUE(t.choosing());
  t.choose("cuda:1");
  t.record(0, 9.0, kN, false);
  t.record(0, 0.5, kN, false);  // still moving: not compared
  t.record(0, 1.5, kN);         // steady and slower: the trial ends
  EXPECT_FALSE(t.out());
  EXPECT_FALSE(t.decided_out());
}

TEST(ParticipationTrial, TheRegionsOfADataEnvironmentDecideTogether) {
  // Two loops of a time step, 1 s and 3 s a pass, both faster without the candidate (0.5 and
  // 2.4 s): each pass is compared with its own loop's baseline, and the decision holds for
  // both.
  ParticipationTrial t;
  const int a = t.join(), b = t.join();
  t.join();  // a region of the environment that runs no pass the trial decides: not waited for
  const auto round = [&](double sa, double sb, bool steady = true) {
    t.record(a, sa, kN, steady);
    t.record(b, sb, kN, steady);
  };
  for (int p = 0; p < ParticipationTrial::kWarmupPasses + ParticipationTrial::kBaselinePasses; ++p)
    round(1.0, 3.0);
  ASSERT_TRUE(t.choosing());
  t.choose("cuda:1");
  EXPECT_TRUE(t.out()) << "for every region";
  round(9.0, 9.0);  // both move rows
  for (int p = 0; p < ParticipationTrial::kTrialPasses; ++p) round(0.5, 2.4);
  EXPECT_TRUE(t.decided_out()) << "both faster";

  // A second environment: one loop faster, the other far slower -- the first round's median
  // ratio is over the margin, and the trial ends after it.
  ParticipationTrial u;
  const int c = u.join(), d = u.join();
  for (int p = 0; p < ParticipationTrial::kWarmupPasses + ParticipationTrial::kBaselinePasses;
       ++p) {
    u.record(c, 1.0, kN);
    u.record(d, 3.0, kN);
  }
  u.choose("cuda:1");
  u.record(c, 9.0, kN);
  u.record(d, 9.0, kN);
  u.record(c, 0.8, kN);
  EXPECT_TRUE(u.out()) << "one region compared: the round is not over";
  u.record(d, 6.0, kN);
  EXPECT_FALSE(u.out());
  EXPECT_FALSE(u.decided_out());
}

}  // namespace
