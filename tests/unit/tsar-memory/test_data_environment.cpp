// SPDX-License-Identifier: BSD-3-Clause
// Data environments through the public API: a time step of dependent loops, each its own
// region, keeps its buffers on the accelerators; each pass moves exactly the rows the
// ownership rule of tsar/data.h says (computed here from the splits the statistics report),
// and the host sees the serial loops' results after tsar_data_update_host. In CI the
// accelerators are the host's OpenMP device (omphost: separate allocations, real copies).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "accel_bodies.hpp"
#include "data_bodies.hpp"
#include "tsar/data.hpp"

namespace {

using ::testing::HasSubstr;
using Rows = std::pair<std::int64_t, std::int64_t>;

constexpr std::int64_t kRows = 120, kCols = 16;
constexpr std::int64_t kRowBytes = kCols * static_cast<std::int64_t>(sizeof(double));

class DataEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    if (accel_test::setup().kind == "cuda") GTEST_SKIP() << "the test bodies have no CUDA kernels";
    // The bytes asserted are those of the planned ranges (stealing and trials are tested on
    // emulated time, in tests/unit/tsar/test_emulated_regions.cpp).
    ::setenv("TSAR_ACCEL_STEAL", "0", 1);
    ::setenv("TSAR_TRIALS", "0", 1);
    tsar::set_devices(accel_test::setup().devices);
    a.resize(kRows * kCols);
    for (std::size_t k = 0; k < a.size(); ++k) a[k] = 0.25 * static_cast<double>(k % 37);
    s.assign(kRows, 0.0);
    ra = a;
    rs = s;
  }
  void TearDown() override {
    tsar::set_devices("");
    ::unsetenv("TSAR_ACCEL_STEAL");
    ::unsetenv("TSAR_TRIALS");
  }

  static bool accelerator(const tsar::Region& r, int w) {
    return r.device(w).kind != TSAR_DEVICE_CPU;
  }
  /// A static region whose split gives each accelerator `accel_share` times a CPU's rows.
  static tsar::Region fixed(const char* name, double accel_share,
                            unsigned kinds = TSAR_DEVICE_ALL) {
    tsar::RegionOptions o;
    o.name = name;
    o.schedule = "static";
    o.device_kinds = kinds;
    tsar::Region probe(o);
    for (int w = 0; w < probe.num_devices(); ++w)
      o.time_per_iteration.push_back(accelerator(probe, w) ? 1.0 / accel_share : 1.0);
    tsar::Region r(o);
    r.set_backoff(0);  // slow host-as-device accelerators stay accelerators
    return r;
  }
  /// Each device's rows in the last pass (one range per device, in device order).
  static std::vector<Rows> ranges(const tsar::Region& r) {
    std::vector<Rows> out;
    std::int64_t at = 0;
    for (const auto& d : r.pass_stats().devices) {
      out.emplace_back(at, at + d.iterations);
      at += d.iterations;
    }
    return out;
  }
  /// Whether workers a and b of `r` copy into each other's memory directly: CUDA GPUs, and
  /// OpenMP target devices of one device number (the host's, for omphost: accelerators).
  static bool peers(const tsar::Region& r, int a, int b) {
    const auto x = r.device(a), y = r.device(b);
    if (x.kind != y.kind) return false;
    return x.kind == TSAR_DEVICE_CUDA ||
           (x.kind == TSAR_DEVICE_OMP_TARGET && x.omp_device == y.omp_device);
  }
  static std::int64_t overlap(Rows x, Rows y) {
    return std::max<std::int64_t>(0, std::min(x.second, y.second) - std::max(x.first, y.first));
  }

  /// A pass of the relaxing loop in `r` (`a_`: its registration of a), and its serial twin.
  void relax_pass(tsar::Region& r, const tsar::Mapped<double>& a_, int step) {
    r.parallel_for(kRows,
                   [&](const tsar::Chunk& c) { data_test::relax(c, c.ptr(a_), kCols, step); });
    serial_relax(step);
  }
  /// A pass of the summing loop in `r` (`a_`, `s_`: its registrations), and its serial twin.
  void sums_pass(tsar::Region& r, const tsar::Mapped<double>& a_, const tsar::Mapped<double>& s_) {
    r.parallel_for(
        kRows, [&](const tsar::Chunk& c) { data_test::row_sums(c, c.ptr(a_), kCols, c.ptr(s_)); });
    serial_sums();
  }

  // The three loops of a step, run serially on the reference copies.
  void serial_relax(int step) {
    for (std::int64_t i = 0; i < kRows; ++i)
      for (std::int64_t j = 0; j < kCols; ++j)
        ra[i * kCols + j] = ra[i * kCols + j] / 2 + static_cast<double>(i + j + step);
  }
  void serial_sums() {
    for (std::int64_t i = 0; i < kRows; ++i) {
      double sum = 0;
      for (std::int64_t j = 0; j < kCols; ++j) sum += ra[i * kCols + j];
      rs[i] = sum;
    }
  }
  void serial_add() {
    for (std::int64_t i = 0; i < kRows; ++i)
      for (std::int64_t j = 0; j < kCols; ++j) ra[i * kCols + j] += rs[i] / 1000;
  }
  void expect_reference() {
    for (std::size_t k = 0; k < a.size(); ++k) ASSERT_DOUBLE_EQ(a[k], ra[k]) << "a[" << k << "]";
    for (std::size_t k = 0; k < s.size(); ++k) ASSERT_DOUBLE_EQ(s[k], rs[k]) << "s[" << k << "]";
  }

  std::vector<double> a, s, ra, rs;
};

