// SPDX-License-Identifier: BSD-3-Clause
// The pass planner on emulated devices (planner_sim.hpp): no threads, no clock, seeded noise.
// Each test states what a node's devices do -- cores and accelerators of known speeds, a cold
// first pass, jitter, spikes, priors far off, a device that slows down -- and asserts what
// the planner must make of it, as the co-execution efficiency E = ideal / pass time (the
// ideal: every device's time alone, 1 / sum 1/T_j) and as shares, with bounds on how many
// passes it may take. The same seed gives the same passes, on any machine. Tests of the split
// alone run without participation trials (sim.without_trials()); the trials' tests are last.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "planner_sim.hpp"
#include "schedule/participation_trial.hpp"

namespace {

using planner_sim::accelerator;
using planner_sim::core;
using planner_sim::Emulated;
using planner_sim::Pass;
using planner_sim::Sim;

constexpr std::int64_t kN = 100000;

/// `cores` cores of 8 us an iteration (together 1e6 iterations a second) and accelerators of
/// the given seconds per iteration, their priors from `peaks` (a core's peak is 1).
std::vector<Emulated> node(int cores, std::vector<double> accel_tpi, std::vector<double> peaks) {
  std::vector<Emulated> d;
  for (int c = 0; c < cores; ++c) d.push_back(core(8e-6));
  for (std::size_t a = 0; a < accel_tpi.size(); ++a)
    d.push_back(accelerator(accel_tpi[a], peaks[a], 8e-6));
  return d;
}

/// E of each of `passes` passes.
std::vector<double> efficiencies(Sim& sim, int passes, std::int64_t n = kN) {
  std::vector<double> e;
  for (int p = 0; p < passes; ++p) {
    const double ideal = sim.ideal(n);
    e.push_back(ideal / sim.run(n).seconds);
  }
  return e;
}

double mean(const std::vector<double>& v, std::size_t from, std::size_t to) {
  return std::accumulate(v.begin() + static_cast<std::ptrdiff_t>(from),
                         v.begin() + static_cast<std::ptrdiff_t>(to), 0.0) /
         static_cast<double>(to - from);
}

std::string text(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : " ") + std::to_string(x).substr(0, 5);
  return s;
}

void expect_none_retired(const Sim& sim) {
  for (std::size_t w = 0; w < sim.devices().size(); ++w)
    EXPECT_FALSE(sim.retired(static_cast<int>(w))) << "device " << w << " was retired";
}

TEST(Planner, ConvergesFromPriorsTenTimesOffEitherWay) {
  // The accelerator is 80 cores' worth; its prior says 8 or 800.
  for (double peak : {8.0, 800.0}) {
    SCOPED_TRACE(peak);
    Sim sim(node(8, {1e-7}, {peak}), 1);
    sim.without_trials();
    const auto e = efficiencies(sim, 30);
    for (std::size_t p = 4; p < e.size(); ++p)
      EXPECT_GE(e[p], 0.95) << "pass " << p << ": " << text(e);
    expect_none_retired(sim);
  }
}

TEST(Planner, AnAcceleratorAThousandTimesOffItsPriorConvergesWithinTenPasses) {
  // 1000x too slow (it gets almost nothing at first) and 1000x too fast (the cores get
  // nothing: the 2MM case of docs/results/archive/tsar/suite-gpu/2026-11-21-h200-0feb4bc.jsonl).
  for (double peak : {0.08, 80000.0}) {
    SCOPED_TRACE(peak);
    Sim sim(node(8, {1e-7}, {peak}), 2);
    sim.without_trials();
    const auto e = efficiencies(sim, 30);
    for (std::size_t p = 10; p < e.size(); ++p)
      EXPECT_GE(e[p], 0.95) << "pass " << p << ": " << text(e);
    expect_none_retired(sim);
  }
}

TEST(Planner, AColdFirstPassDoesNotHoldTheSplitOff) {
  // Everything 3x slower in the first pass (first touch, cold caches, first launches); the
  // accelerator alone 5x slower in it.
  for (bool all : {true, false}) {
    SCOPED_TRACE(all ? "all cold" : "accelerator cold");
    auto devices = node(8, {1e-7}, {80.0});
    for (auto& d : devices)
      if (all || d.accelerator)
        d.factor = [all](int p) { return p == 0 ? (all ? 3.0 : 5.0) : 1.0; };
    Sim sim(devices, 3);
    sim.without_trials();
    const auto e = efficiencies(sim, 30);
    for (std::size_t p = 4; p < e.size(); ++p)
      EXPECT_GE(e[p], 0.95) << "pass " << p << ": " << text(e);
  }
}

TEST(Planner, ASpikeDoesNotMoveTheSplit) {
  // One pass 10x slower on one device (a preempted worker, a page-fault storm).
  for (std::size_t spiky : {std::size_t{0}, std::size_t{8}}) {
    SCOPED_TRACE(spiky);
    auto devices = node(8, {1e-7}, {80.0});
    devices[spiky].factor = [](int p) { return p == 20 ? 10.0 : 1.0; };
    Sim sim(devices, 4);
    sim.without_trials();
    std::vector<double> share;
    for (int p = 0; p < 30; ++p) share.push_back(Sim::share(sim.run(kN), 8));
    for (int p = 21; p < 30; ++p)
      EXPECT_NEAR(share[p], share[19], 0.01) << "pass " << p << ": " << text(share);
    expect_none_retired(sim);
  }
}

