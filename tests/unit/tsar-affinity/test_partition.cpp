// SPDX-License-Identifier: BSD-3-Clause
// Nested partitions on this machine: the outer split over places, inner loops over each
// place's devices, barriers, cancellation, bind_partition timing and re-balancing.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "api/error.hpp"
#include "emulated_clock.hpp"
#include "partition_fixture.hpp"

namespace tsar::test {
namespace {

using core::Partition;
using core::Range;
using ::testing::HasSubstr;

std::shared_ptr<FakeNumaMemory> two_nodes() { return std::make_shared<FakeNumaMemory>(2); }

TEST(Partition, OuterAndInnerSplitsCoverTheRangeOnce) {
  auto p = make_partition(two_nodes(), "cpu:0|cpu:1", {0, 1});
  const std::int64_t n = 1000;
  std::vector<std::atomic<int>> hits(n);
  std::vector<Range> seen(2);
  run_pass(*p, n, [&](tsar_place* place, std::int64_t b, std::int64_t e) {
    seen[static_cast<std::size_t>(place->index)] = {b, e};
    EXPECT_EQ(place_for(place, 0, b, e,
                        [&](const tsar_chunk& c) {
                          EXPECT_GE(c.begin, b);
                          EXPECT_LE(c.end, e);
                          for (auto i = c.begin; i < c.end; ++i) hits[i]++;
                        }),
              TSAR_OK);
  });
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << i;
  EXPECT_EQ(seen[0].begin, 0);
  EXPECT_EQ(seen[0].end, seen[1].begin);
  EXPECT_EQ(seen[1].end, n);
  EXPECT_EQ(seen[0].size(), 500) << "equal cores, equal default shares";
  tsar_place_stats stats[2];
  p->pass_stats(-1, nullptr, stats, 2);
  EXPECT_EQ(stats[1].begin, 500);
  EXPECT_EQ(stats[1].numa_node, 1);
  EXPECT_GT(stats[0].seconds, 0.0);
}

TEST(Partition, InnerLoopsSplitOverThePlacesDevices) {
  auto p = make_partition(two_nodes(), "cpu:0,cpu:1", {0});
  std::mutex m;
  std::set<int> workers;
  run_pass(*p, 100, [&](tsar_place* place, std::int64_t b, std::int64_t e) {
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, 100);
    // An inner loop over another iteration space than the outer one (GEMM: columns
    // outside, rows inside).
    place_for(place, 3, 1000, 1200, [&](const tsar_chunk& c) {
      EXPECT_GE(c.begin, 1000);
      EXPECT_LE(c.end, 1200);
      {
        std::lock_guard lock(m);
        workers.insert(c.worker);
      }
      // The place's cores balance their ranges within the pass: a worker that woke first
      // could run them all before the other woke. A first piece waits for the other worker's
      // (neither can take the other's piece in progress, so both get one).
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (std::chrono::steady_clock::now() < until) {
        {
          std::lock_guard lock(m);
          if (workers.size() == 2) break;
        }
        std::this_thread::yield();
      }
    });
  });
  EXPECT_EQ(workers, (std::set<int>{0, 1}));
}

TEST(Partition, EmptyPartsStillRunTheirBodyAndMeetAtBarriers) {
  auto p = make_partition(two_nodes(), "cpu:0|cpu:1", {0, 1});
  std::atomic<int> bodies{0}, passed{0};
  run_pass(*p, 1, [&](tsar_place* place, std::int64_t, std::int64_t) {
    ++bodies;
    for (int k = 0; k < 3; ++k) passed += p->barrier(place->index) == TSAR_OK ? 1 : 0;
  });
  EXPECT_EQ(bodies.load(), 2);
  EXPECT_EQ(passed.load(), 6);
}

TEST(Partition, APlaceThatReturnedIsNotWaitedFor) {
  auto p = make_partition(two_nodes(), "cpu:0|cpu:1", {0, 1});
  std::atomic<int> status{-1};
  run_pass(*p, 10, [&](tsar_place* place, std::int64_t, std::int64_t) {
    if (place->index == 1) status = p->barrier(1);  // place 0 never comes
  });
  EXPECT_EQ(status.load(), TSAR_OK);
}

TEST(Partition, CancelReleasesBarriersAndTheNextPassRuns) {
  auto p = make_partition(two_nodes(), "cpu:0|cpu:1", {0, 1});
  std::atomic<int> waited{-1}, later{-1};
  std::atomic<bool> started{false};
  try {
    run_pass(*p, 10, [&](tsar_place* place, std::int64_t b, std::int64_t e) {
      if (place->index == 0) {
        started = true;
        waited = p->barrier(0);
        later = place_for(place, 0, b, e, [](const tsar_chunk&) {});
      } else {
        // Once place 0's body runs (a canceled pass starts no more bodies).
        while (!started) std::this_thread::yield();
        EXPECT_EQ(p->cancel(), TSAR_OK);
      }
    });
    ADD_FAILURE() << "a canceled pass must fail";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_CANCELED);
  }
  EXPECT_EQ(waited.load(), TSAR_ERR_CANCELED);
  EXPECT_EQ(later.load(), TSAR_ERR_CANCELED);
  tsar_pass_stats ps{};
  p->pass_stats(-1, &ps, nullptr, 0);
  EXPECT_EQ(ps.canceled, 1);
  std::atomic<int> ok{0};
  run_pass(*p, 10, [&](tsar_place* place, std::int64_t, std::int64_t) {
    ok += p->barrier(place->index) == TSAR_OK ? 1 : 0;
  });
  EXPECT_EQ(ok.load(), 2);
}