TEST_F(DataEnv, ATimeStepOfThreeLoopsMovesNothingOnceItsDataIsOnTheDevices) {
  tsar::Data env;
  env.map_2d(a.data(), kRows, kCols);
  env.map(s.data(), kRows);
  tsar::Region relax = fixed("relax", 2), sums = fixed("sums", 2), add = fixed("add", 2);
  for (const tsar::Region* r : {&relax, &sums, &add}) env.attach(*r);
  auto ra_ = relax.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_INOUT);
  auto sa = sums.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_IN);
  auto ss = sums.map(s.data(), kRows, tsar::Assoc::rows, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE);
  auto aa = add.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_INOUT);
  auto as = add.map(s.data(), kRows, tsar::Assoc::rows, TSAR_MEM_IN);
  std::int64_t accel_rows = 0;
  for (int step = 0; step < 4; ++step) {
    relax_pass(relax, ra_, step);
    sums_pass(sums, sa, ss);
    add.parallel_for(
        kRows, [&](const tsar::Chunk& c) { data_test::add_sums(c, c.ptr(aa), kCols, c.ptr(as)); });
    serial_add();
    for (const tsar::Region* r : {&relax, &sums, &add}) {
      ASSERT_EQ(ranges(*r), ranges(relax)) << "the static splits differ";
      const auto stats = r->pass_stats();
      for (int w = 0; w < r->num_devices(); ++w) {
        SCOPED_TRACE("step " + std::to_string(step) + " " + r->device(w).key);
        const auto& d = stats.devices[static_cast<std::size_t>(w)];
        // Only the first loop's first pass brings a's rows in; nothing ever comes back.
        const bool first = step == 0 && r == &relax && accelerator(*r, w);
        EXPECT_EQ(d.bytes_to_device, first ? d.iterations * kRowBytes : 0);
        EXPECT_EQ(d.bytes_from_device, 0);
        if (first) accel_rows += d.iterations;
      }
    }
  }
  ASSERT_GT(accel_rows, 0);
  EXPECT_EQ(env.stats(a.data()).device_rows, accel_rows);  // the host's rows are stale there
  EXPECT_EQ(env.stats(s.data()).device_rows, accel_rows);
  env.update_host();
  EXPECT_EQ(env.stats().device_rows, 0);
  EXPECT_EQ(env.stats().bytes_from_device, accel_rows * (kRowBytes + 8));
  expect_reference();
}

