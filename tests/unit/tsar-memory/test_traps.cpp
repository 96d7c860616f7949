// SPDX-License-Identifier: BSD-3-Clause
// No silent wrong results: the ways a correct-looking TSAR program could compute wrong
// answers on accelerators with their own memory (and only there, so a user who tried it on
// CPUs would see nothing), each run on host-as-device accelerators against the serial loop.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "accel_bodies.hpp"
#include "data_bodies.hpp"
#include "tsar/data.hpp"

namespace {

using ::testing::HasSubstr;

std::string address(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

/// TSAR_CHECK set while regions and environments are made (they read it then).
class CheckMode {
 public:
  CheckMode() { ::setenv("TSAR_CHECK", "1", 1); }
  ~CheckMode() { ::unsetenv("TSAR_CHECK"); }
};

class Traps : public ::testing::Test {
 protected:
  void SetUp() override {
    if (accel_test::setup().kind == "cuda") GTEST_SKIP() << "the test bodies have no CUDA kernels";
    tsar::set_devices(accel_test::setup().devices);
  }
  void TearDown() override { tsar::set_devices(""); }

  /// A static region that gives each accelerator twice a CPU's rows.
  static tsar::Region fixed(const char* name) {
    tsar::RegionOptions o;
    o.name = name;
    o.schedule = "static";
    tsar::Region probe(o);
    for (int w = 0; w < probe.num_devices(); ++w)
      o.time_per_iteration.push_back(probe.device(w).kind == TSAR_DEVICE_CPU ? 1.0 : 0.5);
    tsar::Region r(o);
    r.set_backoff(0);
    return r;
  }
  /// fixed(name), made under TSAR_CHECK=1.
  static tsar::Region checked(const char* name) {
    CheckMode check;
    return fixed(name);
  }
  static constexpr std::int64_t kRows = 60, kCols = 12;
};

// The header's recipe for a double-buffered stencil: the output registered write-only. The
// loop skips the fixed boundary cells; an accelerator's copy of its rows started as whatever
// its memory held and came back whole, boundary cells included (scaled error 0.87-1.0 on a
// GPU). An output's copy now starts from the host's values.
TEST_F(Traps, AWriteOnlyOutputKeepsTheCellsTheBodyDidNotWrite) {
  for (const unsigned extra : {0u, static_cast<unsigned>(TSAR_MEM_PERSIST),
                               static_cast<unsigned>(TSAR_MEM_PERSIST | TSAR_MEM_RESIDENT)}) {
    SCOPED_TRACE("flags " + std::to_string(extra));
    std::vector<double> a(kRows * kCols), b(kRows * kCols, 7.0), ref(kRows * kCols, 7.0);
    for (std::size_t k = 0; k < a.size(); ++k) a[k] = static_cast<double>(k % 23);
    tsar::Region region = fixed("interior");
    auto in = region.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows,
                            TSAR_MEM_IN | (extra & TSAR_MEM_PERSIST), 1);
    auto out = region.map_2d(b.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_OUT | extra);
    region.parallel_for(kRows, [&](const tsar::Chunk& c) {
      data_test::interior_average(c, c.ptr(in), c.ptr(out), kRows, kCols);
    });
    data_test::interior_average(
        tsar::Chunk(nullptr, tsar_chunk{0, kRows, 0, TSAR_DEVICE_CPU, 0, -1, nullptr, nullptr}),
        a.data(), ref.data(), kRows, kCols);
    out.sync();
    for (std::size_t k = 0; k < b.size(); ++k) ASSERT_EQ(b[k], ref[k]) << "row " << k / kCols;
  }
}

// A row-mapped loop could not start at an offset, so a stencil ran over every row and had to
// skip the boundary itself. Now it runs over the interior rows [1, n - 1) of grids
// registered whole: each device's chunks are absolute rows, it moves its rows and halo only,
// and the boundary rows stay as the host has them. Double-buffered over several passes.
TEST_F(Traps, ALoopRunsOverTheInteriorRowsOfAGridRegisteredWhole) {
  std::vector<double> a(kRows * kCols), b(kRows * kCols, 7.0);
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = static_cast<double>(k % 23);
  for (std::int64_t j = 0; j < kCols; ++j) b[j] = b[(kRows - 1) * kCols + j] = a[j];
  std::vector<double> ra = a, rb = b;
  tsar::Region region = fixed("interior-rows");
  auto cur = region.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows,
                           TSAR_MEM_IN | TSAR_MEM_PERSIST, 1);
  auto next = region.map_2d(b.data(), kRows, kCols, 0, tsar::Assoc::rows,
                            TSAR_MEM_OUT | TSAR_MEM_PERSIST | TSAR_MEM_RESIDENT, 1);
  const tsar::Chunk all(nullptr,
                        tsar_chunk{1, kRows - 1, 0, TSAR_DEVICE_CPU, 0, -1, nullptr, nullptr});
  for (int pass = 0; pass < 4; ++pass) {
    region.parallel_for(1, kRows - 1, [&](const tsar::Chunk& c) {
      EXPECT_GE(c.begin(), 1);
      EXPECT_LE(c.end(), kRows - 1);
      data_test::interior_average(c, c.ptr(cur), c.ptr(next), kRows, kCols);
    });
    data_test::interior_average(all, ra.data(), rb.data(), kRows, kCols);
    const auto stats = region.pass_stats();
    std::int64_t ran = 0;
    for (const auto& d : stats.devices) ran += d.iterations;
    EXPECT_EQ(ran, kRows - 2);
    cur.swap_buffers(next);
    std::swap(ra, rb);
  }
  cur.sync();
  next.sync();
  for (std::size_t k = 0; k < a.size(); ++k) ASSERT_EQ(a[k], ra[k]) << "row " << k / kCols;
  for (std::size_t k = 0; k < b.size(); ++k) ASSERT_EQ(b[k], rb[k]) << "row " << k / kCols;
}