TEST(Partition, AnInnerBodyCancelsTheWholePass) {
  auto p = make_partition(two_nodes(), "cpu:0|cpu:1", {0, 1});
  EXPECT_THROW(run_pass(*p, 100,
                        [&](tsar_place* place, std::int64_t b, std::int64_t e) {
                          place_for(place, 0, b, e, [&](const tsar_chunk&) { p->cancel(); });
                          p->barrier(place->index);
                        }),
               core::Error);
}

TEST(Partition, WaitsAtBarriersAreNotMistakenForSlowness) {
  // Place 0's iterations cost 8x place 1's; both then wait for each other. Re-balancing
  // learns from the body less the waits, so place 1 gets more of the next pass (counting
  // the waits, both would look equally slow and keep 10 each). On emulated time, so the
  // split is the same on a loaded machine.
  auto p = make_partition(two_nodes(), "cpu:0|cpu:1", {0, 1});
  auto clock = std::make_shared<emulated::Clock>(2);
  p->set_clock(clock);
  const auto body = [&](tsar_place* place, std::int64_t b, std::int64_t e) {
    const double cost = place->index == 0 ? 4e-3 : 0.5e-3;
    place_for(place, 0, b, e, [&](const tsar_chunk& c) {
      clock->advance(place->index, cost * static_cast<double>(c.end - c.begin));
    });
    p->barrier(place->index);
  };
  run_pass(*p, 20, body);
  const auto first = p->ranges();
  tsar_place_stats s[2];
  p->pass_stats(0, nullptr, s, 2);
  // Place 1 reached the barrier first and left at place 0's arrival.
  EXPECT_NEAR(s[1].wait_seconds, 4e-3 * static_cast<double>(first[0].size()) -
                                     0.5e-3 * static_cast<double>(first[1].size()), 1e-9);
  EXPECT_NEAR(s[0].wait_seconds, 0.0, 1e-9);
  EXPECT_NEAR(s[1].timed_seconds, s[1].seconds - s[1].wait_seconds, 1e-9);
  run_pass(*p, 20, body);
  const auto r = p->ranges();
  EXPECT_GT(r[1].size(), 3 * r[0].size()) << "8:1 speeds should give about 2:18";
}

TEST(Partition, BindPartitionTimesOnlyTheBoundLoop) {
  auto p = make_partition(two_nodes(), "cpu:0|cpu:1", {0, 1});
  p->bind(1);
  run_pass(*p, 2, [&](tsar_place* place, std::int64_t b, std::int64_t e) {
    // Loop 0 is setup that does not scale with the part; loop 1 is the work.
    place_for(place, 0, 0, 1, [](const tsar_chunk&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    });
    place_for(place, 1, b, e, [](const tsar_chunk&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    });
  });
  tsar_place_stats s[2];
  p->pass_stats(-1, nullptr, s, 2);
  for (const auto& st : s) {
    EXPECT_GE(st.timed_seconds, 0.010);
    // timed + loop 0 (>= 30 ms) fit in the body: loop 0 was left out.
    EXPECT_LE(st.timed_seconds + 0.030, st.seconds);
  }
}

