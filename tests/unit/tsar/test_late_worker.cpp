// SPDX-License-Identifier: BSD-3-Clause
// A pass does not wait for CPU workers that never started: their threads held before their jobs
// (pool_threads.hpp) -- a core another thread holds -- or still leaving the last pass's, the
// pass ends anyway with every iteration run once, under each way of sharing the cores
// (stealing ranges, own ranges, chunks), and the worker joins the passes after it is let go.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pool_threads.hpp"
#include "tsar/tsar.hpp"

namespace {

using pool_threads::HeldSlots;
using pool_threads::my_cpus;

class LateWorker : public ::testing::TestWithParam<const char*> {
 protected:
  /// Four workers, two on each of the first two CPUs, in a region of the parameter's schedule.
  void SetUp() override {
    const std::vector<int> cpus = my_cpus();
    const std::string a = std::to_string(cpus[0]);
    const std::string b = std::to_string(cpus[cpus.size() > 1 ? 1 : 0]);
    tsar::set_devices("cpu:" + a + ",cpu:" + b + ",cpu:" + a + ",cpu:" + b);
    region_ = std::make_unique<tsar::Region>(
        std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()), GetParam());
  }
  void TearDown() override {
    region_.reset();
    tsar::set_devices("");
  }
  /// One pass over kN iterations, each counted.
  void pass() {
    region_->parallel_for(kN, [&](const tsar::Chunk& c) {
      for (auto i = c.begin(); i < c.end(); ++i) hits_[static_cast<std::size_t>(i)]++;
    });
    ++passes_;
  }
  void expect_each_iteration_once_a_pass() const {
    for (std::int64_t i = 0; i < kN; ++i)
      ASSERT_EQ(hits_[static_cast<std::size_t>(i)], passes_) << "iteration " << i;
  }

  static constexpr std::int64_t kN = 5000;
  std::unique_ptr<tsar::Region> region_;
  std::vector<int> hits_ = std::vector<int>(kN, 0);
  int passes_ = 0;
};

TEST_P(LateWorker, APassEndsWithoutCpuWorkersThatNeverStarted) {
  // Workers 1 and 2 of four held: the caller takes back one job, runs its rows, then the other.
  for (int p = 0; p < 5; ++p) pass();
  {
    HeldSlots held(1, 2);
    // Without taking the held worker's job back, the first of these never returns.
    int late = 0;
    for (int p = 0; p < 20; ++p) {
      pass();
      const auto stats = region_->pass_stats();
      for (std::size_t w = 0; w < stats.devices.size(); ++w) {
        const auto& d = stats.devices[w];
        const bool held_worker = w == 1 || w == 2;
        if (held_worker) {
          EXPECT_EQ(d.iterations, 0) << "a held worker ran";
        }
        if (d.late == 0) continue;  // (a worker not held may be late too: four on two cores)
        EXPECT_EQ(d.iterations, 0) << "device " << w << " ran rows, yet late";
        ++late;
      }
    }
    EXPECT_GT(late, 0);  // the statistics say whose rows the caller ran
    held.let_go();
    for (int p = 0; p < 5; ++p) pass();
  }
  expect_each_iteration_once_a_pass();
}

TEST_P(LateWorker, APassDoesNotWaitForWorkersStillLeavingTheLast) {
  // Workers 1 and 2 of four stay in the first held pass's job after its barrier: the passes
  // after it start at once, take their jobs back and run their rows.
  for (int p = 0; p < 5; ++p) pass();
  {
    HeldSlots held(1, 2, HeldSlots::kLeave);
    for (int p = 0; p < 20; ++p) pass();
    EXPECT_FALSE(HeldSlots::timed_out.load()) << "a pass waited for a worker still leaving";
    held.let_go();
    for (int p = 0; p < 5; ++p) pass();
  }
  expect_each_iteration_once_a_pass();
}

INSTANTIATE_TEST_SUITE_P(Sharing, LateWorker,
                         ::testing::Values("adaptive", "static", "chunk-dynamic", "hybrid"));

}  // namespace