TEST(Planner, TwentyPercentJitterHoldsTheSplit) {
  // Every device's pass time varies by up to 20% either way, every pass.
  auto devices = node(8, {1e-7}, {80.0});
  for (auto& d : devices) d.jitter = 0.2;
  Sim sim(devices, 5);
  sim.without_trials();
  std::vector<double> share, e;
  for (int p = 0; p < 300; ++p) {
    const double ideal = sim.ideal(kN);
    const Pass pass = sim.run(kN);
    share.push_back(Sim::share(pass, 8));
    e.push_back(ideal / pass.seconds);
  }
  const double ideal_share = 100.0 / 110.0;
  double lo = 1.0, hi = 0.0;
  for (std::size_t p = 10; p < share.size(); ++p) {
    lo = std::min(lo, share[p]);
    hi = std::max(hi, share[p]);
  }
  EXPECT_GE(lo, ideal_share - 0.03);
  EXPECT_LE(hi, ideal_share + 0.03);
  // Each pass waits for the slower of two devices that are each up to 20% off: E ~ 0.9.
  EXPECT_GE(mean(e, 10, e.size()), 0.85);
  expect_none_retired(sim);
}

TEST(Planner, CoresWithinTheirOwnNoiseAreSplitEquallyAndASlowerCoreIsNot) {
  // Eight cores, one of them twice as slow, every pass's time 20% off either way, on a loop
  // whose length changes every pass (Gram-Schmidt's: no split is held for a length). The equal
  // cores' differences are their noise: they keep equal counts (within the remainder's one
  // iteration) instead of following it; the slow core keeps half a share. Passes 30..280: the
  // share probe has decided and holds. Seeds 12, 14 and 15 each had an equal core leave the
  // pool on noise at some pass while leaving took no more than joining.
  for (const std::uint64_t seed : {11u, 12u, 14u, 15u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::vector<Emulated> devices;
    for (int c = 0; c < 8; ++c) devices.push_back(core(c == 5 ? 16e-6 : 8e-6));
    for (auto& d : devices) d.jitter = 0.2;
    Sim sim(devices, seed);
    for (int p = 0; p < 280; ++p) {
      const std::int64_t n = 20000 - 50 * p;
      const Pass pass = sim.run(n);
      if (p < 30 || pass.planned.size() != 8) continue;
      std::int64_t lo = n, hi = 0;
      for (std::size_t w = 0; w < 8; ++w) {
        if (w == 5) continue;
        lo = std::min(lo, pass.planned[w]);
        hi = std::max(hi, pass.planned[w]);
      }
      ASSERT_LE(hi - lo, 1) << "pass " << p;
      const double slow = static_cast<double>(pass.planned[5]) / static_cast<double>(lo);
      EXPECT_GT(slow, 0.3) << "pass " << p;
      EXPECT_LT(slow, 0.75) << "pass " << p;
    }
  }
}

TEST(Planner, ADeviceThatSlowsDownIsFollowedWithinSixPasses) {
  // The accelerator runs 3x slower from pass 30 on (a clock throttled, another process).
  auto devices = node(8, {1e-7}, {80.0});
  devices[8].factor = [](int p) { return p >= 30 ? 3.0 : 1.0; };
  Sim sim(devices, 6);
  sim.without_trials();
  const auto e = efficiencies(sim, 60);
  for (std::size_t p = 4; p < 30; ++p) EXPECT_GE(e[p], 0.95) << "pass " << p << ": " << text(e);
  for (std::size_t p = 36; p < e.size(); ++p)
    EXPECT_GE(e[p], 0.95) << "pass " << p << ": " << text(e);
  expect_none_retired(sim);
}

TEST(Planner, FourAndEightAcceleratorsOfDifferentSpeeds) {
  for (int accelerators : {4, 8}) {
    SCOPED_TRACE(accelerators);
    std::vector<double> tpi, peaks;
    for (int a = 0; a < accelerators; ++a) {
      tpi.push_back(1e-7 * (1 + a % 4));  // 80, 40, 27 and 20 cores' worth
      peaks.push_back(80.0);              // the priors say they are alike
    }
    Sim sim(node(16, tpi, peaks), 7);
    sim.without_trials();
    const auto e = efficiencies(sim, 40);
    for (std::size_t p = 8; p < e.size(); ++p)
      EXPECT_GE(e[p], 0.95) << "pass " << p << ": " << text(e);
    expect_none_retired(sim);
  }
}

TEST(Planner, FourAndEightAcceleratorsUnderJitterKeepEachTheirShare) {
  for (int accelerators : {4, 8}) {
    SCOPED_TRACE(accelerators);
    auto devices = node(16, std::vector<double>(static_cast<std::size_t>(accelerators), 1e-7),
                        std::vector<double>(static_cast<std::size_t>(accelerators), 80.0));
    for (auto& d : devices) d.jitter = 0.2;
    Sim sim(devices, 8);
    sim.without_trials();
    std::vector<double> e, sum(static_cast<std::size_t>(accelerators), 0.0);
    double lo = 1.0, hi = 0.0;
    for (int p = 0; p < 200; ++p) {
      const double ideal = sim.ideal(kN);
      const Pass pass = sim.run(kN);
      e.push_back(ideal / pass.seconds);
      if (p < 10) continue;
      for (int a = 0; a < accelerators; ++a) {
        const double s = Sim::share(pass, static_cast<std::size_t>(16 + a)) * accelerators;
        lo = std::min(lo, s);
        hi = std::max(hi, s);
        sum[static_cast<std::size_t>(a)] += s / 190.0;
      }
    }
    // Equal accelerators (1e7 iterations a second each, the cores 2e6 together): each one's
    // share times their number is ideally 1e7 A / (1e7 A + 2e6). No drift: each one's mean is
    // within 3% of that; and the noise the split follows is the estimates' (a median of 5
    // samples that are each up to 20% off: about 7% a standard deviation), never more than
    // 25% off.
    const double ideal = 1e7 * accelerators / (1e7 * accelerators + 2e6);
    for (double m : sum) EXPECT_NEAR(m, ideal, 0.03);
    EXPECT_GE(lo, 0.75);
    EXPECT_LE(hi, 1.25);
    // Each pass waits for the slowest of accelerators + 1 devices, each up to 20% off.
    EXPECT_GE(mean(e, 10, e.size()), 0.8);
    expect_none_retired(sim);
  }
}

TEST(Planner, CoresWhoseShareCannotPayTheirStartUpGetNothing) {
  // Each core pays 2 ms before its first row in every pass (the GEMM case: a row of
  // 4096^2 GEMM reads all of B, so a core given one row made the GPU's pass wait for it). The
  // accelerator alone needs 1 ms: the cores cannot help, and the pass must not wait for them.
  auto devices = node(8, {1e-8}, {800.0});
  for (auto& d : devices)
    if (!d.accelerator) d.start = 2e-3;
  Sim sim(devices, 9);
  std::vector<double> e;
  for (int p = 0; p < 30; ++p) {
    const Pass pass = sim.run(kN);
    e.push_back(1e-3 / pass.seconds);  // against the accelerator alone
  }
  // From the end of the trial of the starved cores back in, which loses on its first round.
  constexpr std::size_t kAfterTrial = tsar::core::ParticipationTrial::kWarmupPasses +
                                      tsar::core::ParticipationTrial::kBaselinePasses + 2;
  for (std::size_t p = kAfterTrial; p < e.size(); ++p)
    EXPECT_GE(e[p], 0.95) << "pass " << p << ": " << text(e);
}

TEST(Planner, ARetiredAcceleratorsCoreJoinsATeamAsOneCore) {
  // Beside a team of two cores, the worker of a retired accelerator (4x slower than a core)
  // computes on one core: its first CPU pass plans it as one core -- a third -- not as the
  // team, a half.
  Emulated team = core(0.5e-6);  // two cores of 1 us an iteration
  team.cores = 2;
  const std::vector<Emulated> devices{team, accelerator(4e-6, 1.0, 1e-6)};
  Sim sim(devices, 10);
  int retired_at = -1;
  for (int p = 0; p < 8 && retired_at < 0; ++p) {
    sim.run(60);
    if (sim.retired(1)) retired_at = p;
  }
  ASSERT_GE(retired_at, 0) << "never retired";
  const Pass joined = sim.run(60);
  EXPECT_NEAR(static_cast<double>(joined.planned[1]), 20.0, 2.0);  // as the team: 30
  for (int p = 0; p < 5; ++p) sim.run(60);
  EXPECT_NEAR(static_cast<double>(sim.run(60).planned[1]), 20.0, 2.0);
}

TEST(Planner, SeededRunsRepeatExactly) {
  const auto run = [] {
    auto devices = node(8, {1e-7, 3e-7}, {80.0, 80.0});
    for (auto& d : devices) d.jitter = 0.2;
    devices[9].factor = [](int p) { return p % 17 == 3 ? 6.0 : 1.0; };
    Sim sim(devices, 42);
    std::vector<std::vector<std::int64_t>> splits;
    for (int p = 0; p < 100; ++p) splits.push_back(sim.run(kN).iterations);
    return splits;
  };
  EXPECT_EQ(run(), run());
}

// Stealing across the accelerator boundary (planner_steal.cpp): who may steal, and the
// smallest piece.

TEST(Planner, AnAcceleratorStealsOnlyOnceMeasuredAndFasterThanTheCoresPerIteration) {
  // Two cores and an accelerator (host memory: no copies), 4x faster per iteration or 2x
  // slower (and kept: back-off off). Cold, nobody steals; measured, only the faster one does,
  // with pieces of at least the 10 us a core's piece stands for; switched off, none.
  for (const double accel_tpi : {0.25e-6, 2e-6}) {
    SCOPED_TRACE(accel_tpi);
    Sim sim({core(1e-6), core(1e-6), accelerator(accel_tpi, 4.0, 1e-6)}, 3);
    sim.planner().set_backoff(0);
    tsar::core::SubPassPlan plan;
    sim.planner().plan_pass(kN, tsar::core::CopyCosts{}, plan);
    EXPECT_EQ(sim.planner().share_thieves()[2], 0) << "cold";
    for (int p = 0; p < 4; ++p) sim.run(kN);
    const bool faster = accel_tpi < 1e-6;
    EXPECT_EQ(sim.planner().share_thieves()[2], faster ? 1 : 0);
    EXPECT_EQ(sim.planner().share_thieves()[0] + sim.planner().share_thieves()[1], 0);
    if (faster) {
      EXPECT_GE(sim.planner().share_pieces()[2], 10e-6 / accel_tpi);
    }
    sim.planner().set_accelerator_stealing(false);
    sim.run(kN);
    EXPECT_EQ(sim.planner().share_thieves()[2], 0) << "switched off";
  }
}

// Participation trials (planner_trial.cpp): a unit -- an accelerator, or the cores together --
// whose taking part costs the pass more than its share saves sits out; units that help stay,
// under noise too.

TEST(Planner, ASecondAcceleratorThatCostsThePassMoreThanItsShareSavesSitsOut) {
  // Two equal accelerators, 100 us each alone for the pass; a pass of both pays 150 us more
  // (halo copies between their memories, one more launch to wait for): both take 200 us,
  // one alone 100 us. The split, by times per iteration, keeps both.
  Sim sim({accelerator(1e-9, 1.0, 8e-6), accelerator(1e-9, 1.0, 8e-6)}, 12);
  sim.set_coordination(150e-6);
  double last = 0.0;
  for (int p = 0; p < 80; ++p) last = sim.run(kN).seconds;
  const bool out0 = sim.planner().trial_out(0), out1 = sim.planner().trial_out(1);
  EXPECT_NE(out0, out1) << "exactly one sits out";
  EXPECT_LE(last, 1.05 * 100e-6);
  // It stays out: later trials bring it back for a few passes only.
  double total = 0.0;
  for (int p = 0; p < 1000; ++p) total += sim.run(kN).seconds;
  EXPECT_LE(total / 1000.0, 1.10 * 100e-6);
  EXPECT_EQ(sim.planner().trial_out(0), out0);
  expect_none_retired(sim);

  // Switched off, both take part every pass: 200 us.
  Sim off({accelerator(1e-9, 1.0, 8e-6), accelerator(1e-9, 1.0, 8e-6)}, 12);
  off.set_coordination(150e-6);
  off.without_trials();
  for (int p = 0; p < 80; ++p) last = off.run(kN).seconds;
  EXPECT_GE(last, 1.9 * 100e-6);
}

TEST(Planner, AnAcceleratorTriedOutLeavesItsRowsToTheUnitsThatRan) {
  // Two equal accelerators, 100 us each alone for the pass, and a core whose share of the
  // pass rounds to no row beside both but to one row beside either alone. A pass of two units
  // pays 150 us more (halo copies, one more launch): both accelerators take 200 us, one alone
  // 100 us, one beside the core's row 250 us. Tried without one accelerator, its rows go to
  // the other, not to the core the compared passes gave none: the trial sees 100 us and keeps
  // it out, where a re-split would have given the core its row and shown 250 us.
  Sim sim({accelerator(1e-9, 1.0, 8e-6), accelerator(1e-9, 1.0, 8e-6), core(6e-5)}, 12);
  sim.set_coordination(150e-6);
  for (int p = 0; p < 300; ++p) sim.run(kN);
  double total = 0.0;
  int core_rows = 0;
  for (int p = 0; p < 1000; ++p) {
    const auto pass = sim.run(kN);
    total += pass.seconds;
    core_rows += pass.iterations[2] > 0 ? 1 : 0;
  }
  EXPECT_NE(sim.planner().trial_out(0), sim.planner().trial_out(1)) << "exactly one sits out";
  EXPECT_LE(total / 1000.0, 1.10 * 100e-6);
  EXPECT_LE(core_rows, 50);  // the core only in trials bringing it back
  expect_none_retired(sim);
}

TEST(Planner, UnitsFoundToCostMoreThanTheySaveStayOutTogether) {
  // Two equal accelerators, 100 us each alone for the pass, and eight cores that keep a few
  // rows beside them, every device 20% either way every pass. Every unit with work starts
  // 150 us later per other unit with work (halo copies, launches to wait for): all three take
  // 300 us and more, the accelerators without the cores 250 us, one accelerator alone 100 us.
  // Trials take the cores out, then, with the cores still out, one accelerator.
  std::vector<Emulated> devices = node(8, {1e-9, 1e-9}, {1.0, 1.0});
  for (auto& d : devices) d.jitter = 0.2;
  for (std::uint64_t seed : {5u, 12u, 14u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Sim sim(devices, seed);
    sim.set_coordination(150e-6);
    for (int p = 0; p < 1500; ++p) sim.run(kN);
    double total = 0.0;
    for (int p = 0; p < 1000; ++p) total += sim.run(kN).seconds;
    EXPECT_LE(total / 1000.0, 1.10 * 100e-6);
    for (int w = 0; w < 8; ++w) EXPECT_TRUE(sim.planner().trial_out(w)) << "core " << w;
    EXPECT_NE(sim.planner().trial_out(8), sim.planner().trial_out(9)) << "exactly one GPU out";
    expect_none_retired(sim);
  }
}

TEST(Planner, ASecondAcceleratorTenPercentDearerThanItSavesSitsOutUnderJitter) {
  // Two equal accelerators, 100 us each alone for the pass, each pass 15% either way: a pass
  // of both pays 60 us more, 110 us against one alone's 100, or 40 us more, 90 us. Over 100
  // seeded runs of 200 passes, the trials find the 10% that one alone saves in nearly every
  // run (three rounds a side that all had to beat every baseline round, in three of four) and
  // the 10% that the second saves keeps it in nearly every run.
  const auto runs_on_one = [](double coordination) {
    int one = 0;
    for (std::uint64_t seed = 1; seed <= 100; ++seed) {
      Emulated a = accelerator(1e-9, 1.0, 8e-6), b = accelerator(1e-9, 1.0, 8e-6);
      a.jitter = b.jitter = 0.15;
      Sim sim({a, b}, seed);
      sim.set_coordination(coordination);
      for (int p = 0; p < 200; ++p) sim.run(kN);
      one += sim.planner().trial_out(0) != sim.planner().trial_out(1) ? 1 : 0;
    }
    return one;
  };
  EXPECT_GE(runs_on_one(60e-6), 88) << "of 100: one alone is 10% faster";
  EXPECT_LE(runs_on_one(40e-6), 3) << "of 100: both are 10% faster";
}

TEST(Planner, AnAcceleratorKeptOutComesBackOnceItHelpsAgain) {
  // Two equal accelerators, 100 us each alone for the pass: while a pass of both pays 150 us
  // more, one sits out; once that cost is gone, a trial brings it back and the two share the
  // pass (50 us).
  Sim sim({accelerator(1e-9, 1.0, 8e-6), accelerator(1e-9, 1.0, 8e-6)}, 12);
  sim.set_coordination(150e-6);
  for (int p = 0; p < 300; ++p) sim.run(kN);
  ASSERT_NE(sim.planner().trial_out(0), sim.planner().trial_out(1));
  sim.set_coordination(0.0);
  for (int p = 0; p < 3000; ++p) sim.run(kN);
  double total = 0.0;
  for (int p = 0; p < 100; ++p) total += sim.run(kN).seconds;
  EXPECT_LE(total / 100.0, 1.10 * 50e-6);
  EXPECT_FALSE(sim.planner().trial_out(0) || sim.planner().trial_out(1));
}

TEST(Planner, ATrialTheSplitPredictsToCostMoreThanAShortRunCanPayWaits) {
  // Two equal accelerators that each take half the pass, nothing hidden: by their times a pass
  // without one takes twice as long, so a trial's two passes without it cost two passes. In a
  // run of 30 passes no pass runs without either (a trial would cost a fifth of a run of 8
  // timed passes, as on two GPUs running GEMM:
  // docs/results/archive/tsar/participation-trials/2026-11-26-h200x2-f36d27a.txt); in a long run
  // the trial comes, loses, and costs under kTrialShare of it.
  Sim sim({accelerator(1e-9, 1.0, 8e-6), accelerator(1e-9, 1.0, 8e-6)}, 16);
  for (int p = 0; p < 30; ++p) {
    const Pass pass = sim.run(kN);
    EXPECT_GT(Sim::share(pass, 0), 0.4) << "pass " << p;
    EXPECT_GT(Sim::share(pass, 1), 0.4) << "pass " << p;
  }
  double with = 0.0, without = 0.0;
  Sim off({accelerator(1e-9, 1.0, 8e-6), accelerator(1e-9, 1.0, 8e-6)}, 16);
  off.without_trials();
  for (int p = 0; p < 30; ++p) off.run(kN);
  for (int p = 0; p < 2000; ++p) {
    with += sim.run(kN).seconds;
    without += off.run(kN).seconds;
  }
  EXPECT_LE(with, (1.0 + tsar::core::ParticipationTrial::kTrialShare) * without);
  EXPECT_FALSE(sim.planner().trial_out(0) || sim.planner().trial_out(1));
}

TEST(Planner, CoresWhoseTakingPartCostsThePassMoreThanTheirShareSavesSitOut) {
  // Eight cores beside an accelerator of 10 ms alone; a pass the cores take part in pays 3 ms
  // more (the accelerator's worker woken instead of driven, more to plan, rows moving): the
  // split by times per iteration gives them their tenth, and 12 ms passes. Tried without
  // them, the passes take 10 ms: they sit out, coming back for a trial's few passes only.
  Sim sim(node(8, {1e-7}, {80.0}), 13);
  sim.set_coordination(3e-3);
  for (int p = 0; p < 200; ++p) sim.run(kN);
  double total = 0.0;
  for (int p = 0; p < 1000; ++p) total += sim.run(kN).seconds;
  EXPECT_LE(total / 1000.0, 1.05 * 10e-3);
  for (int w = 0; w < 8; ++w) EXPECT_TRUE(sim.planner().trial_out(w)) << "core " << w;
  EXPECT_FALSE(sim.planner().trial_out(8));

  // Switched off, the cores take part every pass.
  Sim off(node(8, {1e-7}, {80.0}), 13);
  off.set_coordination(3e-3);
  off.without_trials();
  total = 0.0;
  for (int p = 0; p < 200; ++p) total += off.run(kN).seconds;
  EXPECT_GE(total / 200.0, 1.15 * 10e-3);
}

TEST(Planner, CoresStarvedByAStartUpSinceGoneComeBack) {
  // Eight cores, together 3x faster than the accelerator beside them; in the first eight
  // passes every core starts 1 s late (longer than the accelerator's whole pass: a pass whose
  // workers the system ran late). Charged to the few rows the cores had, that start-up gives
  // them nothing, and cores given nothing are measured no more: a trial brings them back.
  auto devices = node(8, {3e-6}, {800.0});
  for (auto& d : devices)
    if (!d.accelerator) d.delay = [](int pass) { return pass < 8 ? 1.0 : 0.0; };
  Sim sim(devices, 21);
  const std::vector<double> e = efficiencies(sim, 150);
  EXPECT_GE(mean(e, 50, 150), 0.9) << text(e);
  expect_none_retired(sim);
}

TEST(Planner, CoresWhoseStartUpAlwaysOutlastsThePassCostOnlyTheTrialsBudget) {
  // The same cores, starting 1 s late in every pass: each trial that brings them back loses,
  // and the trials cost at most their share of the run (ParticipationTrial::kTrialShare).
  auto devices = node(8, {3e-6}, {800.0});
  for (auto& d : devices)
    if (!d.accelerator) d.delay = [](int) { return 1.0; };
  Sim sim(devices, 21);
  double total = 0.0;
  for (int p = 0; p < 2000; ++p) total += sim.run(kN).seconds;
  const double alone = 2000 * 0.3;  // the accelerator alone
  EXPECT_LE(total, (1.0 + tsar::core::ParticipationTrial::kTrialShare) * alone);
}

/// 2000 passes of `devices` with participation trials and without, side by side on one seed.
struct SideBySide {
  double with = 0.0, without = 0.0;  ///< seconds of all passes
  int out_passes = 0;                ///< passes from the 10th in which `worker` ran nothing
};
SideBySide with_and_without_trials(const std::vector<Emulated>& devices, std::uint64_t seed,
                                   int worker) {
  Sim sim(devices, seed), off(devices, seed);
  off.without_trials();
  SideBySide r;
  for (int p = 0; p < 2000; ++p) {
    const Pass pass = sim.run(kN);
    r.with += pass.seconds;
    r.without += off.run(kN).seconds;
    if (p >= 10 && Sim::share(pass, worker) == 0.0) ++r.out_passes;
  }
  expect_none_retired(sim);
  return r;
}

TEST(Planner, CoresThatHelpAreNotKeptOutUnderJitter) {
  // Every device 20% either way every pass. Cores that run half the pass (an accelerator as
  // fast as the eight of them) or a tenth of it (one ten times faster) save more than the
  // noise: the trials that try without them lose, and cost what their share allows. The tenth
  // is taken out on noise now and then, a pass waiting for the slowest of nine jittered devices
  // running about as fast without them: trials back in that had to gain kMargin kept it out
  // (ParticipationTrial.AUnitTakenOutComesBackWhereItsWayIsNoSlower). A trial back in of the
  // default way wins with a chance of about a half and each loss doubles the hold, so a few
  // seeds in a hundred keep it out for a few hundred passes: over 40 seeds, at most a tenth
  // may keep it out longer than four holds.
  constexpr int kSeeds = 40;
  for (const double accel_tpi : {1e-6, 1e-7}) {
    auto devices = node(8, {accel_tpi}, {8e-6 / accel_tpi});
    for (auto& d : devices) d.jitter = 0.2;
    int long_out = 0;
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
      SCOPED_TRACE(std::to_string(accel_tpi) + " seed " + std::to_string(seed));
      const SideBySide r = with_and_without_trials(devices, seed, 0);
      long_out += r.out_passes > 2000 / 64 * 4 ? 1 : 0;
      EXPECT_LE(r.with, 1.02 * r.without);
    }
    EXPECT_LE(long_out, kSeeds / 10) << "seeds that kept the cores out long, " << accel_tpi;
  }
}

TEST(Planner, AcceleratorsThatHelpAreNotKeptOutUnderJitter) {
  // Eight cores and two accelerators, each device 20% either way every pass. Where the second
  // accelerator takes a quarter of the pass, a pass without it is slower by more than the
  // noise: over 2000 passes it sits out only the trials' few passes. Where it takes a
  // twelfth, a pass waiting for the slowest of three jittered devices is about as slow
  // without it: either way may win, and the trials must cost what their share allows.
  for (const double second : {3e-7, 1e-6}) {
    auto devices = node(8, {1e-7, second}, {80.0, 8e-6 / second});
    for (auto& d : devices) d.jitter = 0.2;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      SCOPED_TRACE(std::to_string(second) + " seed " + std::to_string(seed));
      const SideBySide r = with_and_without_trials(devices, seed, 9);
      if (second < 5e-7) {
        EXPECT_LE(r.out_passes, 2000 / 64 * 4) << "passes without the second accelerator";
      }
      EXPECT_LE(r.with, 1.02 * r.without);
    }
  }
}

