// SPDX-License-Identifier: BSD-3-Clause
// Adaptation end to end, with devices of deterministic relative speed: the body sleeps in
// proportion to its iterations and a per-device factor, so the ideal split is known whatever
// else the machine runs. One unit is 500 us, so each device's part of a pass takes tens of
// milliseconds and the wake-up delays of a loaded machine (a few ms) stay small against it.
// Assertions are on the split (ratios, with margins), never on elapsed time. These are the
// cases where CPU workers balance their ranges among themselves (who steals what follows
// real time); the others run on emulated time in test_emulated_regions.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "tsar/tsar.hpp"

namespace {

void sleep_iterations(std::int64_t iterations, double factor) {
  std::this_thread::sleep_for(
      std::chrono::duration<double, std::micro>(500.0 * factor * static_cast<double>(iterations)));
}

class Adaptation : public ::testing::Test {
 protected:
  void TearDown() override { tsar::set_devices(""); }
};

TEST_F(Adaptation, AdaptiveConvergesToTheSpeedRatioOnFourDevices) {
  tsar::set_devices("cpu:0,cpu:1,cpu:0,cpu:1");     // four workers on two cores
  const std::vector<double> factor = {1, 2, 3, 6};  // ideal shares 1/2, 1/4, 1/6, 1/12
  constexpr std::int64_t kN = 240;
  for (const char* schedule : {"adaptive", "quick:4", "hybrid"}) {
    SCOPED_TRACE(schedule);
    tsar::Region region("converge", schedule);
    // What each device's chunks really took: on a loaded machine sleeps overshoot (a woken
    // thread waits for a core), which makes a device really slower than its factor says,
    // and the split TSAR should learn is the one of the speeds the devices really had.
    std::vector<double> seconds(4), iterations(4);
    const auto body = [&](const tsar::Chunk& c) {
      const auto t0 = std::chrono::steady_clock::now();
      sleep_iterations(c.size(), factor[static_cast<std::size_t>(c.worker())]);
      const auto w = static_cast<std::size_t>(c.worker());  // one thread per worker
      seconds[w] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      iterations[w] += static_cast<double>(c.size());
    };
    // Per pass, the split of the speeds the devices really had in it; its envelope over the
    // passes the learned splits come from is the measured noise.
    std::vector<double> lowest(4, static_cast<double>(kN)), highest(4, 0.0);
    std::vector<double> mean(4,
                             0.0);  // over the last three passes: one noisy pass is not the point
    for (int pass = 0; pass < 7; ++pass) {
      std::fill(seconds.begin(), seconds.end(), 0.0);
      std::fill(iterations.begin(), iterations.end(), 0.0);
      region.parallel_for(kN, body);
      if (pass < 6 &&
          std::all_of(iterations.begin(), iterations.end(), [](double i) { return i > 0; })) {
        double speeds = 0.0;
        for (std::size_t w = 0; w < 4; ++w) speeds += iterations[w] / seconds[w];
        for (std::size_t w = 0; w < 4; ++w) {
          const double observed = static_cast<double>(kN) * iterations[w] / seconds[w] / speeds;
          lowest[w] = std::min(lowest[w], observed);
          highest[w] = std::max(highest[w], observed);
        }
      }
      if (pass < 4) continue;
      const auto split = region.split();
      for (std::size_t w = 0; w < 4; ++w) mean[w] += static_cast<double>(split[w]) / 3.0;
    }
    // TSAR must learn the split of the speeds observed, within 8% of n beyond the range the
    // noise spread them over. On a quiet machine that range is within an iteration of the
    // nominal split {120, 60, 40, 20}; an equal split (60 each) would need device 0 to have
    // really run at half its nominal speed relative to the others in every pass.
    for (std::size_t w = 0; w < 4; ++w) {
      ASSERT_LE(lowest[w], highest[w]) << "no pass ran on every device";
      EXPECT_GE(mean[w], lowest[w] - 0.08 * kN)
          << "device " << w << ", observed " << lowest[w] << " .. " << highest[w];
      EXPECT_LE(mean[w], highest[w] + 0.08 * kN)
          << "device " << w << ", observed " << lowest[w] << " .. " << highest[w];
    }
  }
}

TEST_F(Adaptation, SplitAdaptsWithinASinglePass) {
  tsar::set_devices("cpu:0,cpu:1");
  tsar::Region region("single", "split:8");
  region.parallel_for(
      320, [](const tsar::Chunk& c) { sleep_iterations(c.size(), c.worker() == 0 ? 1 : 3); });
  const auto stats = region.pass_stats();
  EXPECT_EQ(stats.pass.sub_passes, 8);
  // The first sub-pass splits 50:50, later ones ~3:1 (device 0 ~72% of the pass, ~50%
  // without adapting within the pass).
  EXPECT_GT(stats.devices[0].iterations, 176);
}

TEST_F(Adaptation, AdaptiveCoresBalanceTheirRangesWithinThePass) {
  // The first pass splits 20:20 (nothing measured yet). A piece worker 1 runs waits until
  // worker 0 has run an iteration of worker 1's range: worker 0 must take over the part of
  // it worker 1 has not started, within this very pass, or the wait times out.
  tsar::set_devices("cpu:0,cpu:1");
  tsar::Region region("balance", "adaptive");
  std::atomic<bool> helped{false};
  std::vector<std::atomic<int>> seen(40);
  region.parallel_for(40, [&](const tsar::Chunk& c) {
    for (auto i = c.begin(); i < c.end(); ++i) seen[static_cast<std::size_t>(i)]++;
    if (c.worker() == 0 && c.end() > 20) helped = true;
    if (c.worker() != 1) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!helped && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  });
  for (const auto& s : seen) ASSERT_EQ(s.load(), 1);
  EXPECT_TRUE(helped.load());
  EXPECT_GT(region.split()[0], 20);
}

TEST_F(Adaptation, ACoresColdFirstPassDoesNotMoveItsRowsButALastingSlowdownDoes) {
  // Pass 0 is start-up: device 0 runs 3x slower in it only (cold caches). Pass 1 keeps pass
  // 0's split, 40:40, so device 1 starts on row 40 again (its first piece is its range's
  // head; a thief takes from the head too, which only moves it later); planned from pass 0's
  // times it would start near row 20. Device 0 of a second region stays 3x slower: its split
  // moves towards 20:60 by pass 2.
  tsar::set_devices("cpu:0,cpu:1");
  constexpr std::int64_t kN = 80;
  tsar::Region cold("cold-start", "adaptive");
  std::vector<std::int64_t> first(2, -1);  // one thread per worker
  for (int pass = 0; pass < 2; ++pass)
    cold.parallel_for(kN, [&](const tsar::Chunk& c) {
      const auto w = static_cast<std::size_t>(c.worker());
      if (pass == 1 && first[w] < 0) first[w] = c.begin();
      sleep_iterations(c.size(), w == 0 && pass == 0 ? 3.0 : 1.0);
    });
  EXPECT_EQ(first[0], 0);
  EXPECT_GE(first[1], kN / 2);
  tsar::Region slow("lasting-slowdown", "adaptive");
  for (int pass = 0; pass < 3; ++pass)
    slow.parallel_for(
        kN, [](const tsar::Chunk& c) { sleep_iterations(c.size(), c.worker() == 0 ? 3.0 : 1.0); });
  EXPECT_LT(slow.split()[0], 3 * kN / 8);  // 20 ideally; held at 40 would be a defect
}

TEST_F(Adaptation, ChunkDynamicGivesTheSlowDeviceFewerIterations) {
  tsar::set_devices("cpu:0,cpu:1");
  tsar::Region region("chunks", "chunk-dynamic:8");
  for (int pass = 0; pass < 3; ++pass)
    region.parallel_for(
        120, [](const tsar::Chunk& c) { sleep_iterations(c.size(), c.worker() == 0 ? 1 : 4); });
  const auto split = region.split();
  EXPECT_GT(split[0], 2 * split[1]);  // 4:1 ideally
}

TEST_F(Adaptation, OneSpikyPassDoesNotCollapseTheSplit) {
  tsar::set_devices("cpu:0,cpu:1");
  tsar::Region region("spiky", "adaptive");
  int pass = 0;
  for (; pass < 8; ++pass) {
    region.parallel_for(80, [&](const tsar::Chunk& c) {
      // Pass 4: device 0 takes 10x longer once (a page-fault storm, a preemption).
      sleep_iterations(c.size(), c.worker() == 0 && pass == 4 ? 10.0 : 1.0);
    });
    if (pass >= 5) {  // trusting the last pass alone would give device 0 ~9% now
      const auto split = region.split();
      EXPECT_GT(split[0], 24) << "pass " << pass;
      EXPECT_GT(split[1], 24) << "pass " << pass;
    }
  }
}

TEST_F(Adaptation, UserTimesSetTheFirstSplit) {
  tsar::set_devices("cpu:0,cpu:1");
  tsar::RegionOptions options;
  options.name = "given";
  options.schedule = "static";
  options.time_per_iteration = {1e-6, 3e-6};
  tsar::Region region(options);
  region.parallel_for(400, [](const tsar::Chunk&) {});
  EXPECT_EQ(region.split(), (std::vector<std::int64_t>{300, 100}));
  region.set_time_per_iteration(1, 1e-6);  // static keeps its first split
  region.parallel_for(400, [](const tsar::Chunk&) {});
  EXPECT_EQ(region.split(), (std::vector<std::int64_t>{300, 100}));
}

TEST_F(Adaptation, AProbeRunsBlocksOfPassesSharedEachWay) {
  // The probe's schedule (schedule/share_probe.hpp) as the passes report it: on own ranges each
  // core runs its range, all of it; in chunks each core runs several; every pass runs every
  // iteration once. The blocks follow the probe's order; the second block of a way that lost
  // its first by more than the margin is skipped (real times decide which, here).
  tsar::set_devices("cpu:0,cpu:1");
  tsar::Region region("share-probe", "adaptive");
  constexpr std::int64_t kN = 4000;
  const int warmup = 2, block = 4;
  const int order[] = {TSAR_SHARE_STEAL,  TSAR_SHARE_OWN, TSAR_SHARE_CHUNKS,
                       TSAR_SHARE_CHUNKS, TSAR_SHARE_OWN, TSAR_SHARE_STEAL};
  const bool skippable[] = {false, false, false, true, true, false};
  std::size_t next_block = 0;  // in `order`
  int mode = TSAR_SHARE_STEAL;
  std::vector<std::atomic<int>> runs(kN);
  for (int pass = 0; pass < warmup + 6 * block; ++pass) {
    for (auto& r : runs) r = 0;
    region.parallel_for(kN, [&](const tsar::Chunk& c) {
      for (auto i = c.begin(); i < c.end(); ++i) runs[static_cast<std::size_t>(i)]++;
    });
    for (const auto& r : runs) ASSERT_EQ(r.load(), 1) << "pass " << pass;
    const auto stats = region.pass_stats();
    if (pass >= warmup && (pass - warmup) % block == 0 && next_block < 6) {
      // A block starts: the next one in order, past skipped ones.
      while (next_block < 5 && skippable[next_block] && order[next_block] != stats.pass.cpu_sharing)
        ++next_block;
      mode = order[next_block++];
    }
    EXPECT_EQ(stats.pass.cpu_sharing, mode) << "pass " << pass;
    if (mode == TSAR_SHARE_OWN) {
      const auto split = region.split();
      for (std::size_t w = 0; w < 2; ++w) {
        EXPECT_EQ(stats.devices[w].chunks, 1) << "pass " << pass << ", device " << w;
        EXPECT_EQ(stats.devices[w].iterations, split[w]) << "pass " << pass << ", device " << w;
      }
    } else if (mode == TSAR_SHARE_CHUNKS) {
      // 16 chunks of 250 (8 a core): each core runs at least one, together all of them.
      EXPECT_EQ(stats.devices[0].chunks + stats.devices[1].chunks, 16) << "pass " << pass;
      EXPECT_EQ(stats.devices[0].iterations + stats.devices[1].iterations, kN);
    }
    if (next_block == 6 && (pass - warmup) % block == block - 1) break;  // the probe ended
  }
  EXPECT_EQ(next_block, 6u) << "the probe ends with its stealing block";
}

// Two cores on a loop where one of them, in turn, starts 20 units late in every pass (a core
// shared with another program): on its own range the late core's whole range waits for it.
// After the probe's warm-up and blocks the cores must go on balancing the pass (stealing, or
// chunks taken in order).
TEST_F(Adaptation, CoresKeepBalancingWhereItSavesALateCoresRest) {
  tsar::set_devices("cpu:0,cpu:1");
  tsar::Region region("balancing-pays", "adaptive");
  int balanced = 0;
  for (int pass = 0; pass < 2 + 24 + 6; ++pass) {
    std::vector<int> first(2, 1);  // one thread per worker
    region.parallel_for(40, [&](const tsar::Chunk& c) {
      const auto w = static_cast<std::size_t>(c.worker());
      if (first[w] && c.worker() == pass % 2) sleep_iterations(20, 1.0);
      first[w] = 0;
      sleep_iterations(c.size(), 1.0);
    });
    if (pass >= 2 + 24) balanced += region.pass_stats().pass.cpu_sharing != TSAR_SHARE_OWN;
  }
  EXPECT_EQ(balanced, 6);
}

}  // namespace
