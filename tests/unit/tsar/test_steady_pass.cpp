// SPDX-License-Identifier: BSD-3-Clause
// What a steady pass costs beyond its bodies, counted: once a region's split has settled, a
// pass allocates nothing and makes no affinity system call on the program's thread -- on the
// CPU cores alone and beside an accelerator with its own memory (the host's OpenMP device:
// real allocations and copies). Counts, not times: the machine's load changes neither.
// This binary replaces the global operator new to count allocations.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <numeric>
#include <string>
#include <vector>

#include "emulated_clock.hpp"
#include "pool_threads.hpp"
#include "tsar/tsar.hpp"
#include "workers/caller_mask.hpp"

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
}  // namespace

// The counting replacements pair malloc with free; GCC cannot see that they match.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t bytes) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1);
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

using pool_threads::my_cpus;
using tsar::core::AffinityCalls;
using tsar::core::CallerMask;

/// Affinity calls that count themselves; the CPU the thread "runs on" is `cpu` (-1: the real
/// one). The masks are the real ones, so the test thread's mask is checked as it is.
struct Counted {
  static inline std::atomic<int> cpu{-1};
  static inline std::atomic<int> gets{0}, sets{0};
  static AffinityCalls calls() {
    return {[] { return cpu.load() >= 0 ? cpu.load() : sched_getcpu(); },
            [](cpu_set_t* m) {
              ++gets;
              return sched_getaffinity(0, sizeof *m, m);
            },
            [](const cpu_set_t* m) {
              ++sets;
              return sched_setaffinity(0, sizeof *m, m);
            }};
  }
  static int made() { return gets.load() + sets.load(); }
};

class SteadyPass : public ::testing::Test {
 protected:
  void SetUp() override {
    cpus_ = my_cpus();
    if (cpus_.size() < 2) GTEST_SKIP() << "needs two CPUs in the test's affinity mask";
    previous_ = CallerMask::replace_calls(Counted::calls());
    Counted::cpu = -1;
    ::setenv("TSAR_LINK_BANDWIDTH", "1G", 1);  // no link measurement
  }
  void TearDown() override {
    if (cpus_.size() < 2) return;
    CallerMask::replace_calls(previous_);
    ::unsetenv("TSAR_LINK_BANDWIDTH");
    tsar::set_devices("");
  }
  std::string cpu(int i) const { return std::to_string(cpus_[static_cast<std::size_t>(i)]); }

  std::vector<int> cpus_;
  AffinityCalls previous_{};
};

/// `passes` passes of body over n iterations; returns the operator new calls they made.
template <class Body>
long allocations_in(tsar::Region& region, std::int64_t n, int passes, Body&& body) {
  allocations = 0;
  counting = true;
  for (int p = 0; p < passes; ++p) region.parallel_for(n, body);
  counting = false;
  return allocations.load();
}

TEST_F(SteadyPass, OnTheCoresMakesNoAffinityCallOnTheCallerAndAllocatesNothing) {
  tsar::set_devices("cpu:" + cpu(0) + ",cpu:" + cpu(1));
  tsar::Region region("steady-cpu", "adaptive");
  std::vector<double> data(4096, 0.0);
  auto m = region.map(data.data(), data.size(), tsar::Assoc::rows, TSAR_MEM_INOUT);
  const auto body = [&](const tsar::Chunk& c) {
    double* p = c.ptr(m);
    for (auto i = c.begin(); i < c.end(); ++i) p[i] += 1.0;
  };
  // The caller runs where the scheduler put it: on device 0's CPU it needs no pin.
  Counted::cpu = cpus_[0];
  for (int p = 0; p < 5; ++p) region.parallel_for(4096, body);
  const int before = Counted::made();
  EXPECT_EQ(allocations_in(region, 4096, 20, body), 0);
  EXPECT_EQ(Counted::made(), before) << "affinity system calls in steady passes";
  EXPECT_EQ(my_cpus(), cpus_);
  for (double v : data) ASSERT_EQ(v, 25.0);
}

TEST_F(SteadyPass, ACallerElsewhereIsPinnedForThePassAndGetsItsMaskBack) {
  // The counting works: a caller the scheduler left on another CPU is pinned to device 0's
  // for the pass (its mask read and set) and given its mask back at the end.
  tsar::set_devices("cpu:" + cpu(0) + ",cpu:" + cpu(1));
  tsar::Region region("steady-elsewhere", "static");
  Counted::cpu = cpus_[1];
  const int gets = Counted::gets.load(), sets = Counted::sets.load();
  for (int p = 0; p < 3; ++p) region.parallel_for(64, [](const tsar::Chunk&) {});
  EXPECT_EQ(Counted::gets.load() - gets, 3);
  EXPECT_EQ(Counted::sets.load() - sets, 6);
  EXPECT_EQ(my_cpus(), cpus_);
}

TEST_F(SteadyPass, BesideAnAcceleratorAllocatesNothing) {
  // A double-buffered stencil with a reduction, its output resident, on a core and the host's
  // OpenMP device (own allocations, real copies, halo rows exchanged every pass), on emulated
  // time so the split is the same on any machine: the accelerator twice as fast.
  constexpr std::int64_t kRows = 96, kCols = 32;
  tsar::set_devices("cpu:" + cpu(0) + ",omphost:" + cpu(1));
  tsar::Region region("steady-accelerator", "adaptive");
  auto clock = emulated::emulate_time(region);
  // Steady passes: none of a participation trial's, which move rows.
  tsar::core::region_of(region.handle()).set_participation_trials(false);
  ASSERT_NE(region.device(1).kind, static_cast<unsigned>(TSAR_DEVICE_CPU));
  std::vector<double> a(kRows * kCols), b(kRows * kCols, 0.0);
  std::iota(a.begin(), a.end(), 0.0);
  double sum = 0.0;
  const unsigned persist = TSAR_MEM_PERSIST;
  auto cur = region.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_IN | persist, 1);
  auto next = region.map_2d(b.data(), kRows, kCols, 0, tsar::Assoc::rows,
                            TSAR_MEM_OUT | TSAR_MEM_OVERWRITE | persist | TSAR_MEM_RESIDENT, 1);
  auto red = region.reduction(sum, 0.0, [](double x, double y) { return x + y; });
  const auto body = [&](const tsar::Chunk& c) {
    const bool accelerator = c.kind() != tsar::DeviceKind::cpu;
    clock->advance(c.worker(), 1e-4 * static_cast<double>(c.size()) * (accelerator ? 1 : 2));
    const double* in = c.ptr(cur);
    double* out = c.ptr(next);
    double& acc = c.local(red);
    for (auto i = c.begin(); i < c.end(); ++i)
      for (std::int64_t j = 0; j < kCols; ++j) {
        const std::int64_t k = i * kCols + j;
        out[k] = (i == 0 || i == kRows - 1) ? in[k] : (in[k - kCols] + in[k] + in[k + kCols]) / 3;
        acc += out[k];
      }
  };
  const auto steady = [&](int passes) {
    long allocated = 0;
    for (int p = 0; p < passes; ++p) {
      sum = 0.0;
      allocated += allocations_in(region, kRows, 1, body);
      cur.swap_buffers(next);
    }
    return allocated;
  };
  steady(12);  // the split settles, copies are made
  const auto split = region.split();
  ASSERT_GT(split[0], 0);
  ASSERT_GT(split[1], 0);
  EXPECT_EQ(steady(20), 0);
  EXPECT_EQ(region.split(), split);
  EXPECT_EQ(region.device(1).retired, 0);
}

}  // namespace
