// SPDX-License-Identifier: BSD-3-Clause
// Adaptation end to end on two and four CPU devices of known relative speed. Each device's
// speed is emulated time (emulated_clock.hpp): a body advances its worker's clock by its
// iterations times a per-device factor instead of sleeping, so the times the planner learns,
// and the pass times the share probe compares, are the same on a loaded machine as on an idle
// one; the clock hands out pieces in the order of the workers' emulated times, so which core
// steals which piece is the same too. Regions with accelerators on emulated time are in
// test_emulated_regions.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include "emulated_clock.hpp"
#include "tsar/tsar.hpp"

namespace {

constexpr double kUnit = 500e-6;  ///< emulated seconds of one iteration at factor 1

/// Chunk `c`'s device "runs" its iterations at `factor` times kUnit each, on `clock`.
void run_emulated(emulated::Clock& clock, const tsar::Chunk& c, double factor) {
  clock.advance(c.worker(), kUnit * factor * static_cast<double>(c.size()));
}

/// Device `w`'s learned time per iteration after the region's last pass, in units.
double learned_units(const tsar::Region& region, int w) {
  return region.pass_stats().devices[static_cast<std::size_t>(w)].time_per_iteration / kUnit;
}

class Adaptation : public ::testing::Test {
 protected:
  void TearDown() override { tsar::set_devices(""); }
};

TEST_F(Adaptation, AdaptiveConvergesToTheSpeedRatioOnFourDevices) {
  // The split follows the learned times; within a pass the cores balance what is left by
  // stealing, which follows real time, so the iterations each ran are not asserted: the
  // times the planner learned are, and they must be the devices' emulated speeds.
  tsar::set_devices("cpu:0,cpu:1,cpu:0,cpu:1");     // four workers on two cores
  const std::vector<double> factor = {1, 2, 3, 6};  // ideal split {120, 60, 40, 20}
  constexpr std::int64_t kN = 240;
  for (const char* schedule : {"adaptive", "quick:4", "hybrid"}) {
    SCOPED_TRACE(schedule);
    tsar::Region region("converge", schedule);
    auto clock = emulated::emulate_time(region);
    for (int pass = 0; pass < 7; ++pass) {
      region.parallel_for(kN, [&](const tsar::Chunk& c) {
        run_emulated(*clock, c, factor[static_cast<std::size_t>(c.worker())]);
      });
    }
    // Within 5%: an equal split's times (all alike) or a device's slowdown taken for another's
    // are far outside it.
    for (int w = 0; w < 4; ++w)
      EXPECT_NEAR(learned_units(region, w), factor[static_cast<std::size_t>(w)],
                  0.05 * factor[static_cast<std::size_t>(w)])
          << "device " << w;
  }
}

TEST_F(Adaptation, SplitAdaptsWithinASinglePass) {
  // split:8 runs the pass as 8 sub-passes of 40 iterations; device 1 runs 3x slower. The
  // first sub-pass splits 20:20 (nothing measured yet), later ones follow the times learned
  // in the earlier ones, 30:10. Where device 1's range starts is where its first piece of a
  // sub-pass starts: each device's first piece of a sub-pass waits until both have started
  // one, so neither can take the other's range head (an order, not a duration). The
  // iterations each device ran are not asserted: after its head, who runs what is stealing.
  tsar::set_devices("cpu:0,cpu:1");
  tsar::Region region("single", "split:8");
  auto clock = emulated::emulate_time(region);
  constexpr int kSubPasses = 8;
  constexpr std::int64_t kSize = 40;
  std::atomic<std::int64_t> head[kSubPasses][2];
  for (auto& sub : head)
    for (auto& h : sub) h = -1;
  region.parallel_for(kSubPasses * kSize, [&](const tsar::Chunk& c) {
    auto& sub = head[c.begin() / kSize];
    auto& mine = sub[static_cast<std::size_t>(c.worker())];
    if (mine.load() < 0) {  // one thread per device: no one else writes it
      mine = c.begin();
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while ((sub[0].load() < 0 || sub[1].load() < 0) && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
    }
    run_emulated(*clock, c, c.worker() == 0 ? 1 : 3);
  });
  EXPECT_EQ(region.pass_stats().pass.sub_passes, kSubPasses);
  const auto device0_share = [&](int k) { return head[k][1].load() - k * kSize; };
  EXPECT_EQ(device0_share(0), 20);
  for (int k = 2; k < kSubPasses; ++k)
    EXPECT_NEAR(static_cast<double>(device0_share(k)), 30.0, 1.0) << "sub-pass " << k;
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
  // head); planned from pass 0's times it would start near row 20. Device 0 of a second
  // region stays 3x slower: by pass 2 the planner has learned it 3x slower than device 1
  // (the split follows those times; which core ran how much is stealing, real time).
  tsar::set_devices("cpu:0,cpu:1");
  constexpr std::int64_t kN = 80;
  tsar::Region cold("cold-start", "adaptive");
  auto cold_clock = emulated::emulate_time(cold);
  std::vector<std::int64_t> first(2, -1);  // one thread per worker
  for (int pass = 0; pass < 2; ++pass) {
    cold.parallel_for(kN, [&](const tsar::Chunk& c) {
      const auto w = static_cast<std::size_t>(c.worker());
      if (pass == 1 && first[w] < 0) first[w] = c.begin();
      run_emulated(*cold_clock, c, w == 0 && pass == 0 ? 3.0 : 1.0);
    });
  }
  EXPECT_EQ(first[0], 0);
  EXPECT_EQ(first[1], kN / 2);
  tsar::Region slow("lasting-slowdown", "adaptive");
  auto slow_clock = emulated::emulate_time(slow);
  for (int pass = 0; pass < 3; ++pass) {
    slow.parallel_for(kN, [&](const tsar::Chunk& c) {
      run_emulated(*slow_clock, c, c.worker() == 0 ? 3.0 : 1.0);
    });
  }
  EXPECT_NEAR(learned_units(slow, 0) / learned_units(slow, 1), 3.0, 0.15);
}

TEST_F(Adaptation, ChunkDynamicGivesTheSlowDeviceFewerIterations) {
  // Chunks go to whichever core asks first, so the slow core's speed must be real here: each
  // of its chunks waits until the fast core has run four more (or every chunk is taken) -- an
  // ordering, not a duration, so a loaded machine cannot change who runs how much.
  tsar::set_devices("cpu:0,cpu:1");
  tsar::Region region("chunks", "chunk-dynamic:8");
  constexpr std::int64_t kN = 120;
  for (int pass = 0; pass < 3; ++pass) {
    std::atomic<std::int64_t> fast_chunks{0}, done{0};
    region.parallel_for(kN, [&](const tsar::Chunk& c) {
      if (c.worker() == 0) {
        ++fast_chunks;
      } else {
        const auto target = fast_chunks.load() + 4;
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (fast_chunks.load() < target && done.load() + c.size() < kN &&
               std::chrono::steady_clock::now() < until)
          std::this_thread::yield();
      }
      done += c.size();
    });
    ASSERT_EQ(done.load(), kN);
  }
  const auto split = region.split();
  EXPECT_GT(split[0], 2 * split[1]);  // 4:1 and more; equal shares would be a defect
}

TEST_F(Adaptation, OneSpikyPassDoesNotCollapseTheSplit) {
  // Equal devices; in pass 4 device 0 takes 10x longer once (a page-fault storm, a
  // preemption). Trusting the last pass alone would learn device 0 10x slower and give it ~9%
  // of the split; the split follows the learned times (which core ran how much within a pass
  // is stealing, real time), so those are asserted: still within 2x of each other.
  tsar::set_devices("cpu:0,cpu:1");
  tsar::Region region("spiky", "adaptive");
  auto clock = emulated::emulate_time(region);
  for (int pass = 0; pass < 8; ++pass) {
    region.parallel_for(80, [&](const tsar::Chunk& c) {
      run_emulated(*clock, c, c.worker() == 0 && pass == 4 ? 10.0 : 1.0);
    });
    if (pass >= 4) {
      EXPECT_LT(learned_units(region, 0), 2 * learned_units(region, 1)) << "pass " << pass;
      EXPECT_GT(learned_units(region, 1), 0.0) << "pass " << pass;
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
  // Emulated time: on real time a core woken late has its range run by the caller.
  auto clock = emulated::emulate_time(region);
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
      // Core 1 runs its range, all of it -- or none, where it had not started when core 0, the
      // caller, was done and had waited as long again: core 0 then runs it (a late worker).
      const auto split = region.split();
      const bool late = stats.devices[1].chunks == 0;
      EXPECT_EQ(stats.devices[0].chunks, late ? 2 : 1) << "pass " << pass;
      EXPECT_EQ(stats.devices[0].iterations, split[0] + (late ? split[1] : 0)) << "pass " << pass;
      EXPECT_EQ(stats.devices[1].iterations, late ? 0 : split[1]) << "pass " << pass;
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
// chunks taken in order). On emulated time, whose clock hands out pieces in the order of the
// workers' emulated times: while the late core's first piece runs, the on-time core takes over
// the rest (on own ranges, it has only its own).
TEST_F(Adaptation, CoresKeepBalancingWhereItSavesALateCoresRest) {
  tsar::set_devices("cpu:0,cpu:1");
  tsar::Region region("balancing-pays", "adaptive");
  auto clock = emulated::emulate_time(region);
  constexpr std::int64_t kN = 40;
  int balanced = 0;
  for (int pass = 0; pass < 2 + 24 + 6; ++pass) {
    std::vector<int> first(2, 1);  // one thread per worker
    region.parallel_for(kN, [&](const tsar::Chunk& c) {
      const auto w = static_cast<std::size_t>(c.worker());
      if (first[w] && c.worker() == pass % 2) clock->advance(c.worker(), 20 * kUnit);
      first[w] = 0;
      run_emulated(*clock, c, 1.0);
    });
    if (pass >= 2 + 24) balanced += region.pass_stats().pass.cpu_sharing != TSAR_SHARE_OWN;
  }
  EXPECT_EQ(balanced, 6);
}

}  // namespace