// A persistent input changed on the host without tsar_mem_invalidate: the accelerators kept
// their old copies and only their rows of the output went wrong (32 of 64 in the report),
// which rows depending on the learned split. Under TSAR_CHECK=1 the next pass is refused,
// naming the buffer and the device.
TEST_F(Traps, AHostChangeWithoutInvalidateIsCaughtUnderTsarCheck) {
  const std::int64_t n = 64;
  std::vector<double> x(n, 1.0), y(n, 0.0);
  tsar::Region region = checked("checked");
  auto xs = region.map(x.data(), x.size(), tsar::Assoc::rows, TSAR_MEM_IN | TSAR_MEM_PERSIST);
  auto ys = region.map(y.data(), y.size(), tsar::Assoc::rows, TSAR_MEM_INOUT);
  const auto pass = [&] {
    region.parallel_for(
        n, [&](const tsar::Chunk& c) { accel_test::axpy(c, c.ptr(xs), c.ptr(ys), 1.0); });
  };
  pass();
  for (double& v : x) v = 5.0;  // not announced
  try {
    pass();
    ADD_FAILURE() << "the change went unnoticed";
  } catch (const tsar::Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_STATE);
    EXPECT_THAT(e.what(), HasSubstr("TSAR_CHECK: buffer " + address(x.data())));
    EXPECT_THAT(e.what(), HasSubstr(accel_test::setup().kind + ":"));  // the device's key
    EXPECT_THAT(e.what(), HasSubstr("tsar_mem_invalidate"));
  }
  xs.invalidate();
  pass();  // refused passes ran nothing: y is 1 + 5 everywhere
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 6.0) << i;
}

