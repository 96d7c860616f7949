// SPDX-License-Identifier: BSD-3-Clause
// The suite's time-step kernels (BiCGStab, residual, wave: several dependent loops a step,
// a region each) with their shared data in a data environment, on host-as-device
// accelerators: every run equals the serial reference, and the bytes the regions moved are
// those the loops' splits require by the row-coherence model tsar-bench-gpu reports them
// against (apps/tsar/traffic_model.hpp) -- with each loop split differently, so rows move
// between loops every step.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "accel_bodies.hpp"
#include "kept_loops.hpp"
#include "kernel_list.hpp"
#include "tsar/tsar.hpp"

namespace {

class KeptKernels : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (accel_test::setup().kind == "cuda") GTEST_SKIP() << "the kernels run as OpenMP targets";
    tsar::set_devices(accel_test::setup().devices);
  }
  void TearDown() override { tsar::set_devices(""); }
};

TEST_P(KeptKernels, MoveWhatTheirSplitsRequireAndMatchTheSerialLoops) {
  auto kernel = tsar::kernels::make_kernel(GetParam());
  ASSERT_TRUE(kernel);
  kernel->setup(tsar::kernels::Scale::tiny);
  kernel->compute_reference();
  kernel->reset();
  // A static region per loop; loop i gives each accelerator 2 + i % 3 times a core's rows.
  std::vector<std::unique_ptr<tsar::Region>> owned;
  std::vector<tsar::Region*> regions;
  for (const auto& loop : kernel->loops()) {
    tsar::RegionOptions o;
    o.name = loop.name;
    o.schedule = "static";
    const int n = tsar::count_devices();
    tsar::Region probe(o);
    for (int w = 0; w < n; ++w)
      o.time_per_iteration.push_back(
          probe.device(w).kind == TSAR_DEVICE_CPU ? 1.0 : 1.0 / (2 + loop.index % 3));
    owned.push_back(std::make_unique<tsar::Region>(o));
    owned.back()->set_backoff(0);
    regions.push_back(owned.back().get());
  }
  tsar_bench_gpu::KeptLoops kept(*kernel, regions);
  std::int64_t moved = 0;
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    kept.restart();
    moved = 0;
    kernel->run([&](const tsar::kernels::Loop& loop, std::int64_t n) {
      tsar::Region& r = *regions[static_cast<std::size_t>(loop.index)];
      tsar_region* handle = r.handle();
      const tsar::kernels::Translate translate = [handle](const void* host) {
        return tsar_mem(handle, host);
      };
      r.parallel_for(n, [&](const tsar::Chunk& c) {
        if (c.kind() == tsar::DeviceKind::omp_target)
          loop.offload(c.begin(), c.end(), c.omp_device(), translate);
        else
          loop.host(c.begin(), c.end());
      });
      for (const auto& d : r.pass_stats().devices) moved += d.bytes_to_device + d.bytes_from_device;
      kept.count(loop, r);
    });
    kept.data().update_host();
    const auto check = kernel->check();
    EXPECT_TRUE(check.ok) << check.detail;
    ASSERT_GE(kept.required(), 0);
    EXPECT_GT(kept.required(), 0);
    EXPECT_EQ(moved, kept.required());
    kernel->reset();
    kept.host_restored();
  }
}

INSTANTIATE_TEST_SUITE_P(TimeSteps, KeptKernels, ::testing::Values("bicgstab", "residual", "wave"));

}  // namespace