namespace resident_rows {

// A loop of a data environment whose input rows lie on the accelerator: rows the cores take
// are copied out of the accelerator's memory. Cores of 0.5 us a row beside an accelerator of
// 36 ns, 1024 rows: giving the cores their compute share saves 8 us a pass and copies 23 us of
// rows once, so it pays over eight passes but not within one.
constexpr std::int64_t kRows = 1024;
constexpr double kRowBytes = 8192.0;

std::vector<Emulated> devices() {
  std::vector<Emulated> d;
  for (int c = 0; c < 8; ++c) d.push_back(core(0.5e-6));
  Emulated gpu = accelerator(36e-9, 200.0, 0.5e-6);
  gpu.link_bytes_per_second = 80'000'000'000;
  d.push_back(gpu);
  return d;
}

/// The copy costs of a pass whose rows lie as `held` says (per worker).
tsar::core::CopyCosts copies(const std::vector<std::int64_t>& held) {
  tsar::core::CopyCosts c;
  c.moved_bytes_per_iteration = kRowBytes;
  c.range_copies = 1;
  c.resident = held;
  return c;
}

/// Passes from `from` in which the cores got rows.
int passes_with_core_rows(const std::vector<Pass>& passes, std::size_t from) {
  int count = 0;
  for (std::size_t p = from; p < passes.size(); ++p)
    count += std::any_of(passes[p].iterations.begin(), passes[p].iterations.end() - 1,
                         [](std::int64_t i) { return i > 0; });
  return count;
}

}  // namespace resident_rows