TEST_F(DataEnv, LoopsWithDifferentSplitsMoveOnlyTheRowsBetweenThem) {
  tsar::Data env;
  env.map_2d(a.data(), kRows, kCols);
  env.map(s.data(), kRows);
  tsar::Region relax = fixed("relax", 2), sums = fixed("sums", 1);
  env.attach(relax);
  env.attach(sums);
  auto ra_ = relax.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_INOUT);
  auto sa = sums.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_IN);
  auto ss = sums.map(s.data(), kRows, tsar::Assoc::rows, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE);
  for (int step = 0; step < 3; ++step) {
    relax_pass(relax, ra_, step);
    const auto r1 = ranges(relax);
    const auto relax_stats = relax.pass_stats();
    sums_pass(sums, sa, ss);
    const auto r2 = ranges(sums);
    ASSERT_NE(r1, r2) << "the splits should differ";
    if (step == 0) continue;  // the first passes bring the rows in
    const auto stats = sums.pass_stats();
    for (int w = 0; w < sums.num_devices(); ++w) {
      const auto ws = static_cast<std::size_t>(w);
      SCOPED_TRACE("step " + std::to_string(step) + " " + sums.device(w).key);
      // The relaxing loop holds its rows: it reads and writes them where they are.
      EXPECT_EQ(relax_stats.devices[ws].bytes_to_device, 0);
      EXPECT_EQ(relax_stats.devices[ws].bytes_from_device, 0);
      if (!accelerator(sums, w)) continue;
      // The summing loop's accelerator reads the rows of its range it did not write: those
      // another accelerator wrote come straight from its copy where the two copy into each
      // other's memory, the others from the host ...
      const std::int64_t held = overlap(r1[ws], r2[ws]);
      std::int64_t received = 0, sent = 0;
      for (int v = 0; v < sums.num_devices(); ++v) {
        const auto vs = static_cast<std::size_t>(v);
        if (v == w || !accelerator(sums, v) || !peers(sums, v, w)) continue;
        received += overlap(r2[ws], r1[vs]);
        sent += overlap(r1[ws], r2[vs]);
      }
      EXPECT_EQ(stats.devices[ws].bytes_to_device,
                (r2[ws].second - r2[ws].first - held - received) * kRowBytes);
      // ... after the device that wrote them has sent them on: its rows others read, into an
      // accelerator's copy or back to the host.
      EXPECT_EQ(stats.devices[ws].bytes_from_device,
                (r1[ws].second - r1[ws].first - held) * kRowBytes);
      EXPECT_EQ(stats.devices[ws].bytes_peer, sent * kRowBytes);
    }
  }
  env.update_host();
  expect_reference();
}

TEST_F(DataEnv, AReaderWhoseWindowCannotGrowForAnothersRowsLosesItsDeviceAndTheStepStaysRight) {
  // Rows another accelerator left resident go straight into the reader's copy once its window
  // holds them, which may take growing it before any worker runs. With 12 KiB per device the
  // summing loop's first accelerator can hold the relaxing loop's rows but not grow its window
  // over its halo: the rows go through the host, the device is lost to that loop (its rows run
  // on a core), and the results stay the serial loops'.
  if (accel_test::setup().kind != "omphost") GTEST_SKIP() << "sizes fit the host-as-device run";
  ::setenv("TSAR_DEVICE_MEMORY_LIMIT", "12K", 1);
  tsar::set_devices(accel_test::setup().devices);
  ::unsetenv("TSAR_DEVICE_MEMORY_LIMIT");
  tsar::Data env;
  env.map_2d(a.data(), kRows, kCols);
  tsar::Region relax = fixed("relax", 2), sums = fixed("sums", 1);
  env.attach(relax);
  env.attach(sums);
  auto ra_ = relax.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_INOUT);
  auto sa = sums.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_IN, 1);
  auto ss = sums.map(s.data(), kRows, tsar::Assoc::rows, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE);
  testing::internal::CaptureStderr();
  for (int step = 0; step < 2; ++step) {
    relax_pass(relax, ra_, step);
    sums_pass(sums, sa, ss);
  }
  const std::string warnings = testing::internal::GetCapturedStderr();
  EXPECT_THAT(warnings, HasSubstr("TSAR_DEVICE_MEMORY_LIMIT"));
  int lost = 0;
  for (int w = 0; w < sums.num_devices(); ++w) lost += sums.device(w).retired;
  EXPECT_EQ(lost, 1) << warnings;
  env.update_host();
  expect_reference();
}

