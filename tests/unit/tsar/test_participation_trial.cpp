// SPDX-License-Identifier: BSD-3-Clause
// ParticipationTrial (schedule/participation_trial.hpp): its schedule of passes, when it
// switches, when it stops early, how long it holds a decision.
#include <gtest/gtest.h>

#include <iterator>
#include <random>

#include "schedule/participation_trial.hpp"
#include "schedule/rank_test.hpp"

namespace {

using tsar::core::ParticipationTrial;
constexpr std::int64_t kN = 1000;
constexpr int kBeforeTrial =
    ParticipationTrial::kWarmupPasses + ParticipationTrial::kBaselinePasses;

/// Records a pass of `seconds` of the region in `slot`, whose planner predicts a trial costs
/// `predicted` whenever asked.
void rec(ParticipationTrial& t, double seconds, bool steady = true, int slot = 0,
         ParticipationTrial::Cost predicted = {0.0, 0.0}) {
  t.record(slot, seconds, kN, steady,
           t.needs_prediction() ? predicted : ParticipationTrial::kUnchanged);
}

/// Records a pass of `seconds` of the region in slot 0 that copied in again rows the program
/// wrote since its last pass.
void written(ParticipationTrial& t, double seconds) {
  t.record(
      0, seconds, kN, true,
      t.needs_prediction() ? ParticipationTrial::Cost{0.0, 0.0} : ParticipationTrial::kUnchanged,
      true);
}

/// Records `passes` passes of `seconds` each, of the region in slot 0.
void run(ParticipationTrial& t, int passes, double seconds) {
  for (int p = 0; p < passes; ++p) rec(t, seconds);
}

TEST(ParticipationTrial, AFasterWayIsTakenAfterItsComparedPassesAndKept) {
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  ASSERT_TRUE(t.choosing());
  EXPECT_FALSE(t.out("cuda:3")) << "no candidate named yet";
  t.choose({"cuda:3"});
  EXPECT_TRUE(t.out("cuda:3"));
  rec(t, 5.0);  // the first pass moves rows: slow, not compared
  for (int p = 0; p < ParticipationTrial::kTrialPasses; ++p) {
    EXPECT_TRUE(t.out("cuda:3"));
    rec(t, 0.8);
  }
  EXPECT_TRUE(t.kept_out("cuda:3"));
  EXPECT_EQ(t.candidate(), "") << "decided";
  run(t, ParticipationTrial::kHoldPasses - 1, 0.8);
  EXPECT_TRUE(t.out("cuda:3")) << "held";
}

TEST(ParticipationTrial, EachDecisionIsToldWithItsRoundsAsTheyRan) {
  // TSAR_TRACE's trial lines: the candidate, the way, why, and the rounds in the order they
  // ran (wins() takes the median of a copy it reorders).
  ParticipationTrial t;
  t.join();
  EXPECT_EQ(t.decisions(), 0u);
  run(t, kBeforeTrial, 1.0);
  t.choose({"cuda:3"});
  rec(t, 5.0);  // the move
  const std::vector<double> rounds = {0.8, 0.7, 0.9, 0.75, 0.85};
  for (const double r : rounds) rec(t, r);
  ASSERT_EQ(t.decisions(), 1u);
  const ParticipationTrial::Decision& d = t.last_decision();
  EXPECT_EQ(d.unit, "cuda:3");
  EXPECT_FALSE(d.back_in);
  EXPECT_TRUE(d.switched);
  EXPECT_STREQ(d.why, "faster");
  EXPECT_EQ(d.rounds, rounds);
  EXPECT_EQ(d.baseline, std::vector<double>(5, 1.0));
  EXPECT_EQ(d.u, 0);
  EXPECT_EQ(d.critical, 4);
}

TEST(ParticipationTrial, ASlowerWayEndsAfterItsFirstComparedPass) {
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  t.choose({"cuda:0"});
  rec(t, 3.0);
  rec(t, 1.2);
  EXPECT_FALSE(t.out("cuda:0"));
  EXPECT_FALSE(t.kept_out("cuda:0"));
  EXPECT_EQ(t.candidate(), "");
  // The decision says so (TSAR_TRACE).
  ASSERT_EQ(t.decisions(), 1u);
  EXPECT_STREQ(t.last_decision().why, "first round slower");
  EXPECT_FALSE(t.last_decision().switched);
  EXPECT_EQ(t.last_decision().rounds, std::vector<double>{1.2});
}

TEST(ParticipationTrial, AStarvedUnitThatLosesIsKeptOutAndTriedBackInLater) {
  // The split gave the cores nothing: the trial's way is them back in. Slower that way, they
  // are kept out (not woken, not planned), and brought back after a longer hold.
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  t.choose({}, ParticipationTrial::kCpuUnit);
  EXPECT_TRUE(t.returning());
  EXPECT_FALSE(t.out(ParticipationTrial::kCpuUnit));
  rec(t, 3.0);  // moves rows: not compared
  rec(t, 1.5);
  EXPECT_FALSE(t.returning());
  EXPECT_TRUE(t.kept_out(ParticipationTrial::kCpuUnit));
  EXPECT_TRUE(t.out(ParticipationTrial::kCpuUnit));
  EXPECT_EQ(t.candidate(), "");
  int held = 0;
  while (!t.choosing()) {
    rec(t, 1.0);
    ++held;
  }
  EXPECT_GE(held, 2 * ParticipationTrial::kHoldPasses);
  EXPECT_TRUE(t.out(ParticipationTrial::kCpuUnit)) << "until the trial names it";
  t.choose({});
  EXPECT_TRUE(t.returning());
  EXPECT_FALSE(t.out(ParticipationTrial::kCpuUnit));
}

TEST(ParticipationTrial, AStarvedUnitThatGainsStaysIn) {
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  t.choose({}, ParticipationTrial::kCpuUnit);
  rec(t, 3.0);
  run(t, ParticipationTrial::kTrialPasses, 0.3);
  EXPECT_FALSE(t.kept_out(ParticipationTrial::kCpuUnit));
  EXPECT_FALSE(t.out(ParticipationTrial::kCpuUnit));
  EXPECT_EQ(t.candidate(), "");
}

TEST(ParticipationTrial, NoiseDoesNotSwitch) {
  // The trial's median is 10% lower, but one of its passes is slower than a baseline pass.
  ParticipationTrial t;
  t.join();
  run(t, ParticipationTrial::kWarmupPasses, 1.0);
  rec(t, 1.0);
  rec(t, 0.92);
  rec(t, 1.05);
  t.choose({"cuda:1"});
  rec(t, 1.0);
  rec(t, 0.9);
  rec(t, 0.95);
  rec(t, 0.85);
  EXPECT_FALSE(t.kept_out("cuda:1"));
  EXPECT_FALSE(t.out("cuda:1"));
}

TEST(ParticipationTrial, TheNextTrialWaitsUntilTheLastOneIsPaidFor) {
  // A trial whose first pass cost 100 passes' time (moving a data environment's rows) and
  // that lost: the next comes once the passes held took 1/kTrialShare times that, twice over
  // (one trial in a row changed nothing).
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  t.choose({"cuda:0"});
  rec(t, 101.0);  // 100 s beyond the baseline
  rec(t, 2.0);    // 1 s more, and the trial ends
  ASSERT_FALSE(t.out("cuda:0"));
  rec(t, 101.0);  // moving the rows back: 100 s more
  const double cost = 201.0;
  const int held = static_cast<int>(2.0 * cost / ParticipationTrial::kTrialShare) - 101;
  // The planner predicted during the hold: the hold ends with the pass that pays for it.
  run(t, held - 1, 1.0);
  EXPECT_FALSE(t.needs_rows()) << "held";
  rec(t, 1.0);
  EXPECT_TRUE(t.needs_rows()) << "the baseline began";
}

TEST(ParticipationTrial, EachTrialInARowThatChangesNothingDoublesTheHold) {
  // Trials that lose at their first compared pass: the holds between them last kHoldPasses
  // times 2, 4, 8, 16, 16 (at most 2^kMaxLosses); a trial that switches starts over at 1.
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  const auto lose = [&] {
    t.choose({"cuda:0"});
    rec(t, 1.0);  // the move's pass
    rec(t, 2.0);  // slower: the trial ends
    ASSERT_FALSE(t.out("cuda:0"));
  };
  // Passes from the end of a trial until the next one's baseline begins.
  const auto held = [&] {
    int passes = 0;
    while (!t.needs_rows() && passes < 100000) {
      rec(t, 1.0);
      ++passes;
    }
    return passes;
  };
  for (const int factor : {2, 4, 8, 16, 16}) {
    lose();
    EXPECT_EQ(held(), factor * ParticipationTrial::kHoldPasses) << "factor " << factor;
    run(t, ParticipationTrial::kBaselinePasses, 1.0);
    ASSERT_TRUE(t.choosing());
  }
  t.choose({"cuda:0"});
  run(t, 1 + ParticipationTrial::kTrialPasses, 0.5);
  ASSERT_TRUE(t.kept_out("cuda:0"));
  EXPECT_EQ(held(), ParticipationTrial::kHoldPasses);
}

TEST(ParticipationTrial, NothingToTryHoldsAsLongAsATrial) {
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  t.choose({});
  EXPECT_FALSE(t.out("cuda:0"));
  run(t, ParticipationTrial::kHoldPasses + ParticipationTrial::kBaselinePasses - 1, 1.0);
  EXPECT_FALSE(t.choosing());
  rec(t, 1.0);
  EXPECT_TRUE(t.choosing());
}

TEST(ParticipationTrial, ACandidateThatIsGoneEndsTheTrialAndTheDecision) {
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  t.choose({"cuda:2"});
  rec(t, 1.0);
  t.forget("cuda:2");
  EXPECT_FALSE(t.out("cuda:2"));
  EXPECT_EQ(t.candidate(), "");
  // Kept out, then gone (retired): out no more.
  ParticipationTrial k;
  k.join();
  run(k, kBeforeTrial, 1.0);
  k.choose({"cuda:2"});
  run(k, 1 + ParticipationTrial::kTrialPasses, 0.5);
  ASSERT_TRUE(k.kept_out("cuda:2"));
  k.forget("cuda:2");
  EXPECT_FALSE(k.out("cuda:2"));
  EXPECT_FALSE(k.kept_out("cuda:2"));
}

TEST(ParticipationTrial, ATrialPredictedToCostMoreThanTheRunCanPayWaits) {
  // Passes of 1 s; whenever the trial asks, its planner predicts 100 s (60 s of moves, 40 s of
  // passes without the candidate): the baseline starts once the run took 100 / kTrialShare
  // seconds.
  ParticipationTrial t;
  t.join();
  const auto held = [](double cost) {
    return static_cast<int>(cost / ParticipationTrial::kTrialShare);
  };
  for (int p = 0; p < held(100.0) - 1; ++p) rec(t, 1.0, true, 0, {60.0, 40.0});
  EXPECT_FALSE(t.needs_rows()) << "still held";
  rec(t, 1.0, true, 0, {60.0, 40.0});
  EXPECT_TRUE(t.needs_rows()) << "the baseline began";

  // Two regions of one environment, each predicting 30 s of moves and 20 s of passes: their
  // loops share the rows that move, which move once, and each runs its own slower passes --
  // the trial costs 30 + 2 x 20 = 70 s and waits for 70 / kTrialShare seconds of their passes.
  ParticipationTrial u;
  const int a = u.join(), b = u.join();
  for (int p = 0; p < held(70.0) / 2 - 1; ++p) {
    rec(u, 1.0, true, a, {30.0, 20.0});
    rec(u, 1.0, true, b, {30.0, 20.0});
  }
  rec(u, 1.0, true, a, {30.0, 20.0});
  EXPECT_FALSE(u.needs_rows());
  rec(u, 1.0, true, b, {30.0, 20.0});
  EXPECT_TRUE(u.needs_rows());
}

TEST(ParticipationTrial, APredictionOfASplitThatHasSettledSinceIsAskedForAgain) {
  // Two loops of a step, passes of 1 s. Their first predictions come while the split still
  // settles (the candidate holds half the rows: 1000 s of moves); the split then settles with
  // the candidate on a few rows (1 s). The trial waits for what the settled split costs, not
  // for 1000 / kTrialShare seconds of passes.
  ParticipationTrial t;
  const int a = t.join(), b = t.join();
  int passes = 0;
  double predicted = 1000.0;
  while (!t.needs_rows() && passes < 1000) {
    for (const int slot : {a, b}) {
      rec(t, 1.0, true, slot, {predicted, 0.0});
      ++passes;
    }
    if (passes >= 2 * ParticipationTrial::kWarmupPasses) predicted = 1.0;
  }
  EXPECT_TRUE(t.needs_rows()) << "the baseline began";
  EXPECT_LT(passes, 4 * 2 * ParticipationTrial::kWarmupPasses);
}

TEST(ParticipationTrial, PassesThatMovedRowsAreNeitherBaselineNorCompared) {
  // A baseline of settling passes (moving rows, 5 s) would make a slower way look faster.
  ParticipationTrial t;
  t.join();
  run(t, ParticipationTrial::kWarmupPasses, 1.0);
  for (int p = 0; p < 5; ++p) rec(t, 5.0, false);
  EXPECT_FALSE(t.choosing()) << "no steady pass yet";
  run(t, ParticipationTrial::kBaselinePasses, 1.0);
  ASSERT_TRUE(t.choosing());
  t.choose({"cuda:1"});
  rec(t, 9.0, false);
  rec(t, 0.5, false);  // still moving: not compared
  rec(t, 1.5);         // steady and slower: the trial ends
  EXPECT_FALSE(t.out("cuda:1"));
  EXPECT_FALSE(t.kept_out("cuda:1"));
}

TEST(ParticipationTrial, ATrialIsPaidForByTheCandidateTheBaselineNames) {
  // The hold predicted a cheap trial (a unit on a few rows: 0.01 s); the baseline's passes
  // name a dear one (10 s: a GPU's half of each pass). Passes of 1 s: the trial waits until
  // the run has paid for the dear one, 10 / kTrialShare seconds.
  ParticipationTrial t;
  t.join();
  for (int p = 0; p < ParticipationTrial::kWarmupPasses; ++p) rec(t, 1.0, true, 0, {0.0, 0.01});
  ASSERT_TRUE(t.needs_rows()) << "the baseline began";
  for (int p = 0; p < ParticipationTrial::kBaselinePasses; ++p) rec(t, 1.0, true, 0, {0.0, 10.0});
  EXPECT_FALSE(t.choosing()) << "not paid for";
  EXPECT_FALSE(t.needs_rows()) << "held again";
  int passes = ParticipationTrial::kWarmupPasses + ParticipationTrial::kBaselinePasses;
  while (!t.choosing() && passes < 1000) {
    rec(t, 1.0, true, 0, {0.0, 10.0});
    ++passes;
  }
  const int paid = static_cast<int>(10.0 / ParticipationTrial::kTrialShare);
  EXPECT_GE(passes, paid);
  EXPECT_LE(passes, paid + ParticipationTrial::kBaselinePasses);
}

TEST(ParticipationTrial, APassAfterTheProgramWroteIsNeitherBaselineNorCompared) {
  // The program restores its vectors now and then (tsar_data_update_device): the next pass
  // copies them in again, 4-5 s instead of 1, whichever way runs. In the baseline or the
  // trial's first round it decides nothing, and the faster way (0.8 s) is taken.
  ParticipationTrial t;
  t.join();
  run(t, ParticipationTrial::kWarmupPasses, 1.0);
  rec(t, 1.0);
  written(t, 5.0);
  for (int p = 1; p < ParticipationTrial::kBaselinePasses; ++p) {
    EXPECT_FALSE(t.choosing()) << p << " baseline passes so far";
    rec(t, 1.0);
  }
  ASSERT_TRUE(t.choosing());
  t.choose({"cuda:1"});
  rec(t, 3.0, false);  // moves the candidate's rows
  written(t, 4.0);
  EXPECT_TRUE(t.out("cuda:1")) << "the first round is still to come";
  run(t, ParticipationTrial::kTrialPasses, 0.8);
  EXPECT_TRUE(t.kept_out("cuda:1"));

  // A program that writes before every pass: that is what every pass costs, and compared.
  ParticipationTrial u;
  u.join();
  for (int p = 0; p < kBeforeTrial; ++p) written(u, 1.0);
  ASSERT_TRUE(u.choosing());
  u.choose({"cuda:1"});
  written(u, 3.0);
  for (int p = 0; p < ParticipationTrial::kTrialPasses; ++p) written(u, 0.8);
  EXPECT_TRUE(u.kept_out("cuda:1"));
}

TEST(ParticipationTrial, TheRegionsOfADataEnvironmentDecideTogether) {
  // Two loops of a time step, 1 s and 3 s a pass, both faster without the candidate (0.5 and
  // 2.4 s): each pass is compared with its own loop's baseline, and the decision holds for
  // both.
  ParticipationTrial t;
  const int a = t.join(), b = t.join();
  t.join();  // a region of the environment that runs no pass the trial decides: not waited for
  const auto round = [&](double sa, double sb, bool steady = true) {
    rec(t, sa, steady, a);
    rec(t, sb, steady, b);
  };
  for (int p = 0; p < ParticipationTrial::kWarmupPasses + ParticipationTrial::kBaselinePasses; ++p)
    round(1.0, 3.0);
  ASSERT_TRUE(t.choosing());
  t.choose({"cuda:1"});
  EXPECT_TRUE(t.out("cuda:1")) << "for every region";
  round(9.0, 9.0);  // both move rows
  for (int p = 0; p < ParticipationTrial::kTrialPasses; ++p) round(0.5, 2.4);
  EXPECT_TRUE(t.kept_out("cuda:1")) << "both faster";

  // A second environment: one loop faster, the other far slower -- the first round's median
  // ratio is over the margin, and the trial ends after it.
  ParticipationTrial u;
  const int c = u.join(), d = u.join();
  for (int p = 0; p < ParticipationTrial::kWarmupPasses + ParticipationTrial::kBaselinePasses;
       ++p) {
    rec(u, 1.0, true, c);
    rec(u, 3.0, true, d);
  }
  u.choose({"cuda:1"});
  rec(u, 9.0, true, c);
  rec(u, 9.0, true, d);
  rec(u, 0.8, true, c);
  EXPECT_TRUE(u.out("cuda:1")) << "one region compared: the round is not over";
  rec(u, 6.0, true, d);
  EXPECT_FALSE(u.out("cuda:1"));
  EXPECT_FALSE(u.kept_out("cuda:1"));
}

/// Rounds of a time step of several loops, a pass each, until the trial chooses (at most 40):
/// `seconds(slot, round)` is each loop's pass. Returns the slot whose pass comes next.
template <typename Seconds>
int rounds_until_choosing(ParticipationTrial& t, int slots, Seconds seconds) {
  for (int r = 0; r < 40; ++r)
    for (int s = 0; s < slots; ++s) {
      if (t.choosing()) return s;
      rec(t, seconds(s, r), true, s);
    }
  return 0;
}

TEST(ParticipationTrial, AStepGainsWhatItsLoopsGainTogether) {
  // BiCGStab's step on two GPUs, shaped: two loops of 1 s a pass run in 0.6 s without the
  // candidate, four of 0.5 s run alike within 3%. The loops' median ratio is 1 and an alike
  // loop's slowest pass is slower than its fastest baseline pass; the step runs in 0.8 of its
  // time, and every round of it is faster than every baseline round.
  ParticipationTrial t;
  constexpr int kLoops = 6;
  for (int l = 0; l < kLoops; ++l) t.join();
  const auto base = [](int l) { return l < 2 ? 1.0 : 0.5; };
  const double wobble[] = {1.0, 0.98, 1.02};
  const int first =
      rounds_until_choosing(t, kLoops, [&](int l, int r) { return base(l) * wobble[r % 3]; });
  ASSERT_TRUE(t.choosing());
  t.choose({"cuda:0"});
  const auto loop = [&](int i) { return (first + i) % kLoops; };
  for (int i = 0; i < kLoops; ++i) rec(t, 9.0, true, loop(i));  // the move
  const double alike[] = {0.98, 1.03, 1.0, 0.99, 1.01};
  static_assert(std::size(alike) == ParticipationTrial::kTrialPasses);
  for (int r = 0; r < ParticipationTrial::kTrialPasses; ++r)
    for (int i = 0; i < kLoops; ++i) {
      const int l = loop(i);
      rec(t, l < 2 ? 0.6 + 0.01 * r : 0.5 * alike[r], true, l);
    }
  EXPECT_TRUE(t.kept_out("cuda:0"));
  EXPECT_TRUE(t.out("cuda:0"));
}

TEST(ParticipationTrial, ALightLoopsGainDoesNotSwitchItsStep) {
  // A loop of 0.1 s a pass halves without the candidate; the step's other loop, 2 s a pass,
  // runs alike: the step gains 2.4%, within the margin.
  ParticipationTrial t;
  t.join();
  t.join();
  const double wobble[] = {1.0, 0.98, 1.02};
  const int first = rounds_until_choosing(
      t, 2, [&](int l, int r) { return (l == 0 ? 0.1 : 2.0) * wobble[r % 3]; });
  ASSERT_TRUE(t.choosing());
  t.choose({"cpu"});
  rec(t, 9.0, true, first);
  rec(t, 9.0, true, 1 - first);
  const double alike[] = {1.0, 1.01, 0.99, 1.0, 1.01};
  static_assert(std::size(alike) == ParticipationTrial::kTrialPasses);
  for (int r = 0; r < ParticipationTrial::kTrialPasses; ++r)
    for (const int l : {first, 1 - first}) rec(t, l == 0 ? 0.05 : 2.0 * alike[r], true, l);
  EXPECT_FALSE(t.kept_out("cpu"));
  EXPECT_FALSE(t.out("cpu"));
}

TEST(ParticipationTrial, AStepWhoseLoopsAreSlowInDifferentRoundsStillGains) {
  // Six loops of a step, each 20% faster without the candidate, each with one pass 30% slow
  // in a round of its own: every loop's slowest pass is slower than its fastest baseline pass,
  // but every round of the step is faster than every baseline round.
  ParticipationTrial t;
  constexpr int kLoops = 6;
  for (int l = 0; l < kLoops; ++l) t.join();
  const double wobble[] = {1.0, 0.98, 1.02};
  const int first = rounds_until_choosing(t, kLoops, [&](int, int r) { return wobble[r % 3]; });
  ASSERT_TRUE(t.choosing());
  t.choose({"cuda:1"});
  const auto loop = [&](int i) { return (first + i) % kLoops; };
  for (int i = 0; i < kLoops; ++i) rec(t, 9.0, true, loop(i));  // the move
  for (int r = 0; r < ParticipationTrial::kTrialPasses; ++r)
    for (int i = 0; i < kLoops; ++i) {
      const int l = loop(i);
      rec(t, l % ParticipationTrial::kTrialPasses == r ? 0.8 * 1.3 : 0.8, true, l);
    }
  EXPECT_TRUE(t.kept_out("cuda:1"));
}

TEST(ParticipationTrial, AStepIsNotJudgedByTheLoopsThatRanFirst) {
  // A light loop (0.1 s a pass) runs 20% slower without the candidate, the step's heavy loop
  // (2 s) 30% faster; the heavy loop's first pass the trial's way moves rows, so the light one
  // has two compared passes before the heavy one has any. A round judged by the light loop
  // alone would end the trial on its first round; the step runs in 0.72 of its time.
  ParticipationTrial t;
  const int light = t.join(), heavy = t.join();
  for (int p = 0; p < kBeforeTrial; ++p) {
    rec(t, 0.1, true, light);
    rec(t, 2.0, true, heavy);
  }
  ASSERT_TRUE(t.choosing());
  t.choose({"cuda:1"});
  rec(t, 9.0, true, light);  // the move
  rec(t, 9.0, true, heavy);
  rec(t, 0.12, true, light);
  rec(t, 3.0, false, heavy);  // moved rows: not compared
  rec(t, 0.12, true, light);
  EXPECT_TRUE(t.out("cuda:1")) << "the heavy loop has run no round yet";
  for (int r = 0; r < ParticipationTrial::kTrialPasses && t.out("cuda:1"); ++r) {
    rec(t, 1.4, true, heavy);
    rec(t, 0.12, true, light);
  }
  EXPECT_TRUE(t.kept_out("cuda:1"));
}

TEST(ParticipationTrial, TwoWaysThatRunAlikeSwitchAboutOnceInTwenty) {
  // Steps of six loops whose passes scatter by up to 40% either way, the same with the
  // candidate and without: rounds of both ways are exchangeable, and every trial round beats
  // every baseline round in 1 of C(6, 3) = 20 trials. A rule on the median alone would switch
  // in about a fifth of them.
  constexpr int kLoops = 6, kTrials = 400;
  std::mt19937 rng(20261128);
  std::uniform_real_distribution<double> scatter(0.6, 1.4);
  int switched = 0;
  for (int k = 0; k < kTrials; ++k) {
    ParticipationTrial t;
    for (int l = 0; l < kLoops; ++l) t.join();
    const int first = rounds_until_choosing(t, kLoops, [&](int, int) { return scatter(rng); });
    ASSERT_TRUE(t.choosing());
    t.choose({"cuda:1"});
    for (int r = 0; r <= ParticipationTrial::kTrialPasses && t.out("cuda:1"); ++r)
      for (int i = 0; i < kLoops && t.out("cuda:1"); ++i)
        rec(t, r == 0 ? 9.0 : scatter(rng), true, (first + i) % kLoops);
    switched += t.kept_out("cuda:1") ? 1 : 0;
  }
  EXPECT_LE(switched, kTrials / 20 + kTrials / 40) << "expected about " << kTrials / 20;
}

TEST(ParticipationTrial, FiveRoundsASideFindAGainThreeMiss) {
  // A way 10% faster, each pass scattering by 8% (log-normal): a trial of three rounds a side
  // at kAlpha needs every trial round below every baseline round and takes it about a third
  // of the time; five a side, ranked, about half -- BiCGStab's trials of a GPU out on two
  // GPUs, 8-15% faster in median, lost on one round
  // (docs/results/tsar/trial-decisions-two-gpus/2026-11-28-h200x2-286fd0f.txt).
  constexpr int kTrials = 400;
  std::mt19937 rng(20261128);
  std::lognormal_distribution<double> scatter(0.0, 0.08);
  int switched = 0;
  for (int k = 0; k < kTrials; ++k) {
    ParticipationTrial t;
    t.join();
    while (!t.choosing()) rec(t, scatter(rng));
    t.choose({"cuda:1"});
    rec(t, 9.0);  // the move
    for (int r = 0; r < ParticipationTrial::kTrialPasses && t.out("cuda:1"); ++r)
      rec(t, 0.9 * scatter(rng));
    switched += t.kept_out("cuda:1") ? 1 : 0;
  }
  EXPECT_GE(switched, kTrials * 45 / 100) << "of " << kTrials;
}

TEST(RankTest, CountsThePairsNotBelow) {
  EXPECT_EQ(tsar::core::pairs_not_below({1.0, 2.0}, {3.0, 4.0}), 0);
  EXPECT_EQ(tsar::core::pairs_not_below({3.0, 5.0}, {3.0, 4.0}), 3) << "a tie counts against";
  EXPECT_EQ(tsar::core::pairs_not_below({5.0, 6.0, 7.0}, {1.0, 2.0}), 6);
}

TEST(RankTest, CriticalValuesAreMannAndWhitneysExactOnes) {
  using tsar::core::rank_test_critical;
  // U's exact distribution (Mann and Whitney, 1947): P(U <= u) for m = n = 3 is 1/20 at u = 0;
  // for 4 and 4, 2/70 at 1 and 4/70 at 2; for 5 and 5, 12/252 at 4, 19/252 at 5, 28/252 at 6.
  EXPECT_EQ(rank_test_critical(3, 3, 0.05), 0);
  EXPECT_EQ(rank_test_critical(4, 4, 0.05), 1);
  EXPECT_EQ(rank_test_critical(5, 5, 0.05), 4);
  EXPECT_EQ(rank_test_critical(5, 5, 0.10), 5);
  EXPECT_EQ(rank_test_critical(2, 2, 0.05), -1) << "1/6 at 0: too few to tell";
  EXPECT_EQ(rank_test_critical(0, 3, 0.05), -1);
}

// Decisions compose: what one trial keeps out stays out while the others are tried.

/// Runs a trial of t's next choice from `outs` whose compared passes take `rounds` seconds in
/// turn (the baseline's 1.0); returns what it tried.
ParticipationTrial::Choice trial_of(ParticipationTrial& t, const std::vector<std::string>& outs,
                                    const std::vector<double>& rounds) {
  while (!t.choosing()) rec(t, 1.0);
  const ParticipationTrial::Choice c = t.next(outs, "");
  t.choose(outs);
  EXPECT_EQ(t.candidate(), c.unit);
  rec(t, 3.0);  // the move's pass
  for (const double seconds : rounds) rec(t, seconds);
  return c;
}

/// The same with every compared pass taking `seconds`.
ParticipationTrial::Choice trial_of(ParticipationTrial& t, const std::vector<std::string>& outs,
                                    double seconds) {
  return trial_of(
      t, outs,
      std::vector<double>(static_cast<std::size_t>(ParticipationTrial::kTrialPasses), seconds));
}

TEST(ParticipationTrial, ATrialThatCanNoLongerWinEndsThere) {
  // Rounds to come only add to U and to the rounds over the bar: a trial out whose first round
  // is slower than every baseline round (if within kMargin) has lost, and a trial back in
  // with three of five rounds slower has too. Each ends there, no dearer than a trial of
  // three rounds.
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  t.choose({"cuda:1"});
  rec(t, 3.0);  // the move
  rec(t, 1.04);
  EXPECT_FALSE(t.out("cuda:1")) << "ended after one round";
  EXPECT_EQ(t.candidate(), "");

  ParticipationTrial u;
  u.join();
  run(u, ParticipationTrial::kWarmupPasses, 1.0);
  trial_of(u, {"cpu"}, 0.7);
  ASSERT_TRUE(u.kept_out("cpu"));
  while (!u.choosing()) rec(u, 0.7);
  u.choose({});
  ASSERT_TRUE(u.returning());
  rec(u, 3.0);  // the move
  for (int r = 0; r < 3; ++r) {
    EXPECT_TRUE(u.returning()) << "round " << r;
    rec(u, 0.8);  // 0.7's baseline: 8/7
  }
  EXPECT_FALSE(u.returning()) << "ended after three rounds";
  EXPECT_TRUE(u.kept_out("cpu"));
}

TEST(ParticipationTrial, AUnitKeptOutStaysOutWhileAnotherIsTriedOut) {
  // The cores out (faster; bringing them back is slower), then, the cores still out, one of two
  // GPUs out (faster again): both stay out.
  ParticipationTrial t;
  t.join();
  run(t, ParticipationTrial::kWarmupPasses, 1.0);
  auto c = trial_of(t, {"cpu", "cuda:1"}, 0.7);
  EXPECT_EQ(c.unit, "cpu");
  EXPECT_FALSE(c.back_in);
  ASSERT_TRUE(t.kept_out("cpu"));
  c = trial_of(t, {"cuda:1"}, 1.5);
  EXPECT_EQ(c.unit, "cpu") << "a decision out is tried back first";
  EXPECT_TRUE(c.back_in);
  ASSERT_TRUE(t.kept_out("cpu"));
  c = trial_of(t, {"cuda:1"}, 0.7);
  EXPECT_EQ(c.unit, "cuda:1");
  EXPECT_FALSE(c.back_in);
  EXPECT_TRUE(t.kept_out("cpu")) << "still out";
  EXPECT_TRUE(t.kept_out("cuda:1"));
  EXPECT_TRUE(t.out("cpu") && t.out("cuda:1"));
  EXPECT_FALSE(t.out("cuda:0"));
  // Nothing left to try out (one GPU runs): the kept units come back in turn, the GPU first.
  c = trial_of(t, {}, 1.5);
  EXPECT_EQ(c.unit, "cuda:1");
  EXPECT_TRUE(c.back_in);
  c = trial_of(t, {}, 1.5);
  EXPECT_EQ(c.unit, "cpu");
  EXPECT_TRUE(c.back_in);
  c = trial_of(t, {}, 1.5);
  EXPECT_EQ(c.unit, "cuda:1");
  EXPECT_TRUE(t.kept_out("cuda:1") && t.kept_out("cpu"));
}

TEST(ParticipationTrial, TrialsAlternateBetweenOutAndBackIn) {
  // A way that won on noise is undone by the next trial; then trials out (losing) and back in
  // (losing) take turns.
  ParticipationTrial t;
  t.join();
  run(t, ParticipationTrial::kWarmupPasses, 1.0);
  auto c = trial_of(t, {"cpu", "cuda:1"}, 0.7);
  ASSERT_TRUE(t.kept_out("cpu"));
  c = trial_of(t, {"cuda:1"}, 0.7);
  EXPECT_EQ(c.unit, "cpu");
  EXPECT_TRUE(c.back_in);
  EXPECT_FALSE(t.kept_out("cpu")) << "back in: faster with it";
  c = trial_of(t, {"cpu", "cuda:1"}, 0.7);
  EXPECT_EQ(c.unit, "cpu");
  ASSERT_TRUE(t.kept_out("cpu"));
  c = trial_of(t, {"cuda:1"}, 1.5);
  EXPECT_TRUE(c.back_in);
  c = trial_of(t, {"cuda:1"}, 1.5);
  EXPECT_EQ(c.unit, "cuda:1");
  EXPECT_FALSE(c.back_in);
  c = trial_of(t, {"cuda:1"}, 1.5);
  EXPECT_EQ(c.unit, "cpu");
  EXPECT_TRUE(c.back_in);
  EXPECT_TRUE(t.kept_out("cpu"));
  EXPECT_FALSE(t.kept_out("cuda:1"));
}

TEST(ParticipationTrial, AUnitTakenOutComesBackWhereItsWayIsNoSlower) {
  // The way that gives every unit its share is the default: a trial out must gain kMargin, a
  // trial bringing back a unit a trial took out only not lose. Otherwise a unit taken out on
  // noise where both ways run within kMargin of each other stays out for good, and which way a
  // run ends in depends on its noise: under 20% jitter, cores a tenth of the pass stayed out
  // of 3 in 80 seeded runs (Planner.CoresThatHelpAreNotKeptOutUnderJitter). Its first compared
  // pass does not end such a trial either: one pass is no evidence against the default.
  ParticipationTrial t;
  t.join();
  run(t, ParticipationTrial::kWarmupPasses, 1.0);
  auto c = trial_of(t, {"cpu", "cuda:1"}, 0.7);
  ASSERT_TRUE(t.kept_out("cpu"));
  c = trial_of(t, {"cuda:1"}, 0.98);
  EXPECT_TRUE(c.back_in);
  EXPECT_FALSE(t.kept_out("cpu")) << "back in: no slower with it";

  c = trial_of(t, {"cpu", "cuda:1"}, 0.7);
  ASSERT_TRUE(t.kept_out("cpu"));
  c = trial_of(t, {"cuda:1"}, {1.2, 0.95, 0.97, 1.01, 0.96});
  ASSERT_TRUE(c.back_in);
  EXPECT_FALSE(t.kept_out("cpu")) << "decided by its median round, not its first";

  // A starved unit is not the default's: back in, it must gain kMargin.
  ParticipationTrial s;
  s.join();
  run(s, kBeforeTrial, 1.0);
  s.choose({}, ParticipationTrial::kCpuUnit);
  rec(s, 3.0);
  run(s, ParticipationTrial::kTrialPasses, 0.98);
  EXPECT_TRUE(s.kept_out(ParticipationTrial::kCpuUnit));
}

TEST(ParticipationTrial, AStarvedUnitIsTriedBackOnlyWhereNothingCanBeTriedOut) {
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  t.choose({"cuda:0"}, ParticipationTrial::kCpuUnit);
  EXPECT_EQ(t.candidate(), "cuda:0");
  rec(t, 3.0);
  rec(t, 1.5);  // lost
  while (!t.choosing()) rec(t, 1.0);
  EXPECT_EQ(t.next({"cuda:1"}, ParticipationTrial::kCpuUnit).unit, "cuda:1");
  const ParticipationTrial::Choice c = t.next({}, ParticipationTrial::kCpuUnit);
  EXPECT_EQ(c.unit, ParticipationTrial::kCpuUnit);
  EXPECT_TRUE(c.back_in);
}

TEST(ParticipationTrial, UnitsThatSatOutBesideAWinningCandidateStayOutWithIt) {
  ParticipationTrial t;
  t.join();
  run(t, kBeforeTrial, 1.0);
  t.choose({"cuda:1"});
  t.also_out("cpu");
  t.also_out("cuda:1");  // the candidate itself: ignored
  EXPECT_TRUE(t.out("cuda:1"));
  EXPECT_FALSE(t.out("cpu")) << "the planner sits it out itself during the trial";
  rec(t, 3.0);
  run(t, ParticipationTrial::kTrialPasses, 0.7);
  EXPECT_TRUE(t.kept_out("cuda:1"));
  EXPECT_TRUE(t.kept_out("cpu"));
  t.forget("cpu");
  EXPECT_FALSE(t.out("cpu"));
  EXPECT_TRUE(t.out("cuda:1"));
  t.forget_all();
  EXPECT_FALSE(t.any_out());
}

}  // namespace