TEST(Planner, ALoopThatOnlyFollowsTakesNoRowsItsInputWouldBeCopiedForEveryPass) {
  // The same loop as one that only follows (CopyCosts::follows_only: the loop before it
  // writes its input on the accelerator, and no loop reads what it writes): the cores' rows
  // would be copied out every pass, and the move never pays. Charged as lasting while the
  // rows lay where its last split left them, it had alternated: rows to the cores in every
  // other pass.
  Sim sim(resident_rows::devices(), 5);
  sim.without_trials();
  std::vector<std::int64_t> on_gpu(sim.devices().size(), 0);
  on_gpu.back() = resident_rows::kRows;
  sim.set_copies([&](std::int64_t) {
    tsar::core::CopyCosts c = resident_rows::copies(on_gpu);
    c.follows_only = true;
    return c;
  });
  std::vector<Pass> passes;
  for (int p = 0; p < 40; ++p) passes.push_back(sim.run(resident_rows::kRows));
  EXPECT_EQ(resident_rows::passes_with_core_rows(passes, 4), 0);
}

TEST(Planner, RowsThatStayWhereTheSplitMovedThemMoveWhenTheMovePaysOverPasses) {
  // The same loop, its rows staying where its last pass left them (no other loop writes
  // them): the move pays within eight passes, and the cores keep their rows.
  Sim sim(resident_rows::devices(), 5);
  sim.without_trials();
  std::vector<std::int64_t> held(sim.devices().size(), 0);
  held.back() = resident_rows::kRows;
  sim.set_copies([&](std::int64_t) { return resident_rows::copies(held); });
  std::vector<Pass> passes;
  for (int p = 0; p < 40; ++p) {
    passes.push_back(sim.run(resident_rows::kRows));
    held = passes.back().iterations;
  }
  EXPECT_GE(resident_rows::passes_with_core_rows(passes, 20), 19);
}