// Columns too: an accelerator's copy of a COLS input holds whole columns, so a change
// anywhere in them is caught (named by column); a change in a column no device holds is not
// a change to anything TSAR copied, and the pass runs.
TEST_F(Traps, AHostChangeToAColumnADeviceHoldsIsCaughtUnderTsarCheck) {
  const std::int64_t rows = 6, cols = 48;  // more columns than rows
  std::vector<double> a(rows * cols), y(rows * cols, 0.0);
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = static_cast<double>(k % 11);
  tsar::Region region = checked("checked-cols");
  auto as = region.map_2d(a.data(), rows, cols, 0, tsar::Assoc::cols,
                          TSAR_MEM_IN | TSAR_MEM_PERSIST, 1);
  auto ys = region.map_2d(y.data(), rows, cols, 0, tsar::Assoc::cols, TSAR_MEM_OUT);
  const auto pass = [&] {
    region.parallel_for(cols, [&](const tsar::Chunk& c) {
      accel_test::scale_cols(c, c.layout(as), c.layout(ys), rows);
    });
  };
  pass();
  a[static_cast<std::size_t>(rows * cols - 1)] = -1.0;  // the last column is an accelerator's
  try {
    pass();
    ADD_FAILURE() << "the change went unnoticed";
  } catch (const tsar::Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_STATE);
    EXPECT_THAT(e.what(), HasSubstr("TSAR_CHECK: buffer " + address(a.data())));
    EXPECT_THAT(e.what(), HasSubstr("columns " + std::to_string(cols - 1) + "-"));
  }
  as.invalidate();
  pass();
  a[0] = 5.0;  // column 0: the CPU's, read in place
  EXPECT_NO_THROW(pass());
  std::vector<double> ref(y.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j)
      ref[r * cols + j] = 2 * a[r * cols + j] + (j > 0 ? a[r * cols + j - 1] : 0.0);
  EXPECT_EQ(y, ref);
}

// Rows a device owns (written there, not yet written back) changed on the host: the program
// wrote into stale rows, and its change would be lost.
TEST_F(Traps, AHostWriteToRowsADeviceOwnsIsCaughtUnderTsarCheck) {
  const std::int64_t rows = 30, cols = 8;
  std::vector<double> a(rows * cols, 1.0);
  std::optional<tsar::Data> env;
  std::optional<tsar::Region> region;
  {
    CheckMode check;
    env.emplace();
    region.emplace(fixed("owned"));
  }
  env->map_2d(a.data(), rows, cols);
  env->attach(*region);
  auto as = region->map_2d(a.data(), rows, cols, 0, tsar::Assoc::rows, TSAR_MEM_INOUT);
  const auto pass = [&](int step) {
    region->parallel_for(rows,
                         [&](const tsar::Chunk& c) { data_test::relax(c, c.ptr(as), cols, step); });
  };
  pass(0);
  a[static_cast<std::size_t>((rows - 1) * cols)] = -1.0;  // the last row is an accelerator's
  try {
    pass(1);
    ADD_FAILURE() << "the change went unnoticed";
  } catch (const tsar::Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_STATE);
    EXPECT_THAT(e.what(), HasSubstr("rows 29-29"));
    EXPECT_THAT(e.what(), HasSubstr("owns them"));
  }
  // The announced way: bring the rows back, change them, hand them over.
  env->update_host(a.data());
  a[static_cast<std::size_t>((rows - 1) * cols)] = -1.0;
  env->update_device(a.data());
  EXPECT_NO_THROW(pass(1));
}

/// Whether any element of `v` is all TSAR_CHECK's fill byte (0xA5, memory/host_check.hpp).
bool holds_fill(const std::vector<double>& v) {
  double fill;
  std::memset(&fill, 0xA5, sizeof fill);
  return std::any_of(v.begin(), v.end(),
                     [&](const double& x) { return std::memcmp(&x, &fill, sizeof x) == 0; });
}

// TSAR_MEM_OVERWRITE is the program's word that the loop writes its rows whole; a stencil
// that skips its boundary breaks it, and its accelerators' boundary cells would come back as
// whatever device memory held. Under TSAR_CHECK=1 the pass fails naming the element, before
// anything comes back; a loop that does write everything passes.
TEST_F(Traps, AnOverwriteOutputTheLoopLeavesPartlyUnwrittenIsCaughtUnderTsarCheck) {
  std::vector<double> a(kRows * kCols, 1.0), b(kRows * kCols, 7.0);
  tsar::Region region = checked("overwrite-checked");
  auto in = region.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_IN, 1);
  auto out = region.map_2d(b.data(), kRows, kCols, 0, tsar::Assoc::rows,
                            TSAR_MEM_OUT | TSAR_MEM_OVERWRITE);
  try {
    region.parallel_for(kRows, [&](const tsar::Chunk& c) {
      data_test::interior_average(c, c.ptr(in), c.ptr(out), kRows, kCols);
    });
    ADD_FAILURE() << "the unwritten elements went unnoticed";
  } catch (const tsar::Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_STATE);
    EXPECT_THAT(e.what(), HasSubstr("TSAR_CHECK: buffer " + address(b.data())));
    EXPECT_THAT(e.what(), HasSubstr("registered TSAR_MEM_OVERWRITE, but the loop did not write"));
    EXPECT_THAT(e.what(), HasSubstr(", 0) on " + accel_test::setup().kind + ":"));  // a boundary column
  }
  EXPECT_FALSE(holds_fill(b));
  EXPECT_NO_THROW(region.parallel_for(kRows, [&](const tsar::Chunk& c) {
    accel_test::jacobi(c, c.ptr(in), c.ptr(out), kRows, kCols);
  }));
}

