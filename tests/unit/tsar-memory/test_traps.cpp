// SPDX-License-Identifier: BSD-3-Clause
// No silent wrong results: the ways a correct-looking TSAR program used to compute wrong
// answers on accelerators with their own memory (and only there, so a user tried on CPUs
// saw nothing), each run on host-as-device accelerators against the serial loop.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "accel_bodies.hpp"
#include "data_bodies.hpp"
#include "tsar/data.hpp"

namespace {

using ::testing::HasSubstr;

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
        tsar::Chunk(nullptr, tsar_chunk{0, kRows, 0, TSAR_DEVICE_CPU, 0, -1, nullptr}), a.data(),
        ref.data(), kRows, kCols);
    out.sync();
    for (std::size_t k = 0; k < b.size(); ++k) ASSERT_EQ(b[k], ref[k]) << "row " << k / kCols;
  }
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