TEST(Planner, CoresATrialTookOutTakeTheirShareAgainWhenItEnds) {
  // 15 cores beside an accelerator with its own memory, their first passes cold (20x, 3x,
  // 1.5x: first touch, caches) as on a GPU node. A trial takes them out at pass 7 and loses.
  // Their return moves rows, and held to the predicted gain -- under the scatter their cold
  // samples left -- it got them none: never measured again, they stayed out for good, as
  // k-means' 15 cores did beside an H100 although the passes ran 7% slower without them
  // (docs/results/tsar/cores-left-out-cuda/2026-11-28-h100-ff82587.txt).
  std::vector<Emulated> d;
  for (int c = 0; c < 15; ++c) {
    d.push_back(core(2e-6));
    d.back().factor = [](int pass) {
      return pass == 0 ? 20.0 : pass == 1 ? 3.0 : pass == 2 ? 1.5 : 1.0;
    };
  }
  Emulated gpu = accelerator(25e-9, 200.0, 2e-6);
  gpu.link_bytes_per_second = 25'000'000'000;
  d.push_back(gpu);
  Sim sim(d, 7);
  sim.set_copies([](std::int64_t) {
    tsar::core::CopyCosts c;
    c.moved_bytes_per_iteration = 68.0;  // a point of 8 doubles and its cluster
    c.range_copies = 1;
    return c;
  });
  int out = 0, with_rows = 0;
  for (int p = 0; p < 40; ++p) {
    const Pass pass = sim.run(resident_rows::kRows);
    out += sim.planner().trial_out(0) ? 1 : 0;
    if (p >= 12)
      with_rows += std::any_of(pass.iterations.begin(), pass.iterations.end() - 1,
                               [](std::int64_t i) { return i > 0; });
  }
  EXPECT_GE(out, 1) << "no trial took the cores out";
  EXPECT_EQ(with_rows, 28) << "passes 12-39 with rows on the cores";
}