// The consumer stays with its producer: a loop whose own estimates would split differently
// takes the split under which its accelerators read only the rows their devices hold of the
// widest shared buffer, as long as moving rows would cost more than it gains (here the links
// are declared at 1 KiB/s: always). Its passes then move nothing. The speeds this premise
// needs are the emulated host-as-device accelerators': a real GPU's own speed moves the split.
TEST_F(DataEnv, ALoopTakesItsProducersSplitWhileMovingRowsCostsMore) {
  if (accel_test::setup().kind != "omphost") GTEST_SKIP() << "emulated speeds: host-as-device only";
  tsar::set_devices("");
  ::setenv("TSAR_LINK_BANDWIDTH", "1K", 1);
  tsar::set_devices(accel_test::setup().devices);
  ::unsetenv("TSAR_LINK_BANDWIDTH");
  tsar::Data env;
  env.map_2d(a.data(), kRows, kCols);
  env.map(s.data(), kRows);
  tsar::Region relax = fixed("producer", 2);
  tsar::RegionOptions even;  // the consumer's own first split: equal shares
  even.name = "consumer";
  even.schedule = "adaptive";
  even.time_per_iteration.assign(static_cast<std::size_t>(relax.num_devices()), 1.0);
  tsar::Region sums(even);
  sums.set_backoff(0);
  {
    tsar::Region alone(even);
    alone.parallel_for(kRows, [](const tsar::Chunk&) {});
    relax.parallel_for(kRows, [](const tsar::Chunk&) {});
    ASSERT_NE(ranges(alone), ranges(relax)) << "the consumer would split differently on its own";
  }
  env.attach(relax);
  env.attach(sums);
  auto ra_ = relax.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_INOUT);
  auto sa = sums.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_IN);
  auto ss = sums.map(s.data(), kRows, tsar::Assoc::rows, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE);
  for (int step = 0; step < 6; ++step) {
    relax_pass(relax, ra_, step);
    sums_pass(sums, sa, ss);
    SCOPED_TRACE("step " + std::to_string(step));
    ASSERT_EQ(ranges(sums), ranges(relax));
    for (const auto& d : sums.pass_stats().devices) {
      EXPECT_EQ(d.bytes_to_device, 0);
      EXPECT_EQ(d.bytes_from_device, 0);
    }
  }
  env.update_host();
  expect_reference();
}

TEST_F(DataEnv, ACpuOnlyLoopReadsTheRowsAcceleratorsOwn) {
  tsar::Data env;
  env.map_2d(a.data(), kRows, kCols);
  tsar::Region relax = fixed("relax", 2);
  tsar::Region sums("cpu-sums", "static", TSAR_DEVICE_CPU);
  env.attach(relax);
  env.attach(sums);
  auto ra_ = relax.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_INOUT);
  auto sa = sums.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_IN);
  for (int step = 0; step < 2; ++step) {
    relax_pass(relax, ra_, step);
    std::int64_t accel_rows = 0;
    for (int w = 0; w < relax.num_devices(); ++w)
      if (accelerator(relax, w)) accel_rows += relax.pass_stats().devices[w].iterations;
    sums.parallel_for(kRows, [&](const tsar::Chunk& c) {
      data_test::row_sums(c, c.ptr(sa), kCols, s.data());  // s is the host's own
    });
    serial_sums();
    for (std::int64_t i = 0; i < kRows; ++i) ASSERT_DOUBLE_EQ(s[i], rs[i]) << i;
    // The rows the accelerators owned came back for the cores (counted for the readers).
    std::int64_t back = 0;
    for (const auto& d : sums.pass_stats().devices) back += d.bytes_from_device;
    EXPECT_EQ(back, accel_rows * kRowBytes);
  }
}

TEST_F(DataEnv, HostUpdatesMoveTheRowsTheyName) {
  tsar::Data env;
  env.map_2d(a.data(), kRows, kCols);
  tsar::Region relax = fixed("relax", 2);
  env.attach(relax);
  auto ra_ = relax.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_INOUT);
  const auto run = [&](int step) { relax_pass(relax, ra_, step); };
  run(0);
  // The first accelerator's rows: its own, stale on the host.
  int acc = 0;
  while (!accelerator(relax, acc)) ++acc;
  const Rows mine = ranges(relax)[static_cast<std::size_t>(acc)];
  const std::int64_t r = mine.first;
  EXPECT_NE(a[r * kCols], ra[r * kCols]) << "the row came back without being asked for";
  const tsar_data_stats before = env.stats(a.data());
  env.update_host_rows(a.data(), static_cast<std::size_t>(r), 3);
  EXPECT_EQ(env.stats(a.data()).bytes_from_device - before.bytes_from_device, 3 * kRowBytes);
  EXPECT_EQ(env.stats(a.data()).device_rows, before.device_rows - 3);
  for (std::int64_t k = r * kCols; k < (r + 3) * kCols; ++k) ASSERT_DOUBLE_EQ(a[k], ra[k]);
  EXPECT_NE(a[(r + 3) * kCols], ra[(r + 3) * kCols]);
  // The program sets two of the accelerator's rows and one of the CPU's, and says so for its
  // own: the next pass copies in exactly those two rows.
  env.update_host();
  for (const std::int64_t row : {std::int64_t{0}, r + 1, r + 2})
    for (std::int64_t j = 0; j < kCols; ++j)
      a[row * kCols + j] = ra[row * kCols + j] = -1.0 - static_cast<double>(j);
  env.update_device_rows(a.data(), static_cast<std::size_t>(r + 1), 2);
  run(1);
  EXPECT_EQ(relax.pass_stats().devices[static_cast<std::size_t>(acc)].bytes_to_device,
            2 * kRowBytes);
  env.update_host(a.data());
  for (std::size_t k = 0; k < a.size(); ++k) ASSERT_DOUBLE_EQ(a[k], ra[k]) << k;
  // Dropping a device's rows without writing them back loses its results: the host wins.
  run(2);
  env.update_device(a.data());
  EXPECT_EQ(env.stats(a.data()).device_rows, 0);
  EXPECT_NE(a[r * kCols], ra[r * kCols]);
}

