// SPDX-License-Identifier: BSD-3-Clause
// Run under `taskset -c 0` (the ctest entry does): TSAR's default devices come from the
// process's mask, so the process gets one CPU worker, on CPU 0, and its chunks run there.
// Without the mask a 2-core machine would give two CPU workers, one outside the mask.
#include <gtest/gtest.h>
#include <sched.h>

#include <mutex>
#include <set>
#include <vector>

#include "tsar/tsar.hpp"

namespace {

TEST(OneCpuProcess, HasOneCpuWorkerOnItsCpu) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  ASSERT_EQ(CPU_COUNT(&set), 1) << "run this test under taskset -c 0";
  ASSERT_TRUE(CPU_ISSET(0, &set));

  int cpus = 0;
  ASSERT_EQ(tsar_count_devices(TSAR_DEVICE_CPU, &cpus), TSAR_OK);
  EXPECT_EQ(cpus, 1);

  tsar::Region region("one-cpu", "static", TSAR_DEVICE_CPU);
  ASSERT_EQ(region.num_devices(), 1);
  EXPECT_EQ(region.device(0).id, 0);  // a CPU device's id: its first Linux CPU
  std::mutex m;
  std::set<int> ran_on;
  std::vector<double> y(20000, 1.0);
  for (int pass = 0; pass < 3; ++pass)
    region.parallel_for(static_cast<std::int64_t>(y.size()), [&](const tsar::Chunk& c) {
      for (auto i = c.begin(); i < c.end(); ++i) y[static_cast<std::size_t>(i)] *= 2.0;
      std::lock_guard lock(m);
      ran_on.insert(sched_getcpu());
    });
  EXPECT_EQ(ran_on, (std::set<int>{0}));
  EXPECT_DOUBLE_EQ(y.front(), 8.0);
  EXPECT_DOUBLE_EQ(y.back(), 8.0);
}

}  // namespace