TEST(Planner, ASplitThePriorsChoseMovesOnceTheTimesSettle) {
  // 15 cores beside an accelerator with its own memory whose peak rate overstates it for
  // this loop: the priors give the cores 1.5% of the rows, their speed 7%. Their first pass
  // is cold (4x), so their samples scatter by 300% until it leaves the estimator's window;
  // held to that scatter, the priors' split stayed, as k-means' did beside an H200
  // (docs/results/tsar/prior-split-hold/). It moves once the accelerator's times settle.
  std::vector<Emulated> d;
  for (int c = 0; c < 15; ++c) {
    d.push_back(core(4.4e-7));
    d.back().jitter = 0.2;
    d.back().factor = [](int pass) { return pass == 0 ? 4.0 : 1.0; };
  }
  Emulated gpu = accelerator(2.27e-9, 990.0, 4.4e-7);
  gpu.link_bytes_per_second = 25'000'000'000;
  gpu.start = 20e-6;
  gpu.jitter = 0.01;
  d.push_back(gpu);
  Sim sim(d, 7);
  sim.without_trials();
  sim.set_copies([](std::int64_t) {
    tsar::core::CopyCosts c;
    c.moved_bytes_per_iteration = 128.0;
    c.range_copies = 1;
    return c;
  });
  const std::int64_t n = 2'000'000;
  // The cores' share by speed: 15 of 4.4e-7 against one of 2.27e-9 seconds a row.
  const double share = (15 / 4.4e-7) / (15 / 4.4e-7 + 1 / 2.27e-9);
  std::vector<std::int64_t> cores;
  for (int p = 0; p < 8; ++p) {
    const Pass pass = sim.run(n);
    cores.push_back(
        std::accumulate(pass.iterations.begin(), pass.iterations.end() - 1, std::int64_t{0}));
  }
  EXPECT_LT(cores[0], 0.3 * share * n) << "the priors' split";
  for (int p = 4; p < 8; ++p)
    EXPECT_GT(cores[static_cast<std::size_t>(p)], 0.9 * share * n) << "pass " << p;
}