TEST_F(DataEnv, EitherMayBeFreedFirst) {
  {
    tsar::Region relax = fixed("relax", 2);
    tsar::Mapped<double> ra_;
    {
      tsar::Data env;
      env.map_2d(a.data(), kRows, kCols);
      env.attach(relax);
      ra_ = relax.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_INOUT);
      relax_pass(relax, ra_, 0);
    }  // the program's handle goes: the rows come back
    for (std::size_t k = 0; k < a.size(); ++k) ASSERT_DOUBLE_EQ(a[k], ra[k]) << k;
    // ... and the region goes on using the environment.
    for (int step = 1; step < 3; ++step) {
      relax_pass(relax, ra_, step);
    }
    ra_.sync();
    for (std::size_t k = 0; k < a.size(); ++k) ASSERT_DOUBLE_EQ(a[k], ra[k]) << k;
    relax_pass(relax, ra_, 3);
  }  // the last region goes: so does the environment, writing its rows back
  for (std::size_t k = 0; k < a.size(); ++k) ASSERT_DOUBLE_EQ(a[k], ra[k]) << k;
}

TEST_F(DataEnv, MisusesAreRefusedWithAMessage) {
  tsar::Data env;
  env.map_2d(a.data(), kRows, kCols);
  const auto fails = [](auto&& f, int status, const std::string& fragment) {
    try {
      f();
      ADD_FAILURE() << "no error (expected '" << fragment << "')";
    } catch (const tsar::Error& e) {
      EXPECT_EQ(e.status(), status) << e.what();
      EXPECT_THAT(e.what(), HasSubstr(fragment));
    }
  };
  fails([&] { env.map(a.data() + 5, 10); }, TSAR_ERR_REGISTERED, "overlaps mapped buffer");
  fails([&] { env.map_2d(a.data(), kRows, kCols); }, TSAR_ERR_REGISTERED, "already mapped");
  tsar::Region r = fixed("misuse", 2);
  auto own = r.map(s.data(), kRows, tsar::Assoc::rows, TSAR_MEM_IN);
  env.attach(r);
  fails([&] { env.attach(r); }, TSAR_ERR_STATE, "attached to a data environment already");
  fails([&] { env.map(s.data(), kRows); }, TSAR_ERR_REGISTERED, "registered on its own");
  fails([&] { r.map(a.data(), kRows * kCols, tsar::Assoc::rows, TSAR_MEM_IN); }, TSAR_ERR_INVALID,
        "a region registers a mapped buffer with its shape");
  fails([&] { r.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::cols, TSAR_MEM_IN); },
        TSAR_ERR_UNSUPPORTED, "coherent by rows");
  fails([&] { r.map(a.data() + kCols, 4, tsar::Assoc::rows, TSAR_MEM_IN); }, TSAR_ERR_REGISTERED,
        "register the mapped buffer itself");
  {
    auto mapped = r.map_2d(a.data(), kRows, kCols, 0, tsar::Assoc::rows, TSAR_MEM_IN);
    fails([&] { env.unmap(a.data()); }, TSAR_ERR_STATE, "unregister it there first");
    fails([&] { mapped.retarget(ra.data()); }, TSAR_ERR_INVALID, "mapped in a data environment");
  }
  env.unmap(a.data());
  fails([&] { env.unmap(a.data()); }, TSAR_ERR_UNKNOWN, "not mapped");
  fails([&] { env.update_host_rows(s.data(), 0, 1); }, TSAR_ERR_UNKNOWN, "not mapped");
  env.map_2d(a.data(), kRows, kCols);
  fails([&] { env.update_device_rows(a.data(), kRows - 1, 2); }, TSAR_ERR_INVALID,
        "lie outside buffer");
}

}  // namespace
