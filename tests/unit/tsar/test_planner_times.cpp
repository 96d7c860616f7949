// SPDX-License-Identifier: BSD-3-Clause
// The pass planner keeps the times it planned with until what it learned changes them
// (PassPlanner::current_times): a retirement changes them too, without anything learned.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "devices/host_device.hpp"
#include "schedule/planner.hpp"

namespace {

using tsar::core::CopyCosts;
using tsar::core::Device;
using tsar::core::DeviceDescription;
using tsar::core::PassPlanner;
using tsar::core::SubPassPlan;
using tsar::core::WorkerSample;

std::shared_ptr<Device> device(int id, bool accelerator, double peak) {
  DeviceDescription d;
  d.kind = accelerator ? tsar::core::DeviceKind::kEmulated : tsar::core::DeviceKind::kCpu;
  d.accelerator = accelerator;
  d.id = id;
  d.key = (accelerator ? "emul:" : "cpu:") + std::to_string(id);
  d.cores.assign(1, id);
  d.control_core = id;
  d.peak_gflops = peak;
  d.host_memory = true;
  return std::make_shared<tsar::core::HostDevice>(std::move(d));
}

TEST(PlannerTimes, AnAcceleratorRetiredWithNoCoreToBecomeGetsNoRowsFromTheNextPassOn) {
  // Two cores and an accelerator a hundred times slower per iteration than a core, though its
  // peak promises more: back-off retires it, and with no core to become it leaves. Nothing it
  // learns in that pass changes a time the pass after plans with -- only the retirement does.
  const std::vector<double> tpi{1e-6, 1e-6, 1e-4};
  PassPlanner planner({}, {device(0, false, 1.0), device(1, false, 1.0), device(2, true, 10.0)}, {},
                      [](int) { return std::shared_ptr<Device>(); });
  SubPassPlan plan;
  std::vector<WorkerSample> samples(3);
  const std::int64_t n = 1000;
  int pass = 0;
  for (; pass < 10 && !planner.retired(2); ++pass) {
    planner.plan_pass(n, CopyCosts{}, plan);
    ASSERT_FALSE(plan.chunked);
    for (std::size_t w = 0; w < 3; ++w) {
      const double seconds = static_cast<double>(plan.counts[w]) * tpi[w];
      samples[w] = {plan.counts[w], seconds, seconds};
    }
    EXPECT_FALSE(planner.finish_sub_pass(samples, true, plan));
    planner.end_pass(true, std::max({samples[0].finish, samples[1].finish, samples[2].finish}),
                     samples);
  }
  ASSERT_TRUE(planner.retired(2)) << "after " << pass << " passes";
  planner.plan_pass(n, CopyCosts{}, plan);
  EXPECT_EQ(plan.counts[2], 0);
  EXPECT_EQ(plan.counts[0] + plan.counts[1], n);
}

}  // namespace
