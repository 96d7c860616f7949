// SPDX-License-Identifier: BSD-3-Clause
// The calling thread's CPU mask after any TSAR call is what it was before: TSAR binds its own
// worker threads only, never the program's (an MPI rank's main thread, an OpenMP team), whose
// later work would otherwise inherit one core.
#include <gtest/gtest.h>
#include <omp.h>
#include <sched.h>

#include <atomic>
#include <vector>

#include "tsar/tsar.h"

namespace {

std::vector<int> my_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

/// Devices on the first two CPUs the test may use, the caller allowed on both: a TSAR that
/// pinned the caller to device 0 would leave it on one.
class CallerAffinity : public ::testing::Test {
 protected:
  void SetUp() override {
    cpus_ = my_cpus();
    if (cpus_.size() < 2) GTEST_SKIP() << "needs two CPUs in the test's affinity mask";
    const std::string spec = "cpu:" + std::to_string(cpus_[0]) + ",cpu:" + std::to_string(cpus_[1]);
    ASSERT_EQ(tsar_set_devices(spec.c_str()), TSAR_OK) << tsar_last_error();
  }
  void TearDown() override { tsar_set_devices(nullptr); }
  std::vector<int> cpus_;
};

struct Seen {
  std::atomic<int> worker_masks_wrong{0};
  std::vector<int> pool_cpus;
};

void record(const tsar_chunk* c, void* arg) {
  auto* seen = static_cast<Seen*>(arg);
  if (c->worker == 1) seen->pool_cpus = my_cpus();
}

TEST_F(CallerAffinity, APassOnThePoolLeavesTheCallersMask) {
  tsar_region* r = nullptr;
  ASSERT_EQ(tsar_init(&r, "affinity", "static", TSAR_DEVICE_CPU, nullptr, 0, 0), TSAR_OK);
  EXPECT_EQ(my_cpus(), cpus_);
  Seen seen;
  for (int pass = 0; pass < 3; ++pass) {
    ASSERT_EQ(tsar_run(r, 100, record, &seen), TSAR_OK);
    EXPECT_EQ(my_cpus(), cpus_) << "after pass " << pass;
  }
  // TSAR's own worker is bound to its device.
  EXPECT_EQ(seen.pool_cpus, std::vector<int>{cpus_[1]});
  EXPECT_EQ(tsar_free(r), TSAR_OK);
  EXPECT_EQ(my_cpus(), cpus_);
}

TEST_F(CallerAffinity, AThesisStylePassLeavesTheTeamsMasks) {
  tsar_region* r = nullptr;
  ASSERT_EQ(tsar_init(&r, "affinity-omp", "static", TSAR_DEVICE_CPU, nullptr, 0, 0), TSAR_OK);
  std::atomic<int> changed{0};
#pragma omp parallel num_threads(tsar_num_devices(r))
  {
    const std::vector<int> before = my_cpus();
    do {
      int64_t b = 0, e = 0;
      tsar_next(r, 100, &b, &e);
    } while (tsar_loop(r));
    if (my_cpus() != before) ++changed;
  }
  EXPECT_EQ(changed.load(), 0);
  EXPECT_EQ(tsar_free(r), TSAR_OK);
}

TEST_F(CallerAffinity, APartitionPassLeavesTheCallersMask) {
  tsar_partition* p = nullptr;
  const std::string places = "cpu:" + std::to_string(cpus_[0]) + "|cpu:" + std::to_string(cpus_[1]);
  ASSERT_EQ(tsar_partition_init(&p, "affinity", places.c_str(), nullptr, nullptr, 0), TSAR_OK)
      << tsar_last_error();
  const auto body = [](tsar_place* place, int64_t b, int64_t e, void*) {
    tsar_place_for(
        place, 0, b, e, [](const tsar_chunk*, void*) {}, nullptr);
  };
  ASSERT_EQ(tsar_partition_run(p, 100, body, nullptr), TSAR_OK);
  EXPECT_EQ(my_cpus(), cpus_);
  EXPECT_EQ(tsar_partition_free(p), TSAR_OK);
}

}  // namespace
