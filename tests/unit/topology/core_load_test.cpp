// SPDX-License-Identifier: BSD-3-Clause
// Per-CPU and per-core effective capability against values worked out by hand from the
// fixture files (tests/fixtures/proc/*/README.md and the numbers quoted below).
#include "symmer/topology/core_load.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <ctime>
#include <thread>

#include "proc_fixtures.hpp"

namespace {

using namespace symmer::topology;
using symmer::Errc;
using symmer::topology::testing::snapshot;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr double kHz = 100;  // USER_HZ the fixtures were written with

class Synthetic4Cpu : public ::testing::Test {
 protected:
  ProcSnapshot a = snapshot("synthetic-4cpu/a");
  ProcSnapshot b = snapshot("synthetic-4cpu/b");
};

TEST_F(Synthetic4Cpu, SharesAndCapabilityPerCpu) {
  auto loads = cpu_loads(a, b, {}, kHz);
  ASSERT_TRUE(loads) << loads.error().to_string();
  ASSERT_EQ(loads->size(), 4u);
  const CoreLoad& c0 = (*loads)[0];
  EXPECT_THAT(c0.cpus, ElementsAre(0));
  EXPECT_EQ(c0.core, -1);
  EXPECT_DOUBLE_EQ(c0.window_seconds, 1.0);
  EXPECT_DOUBLE_EQ(c0.busy, 0.4);
  EXPECT_DOUBLE_EQ(c0.foreign, 0.4) << "no job share given: all busy time is foreign";
  EXPECT_DOUBLE_EQ(c0.capability, 0.6);
  EXPECT_EQ(c0.device_interrupts, 70u) << "the nvidia line";

  const CoreLoad& c1 = (*loads)[1];
  EXPECT_DOUBLE_EQ(c1.irq, 0.2);
  EXPECT_DOUBLE_EQ(c1.softirq, 0.1);
  EXPECT_DOUBLE_EQ(c1.idle, 0.7);
  EXPECT_DOUBLE_EQ(c1.capability, 0.7);
  EXPECT_EQ(c1.device_interrupts, 2000u + 300u);
  EXPECT_EQ(c1.net_rx, 1500u);
  EXPECT_EQ(c1.net_tx, 100u);

  const CoreLoad& c2 = (*loads)[2];
  EXPECT_DOUBLE_EQ(c2.steal, 0.25);
  EXPECT_DOUBLE_EQ(c2.busy, 0.5);
  EXPECT_DOUBLE_EQ(c2.capability, 0.25);
  EXPECT_EQ(c2.device_interrupts, 500u);

  const CoreLoad& c3 = (*loads)[3];
  EXPECT_DOUBLE_EQ(c3.idle, 1.0) << "iowait going backwards must not count";
  EXPECT_DOUBLE_EQ(c3.capability, 1.0);
  EXPECT_EQ(c3.device_interrupts, 50u + 2u) << "virtio input + i40e-ens7f10; xhci is new";
}

TEST_F(Synthetic4Cpu, TheJobsOwnBusyTimeIsNotForeign) {
  auto loads = cpu_loads(a, b, {{0, 0.4}, {2, 0.1}}, kHz);
  ASSERT_TRUE(loads);
  EXPECT_DOUBLE_EQ((*loads)[0].job, 0.4);
  EXPECT_DOUBLE_EQ((*loads)[0].foreign, 0.0);
  EXPECT_DOUBLE_EQ((*loads)[0].capability, 1.0);
  EXPECT_DOUBLE_EQ((*loads)[2].job, 0.1);
  EXPECT_DOUBLE_EQ((*loads)[2].foreign, 0.4);
  EXPECT_DOUBLE_EQ((*loads)[2].capability, 0.35);
}

TEST_F(Synthetic4Cpu, JobTimeBeyondTheBusyTimeIsClamped) {
  auto loads = cpu_loads(a, b, {{0, 5.0}}, kHz);
  ASSERT_TRUE(loads);
  EXPECT_DOUBLE_EQ((*loads)[0].job, 0.4);
  EXPECT_DOUBLE_EQ((*loads)[0].foreign, 0.0);
  // The ticks keep it as given: a later window where it came out short makes up for it.
  EXPECT_DOUBLE_EQ((*loads)[0].ticks.job, 500.0);
  EXPECT_EQ((*loads)[0].ticks.busy, 40u);
}

// A busy core whose job time read a tick over in one window and a tick short in the next: each
// window's capability is clamped (1.0, then 0.9), the two windows' ticks read once give 1.0.
TEST(CoreLoad, CapabilityOfSummedTicksIsClampedOnce) {
  CoreTicks over{.busy = 10, .job = 11};
  const CoreTicks short_one{.busy = 10, .job = 9};
  EXPECT_DOUBLE_EQ(capability_of(over), 1.0);
  EXPECT_DOUBLE_EQ(capability_of(short_one), 0.9);
  EXPECT_DOUBLE_EQ(capability_of(over += short_one), 1.0);
  EXPECT_EQ(over.total(), 20u);
  EXPECT_DOUBLE_EQ(capability_of(CoreTicks{.irq = 5, .idle = 15}), 0.75);
  EXPECT_DOUBLE_EQ(capability_of(CoreTicks{}), 1.0);
}

TEST_F(Synthetic4Cpu, PerCoreSumsTheCoresCpus) {
  // Two cores of two hardware threads: core 0 = CPUs 0,1; core 1 = CPUs 2,3.
  const NodeModel model = NodeModel::from_synthetic("pack:1 core:2 pu:2");
  auto loads = core_loads(model, a, b, {0.4}, kHz);
  ASSERT_TRUE(loads) << loads.error().to_string();
  ASSERT_EQ(loads->size(), 2u);
  // core 0: busy 40, irq 20, softirq 10, idle 130 of 200 ticks; the job's 0.4 s = 40 ticks.
  const CoreLoad& k0 = (*loads)[0];
  EXPECT_EQ(k0.core, 0);
  EXPECT_THAT(k0.cpus, ElementsAre(0, 1));
  EXPECT_DOUBLE_EQ(k0.window_seconds, 1.0);
  EXPECT_DOUBLE_EQ(k0.job, 0.2);
  EXPECT_DOUBLE_EQ(k0.foreign, 0.0);
  EXPECT_DOUBLE_EQ(k0.capability, 1.0 - 0.1 - 0.05);
  EXPECT_EQ(k0.device_interrupts, 70u + 2300u);
  EXPECT_EQ(k0.net_rx, 1500u);
  // core 1: busy 50, steal 25, idle 125 of 200 ticks, no job.
  EXPECT_DOUBLE_EQ((*loads)[1].capability, 1.0 - 0.125 - 0.25);
}

TEST_F(Synthetic4Cpu, SwappedOrIdenticalSnapshotsAreAnError) {
  auto swapped = cpu_loads(b, a, {}, kHz);
  ASSERT_FALSE(swapped);
  EXPECT_THAT(swapped.error().message, HasSubstr("not later"));
  EXPECT_FALSE(cpu_loads(a, a, {}, kHz));
}

// Niced work yields to a job at nice 0: it does not lower the capability the job is offered,
// while work at the job's own priority does (a CPU busy with a nice-5 build gives a nice-0 rank
// 75% of itself; one busy with another job's rank, half, taken from that rank).
TEST(CoreLoad, NicedWorkIsBackgroundThatYieldsToTheJob) {
  // 100 ticks per CPU; columns: user nice system idle iowait irq softirq steal.
  const auto stat = [](const char* all, const char* cpu0, const char* cpu1) {
    ProcSnapshot s;
    s.stat = parse_proc_stat(std::string("cpu  ") + all + "\ncpu0 " + cpu0 + "\ncpu1 " + cpu1 +
                             "\n")
                 .value();
    return s;
  };
  const char* zero = "0 0 0 0 0 0 0 0";
  const ProcSnapshot before = stat(zero, zero, zero);
  // CPU 0: the job 40, a nice-0 process 30, niced work 10, idle 20.
  // CPU 1: niced work 90, steal 10: free for the job but for the steal.
  const ProcSnapshot after =
      stat("70 100 0 20 0 0 0 10", "70 10 0 20 0 0 0 0", "0 90 0 0 0 0 0 10");
  auto loads = cpu_loads(before, after, {{0, 0.4}}, kHz);
  ASSERT_TRUE(loads) << loads.error().to_string();
  EXPECT_DOUBLE_EQ((*loads)[1].foreign, 0.9);
  EXPECT_DOUBLE_EQ((*loads)[1].background, 0.9);
  EXPECT_DOUBLE_EQ((*loads)[1].capability, 0.9);
  // The job's 40 ticks may have been niced: only nice time beyond them is surely background.
  EXPECT_DOUBLE_EQ((*loads)[0].foreign, 0.4);
  EXPECT_DOUBLE_EQ((*loads)[0].background, 0.0);
  EXPECT_DOUBLE_EQ((*loads)[0].capability, 0.6);
  // Without the job there, the niced 10 ticks are background, the nice-0 70 are not.
  auto free = cpu_loads(before, after, {}, kHz);
  ASSERT_TRUE(free);
  EXPECT_DOUBLE_EQ((*free)[0].background, 0.1);
  EXPECT_DOUBLE_EQ((*free)[0].capability, 0.3);
}

TEST_F(Synthetic4Cpu, BadArgumentsAreErrors) {
  EXPECT_EQ(cpu_loads(a, b, {{1, -1.0}}, kHz).error().code, Errc::kInvalidArgument);
  EXPECT_EQ(cpu_loads(a, b, {}, -5).error().code, Errc::kInvalidArgument);
  const NodeModel model = NodeModel::from_synthetic("pack:1 core:2 pu:2");
  auto too_many = core_loads(model, a, b, {0.1, 0.1, 0.1}, kHz);
  ASSERT_FALSE(too_many);
  EXPECT_THAT(too_many.error().message, HasSubstr("3 cores; the model has 2"));
}

TEST_F(Synthetic4Cpu, AModelCpuMissingFromTheSnapshotsIsAnError) {
  const NodeModel model = NodeModel::from_synthetic("pack:1 core:4 pu:2");  // CPUs 0-7
  auto loads = core_loads(model, a, b, {}, kHz);
  ASSERT_FALSE(loads);
  EXPECT_EQ(loads.error().code, Errc::kNotFound);
  EXPECT_THAT(loads.error().message, HasSubstr("core L:2: CPU 4 is not in /proc/stat"));
}

TEST_F(Synthetic4Cpu, ACpuWithoutTicksIsAnError) {
  ProcSnapshot b2 = b;
  b2.stat.cpus[3] = a.stat.cpus[3];  // CPU 3 saw no tick
  auto loads = cpu_loads(a, b2, {}, kHz);
  ASSERT_FALSE(loads);
  EXPECT_THAT(loads.error().message, HasSubstr("no clock tick elapsed on CPU 3"));
}

// Real capture of this 2-vCPU VM while other work ran, numbers from the two stat files:
//   cpu0 12218 0 1820 52873 110 0 82 442 -> 12272 0 1964 52874 110 0 82 444
//   cpu1 16219 0 2735 46810 1221 0 85 437 -> 16416 0 2736 46810 1221 0 85 438
TEST(RealCapture, VmWindowMatchesHandComputation) {
  const ProcSnapshot a = snapshot("vm-2cpu/a"), b = snapshot("vm-2cpu/b");
  auto loads = cpu_loads(a, b, {}, kHz);
  ASSERT_TRUE(loads) << loads.error().to_string();
  ASSERT_EQ(loads->size(), 2u);
  EXPECT_DOUBLE_EQ((*loads)[0].busy, 198.0 / 201);
  EXPECT_DOUBLE_EQ((*loads)[0].steal, 2.0 / 201);
  EXPECT_NEAR((*loads)[0].capability, 1.0 / 201, 1e-12);
  EXPECT_DOUBLE_EQ((*loads)[0].window_seconds, 2.01);
  EXPECT_DOUBLE_EQ((*loads)[1].busy, 198.0 / 199);
  EXPECT_NEAR((*loads)[1].capability, 0.0, 1e-12);
  // Device lines 31,32,36,41,42 grew by 1+1+9+12+30.
  EXPECT_EQ((*loads)[0].device_interrupts + (*loads)[1].device_interrupts, 53u);
  EXPECT_EQ((*loads)[0].device_interrupts, 1u + 12u);
}

// Real capture of an H100 VM while a PyTorch matrix loop ran (2 s apart). CPU 7:
//   cpu7 17 0 18 33156 0 0 0 0 -> 75 0 39 33164 112 0 0 0: busy 58+21, idle 8+112 of 199.
TEST(RealCapture, H100WindowMatchesHandComputation) {
  const ProcSnapshot a = snapshot("h100-16cpu/a"), b = snapshot("h100-16cpu/b");
  auto loads = cpu_loads(a, b, {}, kHz);
  ASSERT_TRUE(loads) << loads.error().to_string();
  ASSERT_EQ(loads->size(), 16u);
  EXPECT_DOUBLE_EQ((*loads)[7].busy, 79.0 / 199);
  EXPECT_DOUBLE_EQ((*loads)[7].idle, 120.0 / 199);
  EXPECT_DOUBLE_EQ((*loads)[7].capability, 120.0 / 199);
  for (const CoreLoad& l : *loads) {
    EXPECT_GE(l.capability, 0.0);
    EXPECT_LE(l.capability, 1.0);
  }
}

// --- This node: a pinned busy thread that reports its own CPU time -------------------------

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

TEST(ThisNode, PinnedJobThreadIsCountedAsTheJobNotForeign) {
  const NodeModel model = NodeModel::from_this_node();
  const ProcReader reader;
  const int core = static_cast<int>(model.cores().size()) - 1;
  std::atomic<bool> stop{false};
  std::atomic<double> job_seconds{-1};
  auto before = reader.read();
  ASSERT_TRUE(before) << before.error().to_string();
  std::thread job([&] {
    model.bind_current_thread(core);
    const double start = thread_cpu_seconds();
    while (!stop.load(std::memory_order_relaxed)) {
    }
    job_seconds = thread_cpu_seconds() - start;
  });
  // Long enough for several clock ticks on every CPU; nothing is asserted about speed.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  stop = true;
  job.join();
  auto after = reader.read();
  ASSERT_TRUE(after) << after.error().to_string();

  std::vector<double> job_by_core(model.cores().size(), 0.0);
  job_by_core[static_cast<size_t>(core)] = job_seconds;
  auto loads = core_loads(model, *before, *after, job_by_core);
  ASSERT_TRUE(loads) << loads.error().to_string();
  ASSERT_EQ(loads->size(), model.cores().size());
  for (const CoreLoad& l : *loads) {
    SCOPED_TRACE("core " + std::to_string(l.core));
    EXPECT_GE(l.capability, 0.0);
    EXPECT_LE(l.capability, 1.0);
    EXPECT_NEAR(l.busy + l.irq + l.softirq + l.steal + l.idle, 1.0, 1e-9);
    EXPECT_LE(l.job, l.busy);
    EXPECT_GE(l.foreign, 0.0);
    // The job's own time never lowers what is left to it.
    EXPECT_GE(l.capability + 1e-9, l.job);
  }
  EXPECT_GT((*loads)[static_cast<size_t>(core)].job, 0.0);
}

TEST(ThisNode, SampleRejectsAnEmptyWindow) {
  const NodeModel model = NodeModel::from_this_node();
  auto loads = sample_core_loads(model, ProcReader(), std::chrono::milliseconds(0));
  ASSERT_FALSE(loads);
  EXPECT_EQ(loads.error().code, Errc::kInvalidArgument);
}

}  // namespace
