// SPDX-License-Identifier: BSD-3-Clause
// Every schedule against the serial loop, through the C++ API (TSAR's pool) and the thesis-
// style C API (the caller's OpenMP team): a plain loop, sum/min/max and a user-defined
// reduction, n smaller than the number of devices, n = 0, prime n, and a throwing body.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "tsar/tsar.hpp"

extern "C" int c_omp_checked_sum(tsar_region* region, int64_t n, int64_t* sum, unsigned char* seen);

namespace {

const char* kSchedules[] = {"static",       "adaptive",      "split:3", "quick:4", "chunk",
                            "chunk-static", "chunk-dynamic", "hybrid",  "hguided", "chunk:5"};
// Device sets: this machine's cores, more workers than cores, and an emulated accelerator.
const char* kDevices[] = {"", "cpu:0,cpu:1,cpu:0,cpu:1,cpu:0", "cpu:0,emul:1"};
const std::int64_t kSizes[] = {0, 1, 2, 3, 97, 1000, 10007};

double value(std::int64_t i) {
  return std::sin(static_cast<double>(i) * 0.37) * 100.0 + static_cast<double>(i % 17);
}

struct ArgMax {
  double v;
  std::int64_t i;
};

struct Serial {
  std::vector<double> y;
  std::int64_t sum = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  ArgMax arg{-std::numeric_limits<double>::infinity(), -1};
};

Serial serial(std::int64_t n) {
  Serial s;
  s.y.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = value(i);
    s.y[static_cast<std::size_t>(i)] = 2.0 * v + 1.0;
    s.sum += i * i % 1009;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    if (v > s.arg.v || (v == s.arg.v && i < s.arg.i)) s.arg = {v, i};
  }
  return s;
}

// Ties go to the lower index, so the result does not depend on the order of combination.
ArgMax combine_argmax(const ArgMax& a, const ArgMax& b) {
  if (b.v > a.v || (b.v == a.v && b.i >= 0 && (a.i < 0 || b.i < a.i))) return b;
  return a;
}

class EverySchedule : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {
 protected:
  void SetUp() override { tsar::set_devices(std::get<1>(GetParam())); }
  void TearDown() override { tsar::set_devices(""); }
  tsar::RegionOptions options() const {
    tsar::RegionOptions o;
    o.name = "correctness";
    o.schedule = std::get<0>(GetParam());
    return o;
  }
};

TEST_P(EverySchedule, MatchesTheSerialLoop) {
  tsar::Region region(options());
  for (std::int64_t n : kSizes) {
    const Serial ref = serial(n);
    std::vector<double> y(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)), 0.0);
    std::vector<int> visits(y.size(), 0);
    std::int64_t sum = 0;
    double mn = std::numeric_limits<double>::infinity(), mx = -mn;
    ArgMax arg{-std::numeric_limits<double>::infinity(), -1};
    auto ys = region.map(y.data(), y.size(), tsar::Assoc::rows, TSAR_MEM_OUT);
    auto vs = region.map(visits.data(), visits.size(), tsar::Assoc::rows, TSAR_MEM_INOUT);
    auto rsum = region.reduction(sum, std::int64_t{0},
                                 [](std::int64_t a, std::int64_t b) { return a + b; });
    auto rmin = region.reduction(mn, std::numeric_limits<double>::infinity(),
                                 [](double a, double b) { return std::min(a, b); });
    auto rmax = region.reduction(mx, -std::numeric_limits<double>::infinity(),
                                 [](double& a, const double& b) { a = std::max(a, b); });
    auto rarg =
        region.reduction(arg, ArgMax{-std::numeric_limits<double>::infinity(), -1}, combine_argmax);
    for (int pass = 0; pass < 3; ++pass) {
      SCOPED_TRACE("n=" + std::to_string(n) + " pass " + std::to_string(pass));
      std::fill(visits.begin(), visits.end(), 0);
      sum = 0;
      mn = std::numeric_limits<double>::infinity();
      mx = -mn;
      arg = {-std::numeric_limits<double>::infinity(), -1};
      region.parallel_for(n, [&](const tsar::Chunk& c) {
        double* yp = c.ptr(ys);
        int* vp = c.ptr(vs);
        auto& s = c.local(rsum);
        auto& lo = c.local(rmin);
        auto& hi = c.local(rmax);
        auto& am = c.local(rarg);
        for (auto i = c.begin(); i < c.end(); ++i) {
          const double v = value(i);
          yp[i] = 2.0 * v + 1.0;
          vp[i]++;
          s += i * i % 1009;
          lo = std::min(lo, v);
          hi = std::max(hi, v);
          am = combine_argmax(am, {v, i});
        }
      });
      for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(visits[static_cast<std::size_t>(i)], 1) << "iteration " << i;
        ASSERT_EQ(y[static_cast<std::size_t>(i)], ref.y[static_cast<std::size_t>(i)]);
      }
      EXPECT_EQ(sum, ref.sum);
      EXPECT_EQ(mn, ref.min);
      EXPECT_EQ(mx, ref.max);
      EXPECT_EQ(arg.i, ref.arg.i);
      EXPECT_EQ(arg.v, ref.arg.v);
      const auto stats = region.pass_stats();
      std::int64_t ran = 0;
      for (const auto& d : stats.devices) {
        ran += d.iterations;
        EXPECT_GE(d.idle_seconds, 0.0);
        EXPECT_GE(d.busy_seconds, 0.0);
        if (d.iterations > 0) {
          EXPECT_GE(d.chunks, 1);
        }
      }
      EXPECT_EQ(ran, n);
      EXPECT_EQ(stats.pass.n, n);
    }
  }
}