// The same for columns (packed, and padded, on the devices): a loop that leaves every
// column's last row alone is named at that row.
TEST_F(Traps, AnOverwriteColumnOutputLeftPartlyUnwrittenIsCaughtUnderTsarCheck) {
  std::vector<double> a(kRows * kCols, 1.0), b(kRows * kCols, 7.0);
  tsar::Region region = checked("overwrite-cols-checked");
  auto in = region.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::cols, TSAR_MEM_IN, 1);
  auto out = region.map_2d(b.data(), kRows, kCols, 0, tsar::Assoc::cols,
                            TSAR_MEM_OUT | TSAR_MEM_OVERWRITE | TSAR_MEM_PAD);
  try {
    region.parallel_for(kCols, [&](const tsar::Chunk& c) {
      accel_test::scale_cols(c, c.layout(in), c.layout(out), kRows - 1);
    });
    ADD_FAILURE() << "the unwritten elements went unnoticed";
  } catch (const tsar::Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_STATE);
    EXPECT_THAT(e.what(), HasSubstr("element (" + std::to_string(kRows - 1) + ", "));
  }
  EXPECT_FALSE(holds_fill(b));
  EXPECT_NO_THROW(region.parallel_for(kCols, [&](const tsar::Chunk& c) {
    accel_test::scale_cols(c, c.layout(in), c.layout(out), kRows);
  }));
}

// The reset rule (tsar.h, tsar_reg_reduction): a pass combines into *result as it finds it,
// so 20 SAXPY sums without a reset total all 20 passes -- which surprised the report's user;
// set to the identity before a pass, it holds that pass's sum. On accelerators too.
TEST_F(Traps, AReductionCombinesIntoTheResultAsThePassFindsIt) {
  const std::int64_t n = 90;
  std::vector<double> x(n);
  for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<double>(i);
  const double pass_sum = static_cast<double>(n * (n - 1) / 2);
  tsar::Region region = fixed("saxpy-sum");
  auto xs = region.map(x.data(), x.size(), tsar::Assoc::rows, TSAR_MEM_IN | TSAR_MEM_PERSIST);
  double sum = 0.0;
  auto total = region.reduction(sum, 0.0, [](double a, double b) { return a + b; });
  const auto pass = [&] {
    region.parallel_for(
        n, [&](const tsar::Chunk& c) { accel_test::sum(c, c.ptr(xs), &c.local(total)); });
  };
  for (int p = 1; p <= 20; ++p) {
    pass();
    ASSERT_EQ(sum, p * pass_sum) << "pass " << p;
  }
  for (int p = 0; p < 3; ++p) {
    sum = 0.0;  // the identity: this pass's sum alone
    pass();
    ASSERT_EQ(sum, pass_sum);
  }
  // A canceled pass leaves the result alone.
  sum = 1.0;
  EXPECT_THROW(region.parallel_for(n, [&](const tsar::Chunk&) { region.cancel(); }), tsar::Error);
  EXPECT_EQ(sum, 1.0);
}

TEST_F(Traps, OverwriteIsForOutputsTheLoopDoesNotRead) {
  std::vector<double> b(kRows);
  tsar::Region region = fixed("overwrite");
  try {
    region.map(b.data(), b.size(), tsar::Assoc::rows, TSAR_MEM_INOUT | TSAR_MEM_OVERWRITE);
    ADD_FAILURE() << "accepted";
  } catch (const tsar::Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_INVALID);
    EXPECT_THAT(e.what(), HasSubstr("TSAR_MEM_OVERWRITE is for outputs"));
  }
}

}  // namespace