TEST(Planner, AGainWithinTheAcceleratorsOwnScatterDoesNotMoveItsRows) {
  // A short loop whose rows lie where its last pass left them, on 15 cores of 5 us a row and
  // an accelerator of 10 us launch and waiting and 25 ns a row, its pass 15% either way. The
  // split the times settle on gives the cores about 80 rows; from there, each re-split the
  // accelerator's noise suggests gains a few percent, which the horizon of a split held long
  // makes pay for its copies sooner or later -- BiCGStab's loops moved rows about every 40
  // passes so, each move a pass of 100-680 us against 20-40 us
  // (docs/results/tsar/bicgstab-deferred-copies/2026-11-27-h100-996c59e.txt). Within the
  // accelerator's own scatter such gains are noise: once settled, the rows stay.
  std::vector<Emulated> d;
  for (int c = 0; c < 15; ++c) d.push_back(core(5e-6));
  Emulated gpu = accelerator(25e-9, 200.0, 5e-6);
  gpu.start = 10e-6;
  gpu.jitter = 0.15;
  gpu.link_bytes_per_second = 25'000'000'000;
  d.push_back(gpu);
  Sim sim(d, 7);
  sim.without_trials();
  std::vector<std::int64_t> held(d.size(), 0);
  held.front() = 96;  // the cores ran rows first, as after a loop that gave them some
  held.back() = resident_rows::kRows - 96;
  sim.set_copies([&](std::int64_t) { return resident_rows::copies(held); });
  int moves = 0;
  for (int p = 0; p < 600; ++p) {
    const Pass pass = sim.run(resident_rows::kRows);
    moves += p >= 20 && pass.iterations.back() != held.back() ? 1 : 0;
    held = pass.iterations;
  }
  EXPECT_EQ(moves, 0);
}

TEST(Planner, ALoopThatFollowedAnotherLoopsSplitsStillLeadsOnceThatLoopFollows) {
  // Two loops that read each other's outputs: for ten passes the other loop leads (the rows
  // lie where its split, changing every pass, left them), then it follows this loop's split.
  // Following moved nothing of this loop's own; the move that pays over passes still comes.
  Sim sim(resident_rows::devices(), 5);
  sim.without_trials();
  std::vector<std::int64_t> held(sim.devices().size(), 0);
  sim.set_copies([&](std::int64_t) { return resident_rows::copies(held); });
  std::vector<Pass> passes;
  for (int p = 0; p < 40; ++p) {
    if (p < 10) {
      std::fill(held.begin(), held.end(), 0);
      held.back() = resident_rows::kRows - 8 * p;  // the other loop's cores take 8 rows more
      held.front() = 8 * p;
    }
    passes.push_back(sim.run(resident_rows::kRows));
    if (p >= 10) held = passes.back().iterations;
  }
  EXPECT_GE(resident_rows::passes_with_core_rows(passes, 25), 14);
}

}  // namespace