TEST(Partition, ABoundPartitionIsBalancedForItsLoopOverManyPasses) {
  // Place 0 also runs a fixed setup loop (loop 0, 90 ms, not proportional to its part); the
  // work loop (loop 1) costs the same per iteration on both places. Timed on the whole body,
  // place 0 looks ~4x slower per iteration and loses most of its part (about 4 of 20);
  // bound to loop 1 the places are equally fast and the split stays near 10:10, pass after
  // pass. On emulated time (emulated_clock.hpp: place w's clock is worker w's), so the split
  // is the same on a loaded machine.
  const auto run = [](bool bind) {
    auto p = make_partition(two_nodes(), "cpu:0|cpu:1", {0, 1});
    auto clock = std::make_shared<emulated::Clock>(2);
    p->set_clock(clock);
    if (bind) p->bind(1);
    std::vector<std::int64_t> parts;
    for (int pass = 0; pass < 4; ++pass) {
      run_pass(*p, 20, [&](tsar_place* place, std::int64_t b, std::int64_t e) {
        if (place->index == 0)
          place_for(place, 0, 0, 1, [&](const tsar_chunk&) { clock->advance(0, 90e-3); });
        place_for(place, 1, b, e, [&](const tsar_chunk& c) {
          clock->advance(place->index, 3e-3 * static_cast<double>(c.end - c.begin));
        });
      });
      parts.push_back(p->ranges()[0].size());
    }
    return parts;
  };
  const auto bound = run(true);
  const auto whole = run(false);
  for (std::size_t pass = 1; pass < bound.size(); ++pass) {
    EXPECT_GE(bound[pass], 7) << "pass " << pass;
    EXPECT_LE(bound[pass], 13) << "pass " << pass;
    EXPECT_LE(whole[pass], 6) << "pass " << pass;
  }
}

TEST(Partition, TheSplitStaysForRebalancePasses) {
  auto p = make_partition(two_nodes(), "cpu:0|cpu:1", {0, 1});
  p->set_rebalance(3);
  auto clock = std::make_shared<emulated::Clock>(2);  // place 0 10x slower, on emulated time
  p->set_clock(clock);
  const auto body = [&](tsar_place* place, std::int64_t b, std::int64_t e) {
    place_for(place, 0, b, e, [&](const tsar_chunk& c) {
      clock->advance(place->index,
                     (place->index == 0 ? 3e-3 : 3e-4) * static_cast<double>(c.end - c.begin));
    });
  };
  std::vector<std::vector<Range>> splits;
  for (int pass = 0; pass < 4; ++pass) {
    run_pass(*p, 20, body);
    splits.push_back(p->ranges());
  }
  EXPECT_EQ(splits[1][0].size(), splits[0][0].size());
  EXPECT_EQ(splits[2][0].size(), splits[0][0].size());
  EXPECT_LT(splits[3][0].size(), splits[0][0].size()) << "re-split on the fourth pass";
  // Another n re-splits at once.
  run_pass(*p, 40, body);
  EXPECT_EQ(p->ranges()[1].end, 40);
}

TEST(Partition, RefusedConfigurations) {
  EXPECT_THROW(make_partition(two_nodes(), "cpu:0|cpu:1", {0, 1}, "chunk"), core::Error);
  auto p = make_partition(two_nodes(), "cpu:0|cpu:1", {0, 1});
  try {
    p->set_policy(TSAR_LEVEL_DEVICES, TSAR_POLICY_MIGRATE);
    ADD_FAILURE();
  } catch (const core::Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_UNSUPPORTED);
  }
  EXPECT_THROW(p->set_policy(7, TSAR_POLICY_COHERENT), core::Error);
  EXPECT_THROW(p->set_policy(TSAR_LEVEL_PLACES, 9), core::Error);
  EXPECT_THROW(p->set_rebalance(0), core::Error);
  // Place operations from the wrong thread, and a pass from inside a pass.
  run_pass(*p, 10, [&](tsar_place* place, std::int64_t, std::int64_t) {
    const int other = 1 - place->index;
    EXPECT_EQ(p->barrier(other), TSAR_ERR_THREADS);
    EXPECT_THAT(tsar_last_error(), HasSubstr("place " + std::to_string(other)));
    if (place->index == 0) {
      EXPECT_THROW(run_pass(*p, 10, [](tsar_place*, std::int64_t, std::int64_t) {}), core::Error);
    }
  });
}

}  // namespace
}  // namespace tsar::test