TEST_P(EverySchedule, PerIterationBodies) {
  tsar::Region region(options());
  std::vector<std::int64_t> out(1234, -1);
  auto m = region.map(out.data(), out.size(), tsar::Assoc::rows, TSAR_MEM_OUT);
  region.parallel_for(1234, [&](std::int64_t i) { out[static_cast<std::size_t>(i)] = i * 3; });
  for (std::int64_t i = 0; i < 1234; ++i) ASSERT_EQ(out[static_cast<std::size_t>(i)], i * 3);
}

TEST_P(EverySchedule, ExceptionReachesTheCallerAndThePoolStaysUsable) {
  tsar::Region region(options());
  std::int64_t sum = 0;
  auto r =
      region.reduction(sum, std::int64_t{0}, [](std::int64_t a, std::int64_t b) { return a + b; });
  for (int round = 0; round < 2; ++round) {
    sum = 7;
    try {
      region.parallel_for(1000, [&](const tsar::Chunk& c) {
        for (auto i = c.begin(); i < c.end(); ++i) {
          if (i == 613) throw std::domain_error("bad iteration 613");
          c.local(r) += i;
        }
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::domain_error& e) {
      EXPECT_STREQ(e.what(), "bad iteration 613");
    }
    EXPECT_EQ(sum, 7);  // a failed pass merges nothing
    EXPECT_EQ(region.pass_stats().pass.canceled, 1);
    // The same region and the pool still work, and give the right answer.
    region.parallel_for(1000, [&](const tsar::Chunk& c) {
      for (auto i = c.begin(); i < c.end(); ++i) c.local(r) += i;
    });
    EXPECT_EQ(sum, 7 + 999 * 1000 / 2);
  }
  // A cancel from a body is an error of the pass, not a crash.
  try {
    region.parallel_for(100, [&](const tsar::Chunk&) { region.cancel(); });
    ADD_FAILURE() << "no error";
  } catch (const tsar::Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_CANCELED);
  }
  tsar::Region other(options());
  std::int64_t count = 0;
  auto rc =
      other.reduction(count, std::int64_t{0}, [](std::int64_t a, std::int64_t b) { return a + b; });
  other.parallel_for(50, [&](const tsar::Chunk& c) { c.local(rc) += c.size(); });
  EXPECT_EQ(count, 50);
}

TEST_P(EverySchedule, ThesisStyleLoopFromCInsideAnOpenMPTeam) {
  tsar_region* region = nullptr;
  ASSERT_EQ(tsar_init(&region, "c-loop", std::get<0>(GetParam()), TSAR_DEVICE_ALL, nullptr, 0, 0),
            TSAR_OK)
      << tsar_last_error();
  for (std::int64_t n : kSizes) {
    std::vector<unsigned char> seen(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)), 0);
    for (int pass = 0; pass < 3; ++pass) {
      std::fill(seen.begin(), seen.end(), 0);
      std::int64_t sum = -1;
      ASSERT_EQ(c_omp_checked_sum(region, n, &sum, seen.data()), TSAR_OK) << tsar_last_error();
      EXPECT_EQ(sum, n * (n - 1) / 2) << "n=" << n;
      for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[static_cast<std::size_t>(i)], 1) << i;
    }
  }
  EXPECT_EQ(tsar_free(region), TSAR_OK);
}

std::string name(const ::testing::TestParamInfo<EverySchedule::ParamType>& info) {
  std::string s = std::string(std::get<0>(info.param)) + "_on_" +
                  (std::get<1>(info.param)[0] ? std::get<1>(info.param) : "all_cores");
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Tsar, EverySchedule,
                         ::testing::Combine(::testing::ValuesIn(kSchedules),
                                            ::testing::ValuesIn(kDevices)),
                         name);

}  // namespace
