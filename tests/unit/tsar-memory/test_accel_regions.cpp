// SPDX-License-Identifier: BSD-3-Clause
// Regions with accelerators that have their own memory, through the public API: every
// association type gives the serial loop's results, and each accelerator moves exactly what
// its range needs -- the bytes are computed here from the association and the split the
// statistics report. In CI the accelerators are the host's OpenMP device (omphost: separate
// allocations, real copies, target regions); tests/gpu/tsar runs the same tests on GPUs.
// What the planner decides on emulated speeds is tested on emulated time in
// tests/unit/tsar/test_emulated_regions.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <numeric>
#include <thread>
#include <vector>

#include "accel_bodies.hpp"
#include "tsar/tsar.hpp"
#if TSAR_TEST_CUDA
#include <cuda_runtime_api.h>
#endif

namespace {

using accel_test::setup;
using ::testing::HasSubstr;
constexpr std::int64_t kDouble = sizeof(double);

class Accel : public ::testing::Test {
 protected:
  // The bytes asserted are those of the planned ranges: an accelerator stealing from the core,
  // or a trial's pass without one unit, as real time has them, copies more (both are tested
  // on emulated time, in tests/unit/tsar/test_emulated_regions.cpp).
  void SetUp() override {
    ::setenv("TSAR_ACCEL_STEAL", "0", 1);
    ::setenv("TSAR_TRIALS", "0", 1);
    tsar::set_devices(setup().devices);
  }
  void TearDown() override {
    tsar::set_devices("");
    ::unsetenv("TSAR_ACCEL_STEAL");
    ::unsetenv("TSAR_TRIALS");
  }

  static bool accelerator(const tsar::Region& r, int w) {
    return r.device(w).kind != TSAR_DEVICE_CPU;
  }
  /// The range worker w ran in the last pass of a one-range-per-pass schedule: ranges are
  /// laid out in worker order.
  static std::pair<std::int64_t, std::int64_t> range_of(const tsar::Region& r, int w) {
    const auto stats = r.pass_stats();
    std::int64_t b = 0;
    for (int v = 0; v < w; ++v) b += stats.devices[static_cast<std::size_t>(v)].iterations;
    return {b, b + stats.devices[static_cast<std::size_t>(w)].iterations};
  }
  /// Halo rows worker w's range (of a ratio plan, every range non-empty) gets through the host
  /// in a steady pass of a resident stencil: from neighbouring ranges on CPU devices, and from
  /// accelerators unless those copy into its memory directly (Device::can_copy_peer: the
  /// host's OpenMP device in CI, CUDA GPUs; not two OpenMP GPUs, which libgomp copies between
  /// through the host).
  static std::int64_t host_halo_rows(const tsar::Region& r, int w, std::int64_t rows) {
    const bool peer = setup().kind != "omp";
    const auto [lo, hi] = range_of(r, w);
    std::int64_t n = 0;
    for (int v = 0; v < r.num_devices() && hi > lo; ++v) {
      const auto [vlo, vhi] = range_of(r, v);
      const bool borders =
          v != w && vhi > vlo &&
          ((lo > 0 && vlo < lo && lo <= vhi) || (hi < rows && vlo <= hi && hi < vhi));
      if (borders && (!peer || !accelerator(r, v))) ++n;
    }
    return n;
  }
  /// Initial times per iteration that fix the split under the static schedule: CPU devices
  /// 1, accelerators 1/2 (each accelerator gets twice a CPU's share).
  static std::vector<double> fixed_times(const tsar::Region& r) {
    std::vector<double> t;
    for (int w = 0; w < r.num_devices(); ++w) t.push_back(accelerator(r, w) ? 0.5 : 1.0);
    return t;
  }
  /// A static region named `name` whose split fixed_times fixes (probed on these devices).
  static tsar::RegionOptions fixed_split(const char* name) {
    tsar::RegionOptions options;
    options.name = name;
    options.schedule = "static";
    tsar::Region probe(options);
    options.time_per_iteration = fixed_times(probe);
    return options;
  }
  /// A stencil's host grids: a (rows x cols, element k = fill(k)) and b (zeros), the
  /// buffers the region maps, and ra and rb, the serial loop's copies (serial_jacobi).
  struct StencilGrids {
    std::vector<double> a, b, ra, rb;
  };
  template <class Fill>
  static StencilGrids stencil_grids(std::int64_t rows, std::int64_t cols, Fill fill) {
    StencilGrids g;
    g.a.resize(static_cast<std::size_t>(rows * cols));
    for (std::size_t k = 0; k < g.a.size(); ++k) g.a[k] = fill(k);
    g.b.assign(g.a.size(), 0.0);
    g.ra = g.a;
    g.rb = g.b;
    return g;
  }
  static double scrambled(std::size_t k) { return static_cast<double>((k * 37) % 101); }
  /// The double-buffered stencil of the resident tests: a persistent input and a persistent,
  /// resident output, one halo row each.
  static std::pair<tsar::Mapped<double>, tsar::Mapped<double>> map_resident_stencil(
      tsar::Region& region, std::vector<double>& a, std::vector<double>& b, std::int64_t rows,
      std::int64_t cols) {
    const unsigned persist = TSAR_MEM_PERSIST;
    auto cur = region.map_2d(a.data(), rows, cols, 0, tsar::Assoc::rows, TSAR_MEM_IN | persist, 1);
    auto next = region.map_2d(b.data(), rows, cols, 0, tsar::Assoc::rows,
                              TSAR_MEM_OUT | TSAR_MEM_OVERWRITE | persist | TSAR_MEM_RESIDENT, 1);
    return {std::move(cur), std::move(next)};
  }
  /// The GPU-averse loop's data: a table t of len values every device needs whole, the output
  /// y of n gathers, and ref, the serial loop's y (accel_test::gather: t[7i] + t[13i]).
  struct GatherData {
    std::vector<double> t, y, ref;
  };
  static GatherData gather_data(std::int64_t n, std::int64_t len) {
    GatherData g{std::vector<double>(static_cast<std::size_t>(len)),
                 std::vector<double>(static_cast<std::size_t>(n), 0.0),
                 std::vector<double>(static_cast<std::size_t>(n))};
    std::iota(g.t.begin(), g.t.end(), 1.0);
    for (std::int64_t i = 0; i < n; ++i) g.ref[i] = g.t[(7 * i) % len] + g.t[(13 * i) % len];
    return g;
  }
  /// Sets the devices with environment variable `name` = `value` while they are built (TSAR
  /// reads TSAR_LINK_BANDWIDTH and TSAR_DEVICE_MEMORY_LIMIT then), unset again afterwards.
  static void set_devices_with(const char* name, const char* value, const std::string& devices) {
    ::setenv(name, value, 1);
    tsar::set_devices(devices);
    ::unsetenv(name);
  }
  /// An emulated speed: the calling worker sleeps `us` microseconds.
  static void sleep_us(double us) {
    std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(us));
  }

  /// One serial stencil sweep over the whole grid: the reference the region's passes match.
  static void serial_jacobi(const std::vector<double>& cur, std::vector<double>& next,
                            std::int64_t rows, std::int64_t cols) {
    accel_test::jacobi(
        tsar::Chunk(nullptr, tsar_chunk{0, rows, 0, TSAR_DEVICE_CPU, 0, -1, nullptr, nullptr}),
        cur.data(), next.data(), rows, cols);
  }
};

TEST_F(Accel, RowsMatchTheSerialLoopAndMoveOnlyTheirPart) {
  const std::int64_t n = 20000;
  std::vector<double> x(n), y(n), ref(n);
  for (std::int64_t i = 0; i < n; ++i) x[i] = 0.5 * static_cast<double>(i % 97), y[i] = ref[i] = 1;
  tsar::Region region("rows", "adaptive");
  region.set_backoff(0);  // slower accelerators stay accelerators: their bytes are checked
  ASSERT_EQ(region.num_devices(), (setup().kind == "omphost" ? 1 : 2) + setup().accelerators);
  auto xs = region.map(x.data(), x.size(), tsar::Assoc::rows, TSAR_MEM_IN);
  auto ys = region.map(y.data(), y.size(), tsar::Assoc::rows, TSAR_MEM_INOUT);
  for (int pass = 0; pass < 5; ++pass) {
    region.parallel_for(
        n, [&](const tsar::Chunk& c) { accel_test::axpy(c, c.ptr(xs), c.ptr(ys), 3.0); });
    for (std::int64_t i = 0; i < n; ++i) ref[i] += 3.0 * x[i];
    const auto stats = region.pass_stats();
    for (int w = 0; w < region.num_devices(); ++w) {
      const auto& d = stats.devices[static_cast<std::size_t>(w)];
      SCOPED_TRACE("pass " + std::to_string(pass) + " device " + region.device(w).key);
      const std::int64_t own = accelerator(region, w) ? d.iterations : 0;
      EXPECT_EQ(d.bytes_to_device, 2 * own * kDouble);  // x and y in
      EXPECT_EQ(d.bytes_from_device, own * kDouble);    // y out
    }
  }
  EXPECT_EQ(y, ref);
}

// Arrays from tsar_host_alloc are copied like any other, and on a GPU node they are the
// page-locked memory that makes the copies DMA (the region locks nothing more).
TEST_F(Accel, HostMemoryFromTsarHostAllocIsPageLockedWhereAGpuIsAndCopiedLikeAnyOther) {
  const std::int64_t n = 20000;
  std::vector<double, tsar::HostAllocator<double>> x(n), y(n);
  std::vector<double> ref(n);
  for (std::int64_t i = 0; i < n; ++i) x[i] = 0.5 * static_cast<double>(i % 97), y[i] = ref[i] = 1;
#if TSAR_TEST_CUDA
  cudaPointerAttributes attributes{};
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, x.data()), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeHost);
#endif
  tsar::Region region("host memory", "adaptive");
  auto xs = region.map(x.data(), x.size(), tsar::Assoc::rows, TSAR_MEM_IN);
  auto ys = region.map(y.data(), y.size(), tsar::Assoc::rows, TSAR_MEM_INOUT);
  for (int pass = 0; pass < 3; ++pass) {
    region.parallel_for(
        n, [&](const tsar::Chunk& c) { accel_test::axpy(c, c.ptr(xs), c.ptr(ys), 3.0); });
    for (std::int64_t i = 0; i < n; ++i) ref[i] += 3.0 * x[i];
  }
  EXPECT_TRUE(std::equal(y.begin(), y.end(), ref.begin()));
}

#if TSAR_TEST_CUDA
TEST_F(Accel, TheCallerKeepsTheCudaDeviceItSelected) {
  // tsar_run's caller runs a GPU's part itself where the GPU is worker 0 or the caller drives
  // it (a pass all the GPU's): the program's own CUDA calls afterwards must still go to the
  // device the program selected.
  int count = 0;
  if (setup().kind != "cuda" || cudaGetDeviceCount(&count) != cudaSuccess || count < 2)
    GTEST_SKIP() << "needs two CUDA devices";
  const std::int64_t n = 1 << 14;
  // The GPU alone (worker 0), and a GPU so much faster than the core that its passes are its
  // own once measured (the caller drives it).
  const std::pair<const char*, std::vector<double>> cases[] = {{"cuda:0", {1.0}},
                                                               {"cpu:0,cuda:0", {1.0, 1e-6}}};
  for (const auto& [devices, times] : cases) {
    SCOPED_TRACE(devices);
    tsar::set_devices(devices);
    tsar::RegionOptions options;
    options.name = "caller's device";
    options.schedule = "adaptive";
    options.time_per_iteration = times;
    tsar::Region region(options);
    std::vector<double> x(n, 1.0), y(n, 0.0);
    auto xs = region.map(x.data(), x.size(), tsar::Assoc::rows, TSAR_MEM_IN);
    auto ys = region.map(y.data(), y.size(), tsar::Assoc::rows, TSAR_MEM_INOUT);
    for (int pass = 0; pass < 4; ++pass) {
      ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
      region.parallel_for(
          n, [&](const tsar::Chunk& c) { accel_test::axpy(c, c.ptr(xs), c.ptr(ys), 2.0); });
      int selected = -1;
      ASSERT_EQ(cudaGetDevice(&selected), cudaSuccess);
      EXPECT_EQ(selected, 1) << "pass " << pass;
    }
    EXPECT_TRUE(std::all_of(y.begin(), y.end(), [](double v) { return v == 8.0; }));
  }
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}
#endif

TEST_F(Accel, PersistentDoubleBufferedStencilMovesOwnRowsOutAndHaloRowsIn) {
  const std::int64_t rows = 300, cols = 40;
  auto [a, b, ra, rb] = stencil_grids(rows, cols, scrambled);
  tsar::Region region(fixed_split("jacobi"));
  const unsigned persist = TSAR_MEM_PERSIST;
  // Both buffers with the same halo, so each device copy's window fits either role.
  auto cur = region.map_2d(a.data(), rows, cols, 0, tsar::Assoc::rows, TSAR_MEM_IN | persist, 1);
  auto next = region.map_2d(b.data(), rows, cols, 0, tsar::Assoc::rows,
                            TSAR_MEM_OUT | TSAR_MEM_OVERWRITE | persist, 1);
  const std::int64_t row_bytes = cols * kDouble;
  for (int pass = 0; pass < 6; ++pass) {
    region.parallel_for(rows, [&](const tsar::Chunk& c) {
      accel_test::jacobi(c, c.ptr(cur), c.ptr(next), rows, cols);
    });
    serial_jacobi(ra, rb, rows, cols);
    for (int w = 0; w < region.num_devices(); ++w) {
      if (!accelerator(region, w)) continue;
      SCOPED_TRACE("pass " + std::to_string(pass) + " device " + region.device(w).key);
      const auto [lo, hi] = range_of(region, w);
      // A device the split left without rows (a loaded machine's timings) moves nothing.
      const std::int64_t halo = hi == lo ? 0 : (lo > 0 ? 1 : 0) + (hi < rows ? 1 : 0);
      const auto d =
          region.pass_stats()
              .devices[static_cast<std::size_t>(w)];  // a copy: the stats are a temporary
      // First pass: its rows and halo in. Later: only the halo rows its neighbours wrote.
      EXPECT_EQ(d.bytes_to_device, (pass == 0 ? hi - lo + halo : halo) * row_bytes);
      EXPECT_EQ(d.bytes_from_device, (hi - lo) * row_bytes);
    }
    cur.swap_buffers(next);
    std::swap(ra, rb);
  }
  // After an even number of swaps `cur` is a again.
  EXPECT_EQ(a, ra);
  EXPECT_EQ(b, rb);
}

TEST_F(Accel, ResidentStencilOutputStaysOnTheDeviceAndOnlyHaloRowsMove) {
  // As above, with the output TSAR_MEM_RESIDENT: each accelerator moves per pass exactly its
  // boundary rows out (what its neighbours' halos read after the swap) and, after the first
  // pass, its halo rows in (what its neighbours wrote; from accelerators that copy into its
  // memory directly, straight from their copies) -- one row per neighbour each way --
  // and the host buffers equal the serial loop's once synchronised.
  const std::int64_t rows = 300, cols = 40;
  auto [a, b, ra, rb] = stencil_grids(rows, cols, scrambled);
  tsar::Region region(fixed_split("jacobi-resident"));
  auto [cur, next] = map_resident_stencil(region, a, b, rows, cols);
  const std::int64_t row_bytes = cols * kDouble;
  bool resident_rows = false;  // some accelerator computed rows the host has not seen yet
  for (int pass = 0; pass < 6; ++pass) {
    region.parallel_for(rows, [&](const tsar::Chunk& c) {
      accel_test::jacobi(c, c.ptr(cur), c.ptr(next), rows, cols);
    });
    serial_jacobi(ra, rb, rows, cols);
    for (int w = 0; w < region.num_devices(); ++w) {
      if (!accelerator(region, w)) continue;
      SCOPED_TRACE("pass " + std::to_string(pass) + " device " + region.device(w).key);
      const auto [lo, hi] = range_of(region, w);
      resident_rows = resident_rows || hi > lo;
      const std::int64_t neighbours = hi == lo ? 0 : (lo > 0 ? 1 : 0) + (hi < rows ? 1 : 0);
      const auto d = region.pass_stats().devices[static_cast<std::size_t>(w)];
      if (pass == 0) {  // its rows and halo in; of the output only the boundary rows out
        EXPECT_EQ(d.bytes_to_device, (hi - lo + neighbours) * row_bytes);
        EXPECT_EQ(d.bytes_from_device, neighbours * row_bytes);
      } else {  // the halo exchange, nothing else: once the neighbours' copies exist (the rows
                // of pass 1 on), from accelerators straight into its copy
        EXPECT_EQ(d.bytes_to_device,
                  (pass == 1 ? neighbours : host_halo_rows(region, w, rows)) * row_bytes);
        EXPECT_EQ(d.bytes_from_device, neighbours * row_bytes);
      }
      // Of the boundary rows out, those for neighbours that take them straight into their
      // copies (from pass 1 on: in pass 0 their copies do not exist yet).
      EXPECT_EQ(d.bytes_peer,
                pass == 0 ? 0 : (neighbours - host_halo_rows(region, w, rows)) * row_bytes);
    }
    cur.swap_buffers(next);
    std::swap(ra, rb);
  }
  ASSERT_TRUE(resident_rows);
  EXPECT_NE(a, ra);  // the latest sweep is still on the accelerators
  cur.sync();
  EXPECT_EQ(a, ra);
  next = {};  // unregistering writes back what the devices kept of the other buffer
  EXPECT_EQ(b, rb);
}

TEST_F(Accel, ResidentOutputsUnderChunksAndChangingSplitsMatchTheSerialLoop) {
  // Chunks land anywhere, and adaptive splits move: resident rows reach whoever reads them.
  const std::int64_t rows = 257, cols = 24;
  for (const char* schedule : {"chunk:16", "adaptive", "split:3"}) {
    SCOPED_TRACE(schedule);
    auto [a, b, ra, rb] =
        stencil_grids(rows, cols, [](std::size_t k) { return static_cast<double>((k * 53) % 89); });
    tsar::Region region("resident-moving", schedule);
    region.set_backoff(0);
    const unsigned resident = TSAR_MEM_PERSIST | TSAR_MEM_RESIDENT;
    auto cur = region.map_2d(a.data(), rows, cols, 0, tsar::Assoc::rows,
                             TSAR_MEM_IN | TSAR_MEM_PERSIST, 1);
    auto next = region.map_2d(b.data(), rows, cols, 0, tsar::Assoc::rows,
                              TSAR_MEM_OUT | TSAR_MEM_OVERWRITE | resident, 1);
    for (int pass = 0; pass < 8; ++pass) {  // an even number of swaps: `cur` is a again
      region.parallel_for(rows, [&](const tsar::Chunk& c) {
        accel_test::jacobi(c, c.ptr(cur), c.ptr(next), rows, cols);
      });
      serial_jacobi(ra, rb, rows, cols);
      cur.swap_buffers(next);
      std::swap(ra, rb);
    }
    cur.sync();
    next.sync();
    EXPECT_EQ(a, ra);
    EXPECT_EQ(b, rb);
  }
}

TEST_F(Accel, ResidentNeedsAPersistentRowsOutput) {
  tsar::Region region("resident-checks", "static");
  std::vector<double> x(64);
  const unsigned r = TSAR_MEM_PERSIST | TSAR_MEM_RESIDENT;
  tsar_region* c = region.handle();
  EXPECT_EQ(
      tsar_reg_mem(c, x.data(), sizeof(double), x.size(), 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN | r),
      TSAR_ERR_INVALID);
  EXPECT_THAT(tsar_last_error(), HasSubstr("TSAR_MEM_RESIDENT"));
  EXPECT_EQ(tsar_reg_mem(c, x.data(), sizeof(double), x.size(), 0, TSAR_ASSOC_ROWS,
                         TSAR_MEM_OUT | TSAR_MEM_RESIDENT),
            TSAR_ERR_INVALID);
  EXPECT_EQ(
      tsar_reg_mem_2d(c, x.data(), sizeof(double), 8, 8, 0, 0, TSAR_ASSOC_COLS, TSAR_MEM_OUT | r),
      TSAR_ERR_INVALID);
  EXPECT_EQ(tsar_mem_sync(c, x.data()), TSAR_ERR_UNKNOWN);
  EXPECT_EQ(
      tsar_reg_mem(c, x.data(), sizeof(double), x.size(), 0, TSAR_ASSOC_ROWS, TSAR_MEM_OUT | r),
      TSAR_OK);
  EXPECT_EQ(tsar_mem_sync(c, x.data()), TSAR_OK);  // nothing resident yet
  EXPECT_EQ(tsar_unreg_mem(c, x.data()), TSAR_OK);
}

TEST_F(Accel, ColumnsArePackedWithTheirHalo) {
  const std::int64_t rows = 24, cols = 3000, stride = 3004;
  std::vector<double> in(rows * stride), out(rows * stride, -1.0);
  for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<double>(k % 251);
  std::vector<double> ref = out;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j)
      ref[r * stride + j] = 2 * in[r * stride + j] + (j > 0 ? in[r * stride + j - 1] : 0.0);
  tsar::Region region("cols", "adaptive");
  region.set_backoff(0);  // slower accelerators stay accelerators: their bytes are checked
  auto is = region.map_2d(in.data(), rows, cols, stride, tsar::Assoc::cols, TSAR_MEM_IN, 1);
  auto os = region.map_2d(out.data(), rows, cols, stride, tsar::Assoc::cols,
                          TSAR_MEM_OUT | TSAR_MEM_OVERWRITE | TSAR_MEM_PAD);
  for (int pass = 0; pass < 3; ++pass) {
    region.parallel_for(cols, [&](const tsar::Chunk& c) {
      accel_test::scale_cols(c, c.layout(is), c.layout(os), rows);
    });
    for (int w = 0; w < region.num_devices(); ++w) {
      if (!accelerator(region, w)) continue;
      const auto [lo, hi] = range_of(region, w);
      const std::int64_t in_cols =  // none for a device the split left without columns
          hi == lo ? 0 : std::min(cols, hi + 1) - std::max<std::int64_t>(0, lo - 1);
      const auto d =
          region.pass_stats()
              .devices[static_cast<std::size_t>(w)];  // a copy: the stats are a temporary
      EXPECT_EQ(d.bytes_to_device, rows * in_cols * kDouble) << region.device(w).key;
      EXPECT_EQ(d.bytes_from_device, rows * (hi - lo) * kDouble) << region.device(w).key;
    }
  }
  EXPECT_EQ(out, ref);
}

TEST_F(Accel, RowsAndColumnsMergeBackOnlyChangedElements) {
  const std::int64_t n = 160;
  for (const char* schedule : {"adaptive", "chunk-dynamic:16", "split:3"}) {
    SCOPED_TRACE(schedule);
    std::vector<double> a(n * n), ref(n * n);
    std::iota(a.begin(), a.end(), 0.0);
    ref = a;
    tsar::Region region("plus", schedule);
    auto as = region.map_2d(a.data(), n, n, 0, tsar::Assoc::rows_cols, TSAR_MEM_INOUT);
    for (int pass = 0; pass < 3; ++pass) {
      region.parallel_for(
          n, [&](const tsar::Chunk& c) { accel_test::plus_update(c, c.layout(as), n); });
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = i + 1; j < n; ++j) {
          ref[i * n + j] += static_cast<double>(i + 2 * j);
          ref[j * n + i] -= static_cast<double>(j + 3 * i);
        }
    }
    EXPECT_EQ(a, ref);
  }
}

TEST_F(Accel, PersistentFullInputIsCopiedOnce) {
  const std::int64_t n = 5000, len = 777;
  auto [t, y, ref] = gather_data(n, len);
  tsar::Region region("full", "adaptive");
  region.set_backoff(0);  // slower accelerators stay accelerators: their bytes are checked
  auto ts = region.map(t.data(), t.size(), tsar::Assoc::full, TSAR_MEM_IN | TSAR_MEM_PERSIST);
  auto ys = region.map(y.data(), y.size(), tsar::Assoc::rows, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE);
  for (int pass = 0; pass < 3; ++pass) {
    region.parallel_for(
        n, [&](const tsar::Chunk& c) { accel_test::gather(c, c.ptr(ts), len, c.ptr(ys)); });
    for (int w = 0; w < region.num_devices(); ++w) {
      if (!accelerator(region, w)) continue;
      const auto d =
          region.pass_stats()
              .devices[static_cast<std::size_t>(w)];  // a copy: the stats are a temporary
      // The table once, on the pass a device first runs (every accelerator runs pass 0).
      EXPECT_EQ(d.bytes_to_device, pass == 0 ? len * kDouble : 0) << region.device(w).key;
      EXPECT_EQ(d.bytes_from_device, d.iterations * kDouble);
    }
  }
  EXPECT_EQ(y, ref);
  // The program changes the table: announced, it is copied again.
  for (auto& v : t) v *= 2;
  ts.invalidate();
  region.parallel_for(
      n, [&](const tsar::Chunk& c) { accel_test::gather(c, c.ptr(ts), len, c.ptr(ys)); });
  for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(y[i], 2 * ref[i]) << i;
}

TEST_F(Accel, PaddedRowsUseTheDeviceStride) {
  const std::int64_t rows = 3000, cols = 5;
  std::vector<double> m(rows * cols), ref(rows * cols);
  std::iota(m.begin(), m.end(), 0.0);
  for (std::size_t k = 0; k < m.size(); ++k) ref[k] = 3 * m[k] + static_cast<double>(k % cols);
  tsar::Region region("padded", "adaptive");
  region.set_backoff(0);  // slower accelerators stay accelerators: their bytes are checked
  auto ms =
      region.map_2d(m.data(), rows, cols, 0, tsar::Assoc::rows, TSAR_MEM_INOUT | TSAR_MEM_PAD);
  std::vector<std::size_t> strides(static_cast<std::size_t>(region.num_devices()), 0);
  region.parallel_for(rows, [&](const tsar::Chunk& c) {
    const tsar_mem_layout l = c.layout(ms);
    strides[static_cast<std::size_t>(c.worker())] = l.row_stride;
    accel_test::scale_rows(c, l, cols);
  });
  EXPECT_EQ(m, ref);
  const auto ran = region.pass_stats();
  for (int w = 0; w < region.num_devices(); ++w) {
    if (!accelerator(region, w)) {
      // The host's layout -- for the cores that ran: next to a GPU the cores' share can be a
      // few rows, which one core may take whole before another arrives.
      if (ran.devices[static_cast<std::size_t>(w)].iterations > 0) {
        EXPECT_EQ(strides[static_cast<std::size_t>(w)], 5u);
      }
      continue;
    }
    // Rows of 5 doubles padded to the device's alignment: 64 bytes on the host's OpenMP
    // device, 128 on GPUs.
    EXPECT_EQ(strides[static_cast<std::size_t>(w)], setup().kind == "omphost" ? 8u : 16u);
    const auto d = region.pass_stats()
                       .devices[static_cast<std::size_t>(w)];  // a copy: the stats are a temporary
    EXPECT_EQ(d.bytes_to_device, d.iterations * cols * kDouble);  // padding is not moved
    EXPECT_EQ(d.bytes_from_device, d.iterations * cols * kDouble);
  }
}

TEST_F(Accel, ReductionsCombineDeviceAccumulators) {
  const std::int64_t n = 40000;
  std::vector<double> x(n);
  for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<double>(i % 1000);  // exact sums
  const double want = std::accumulate(x.begin(), x.end(), 0.0);
  for (const char* schedule : {"adaptive", "chunk-dynamic:1000", "split:4"}) {
    SCOPED_TRACE(schedule);
    tsar::Region region("sum", schedule);
    auto xs = region.map(x.data(), x.size(), tsar::Assoc::rows, TSAR_MEM_IN);
    double total = -1;
    auto red = region.reduction(total, 0.0, [](double a, double b) { return a + b; });
    for (int pass = 0; pass < 3; ++pass) {
      total = 0;
      region.parallel_for(
          n, [&](const tsar::Chunk& c) { accel_test::sum(c, c.ptr(xs), &c.local(red)); });
      EXPECT_EQ(total, want);
    }
  }
}

TEST_F(Accel, RetargetStreamsBlocksThroughOneAllocation) {
  const std::int64_t n = 4096;
  std::vector<std::vector<double>> blocks(4, std::vector<double>(n));
  for (std::size_t k = 0; k < blocks.size(); ++k)
    std::fill(blocks[k].begin(), blocks[k].end(), static_cast<double>(k + 1));
  std::vector<double> y(n, 0.0);
  tsar::Region region("stream", "adaptive");
  auto xs = region.map(blocks[0].data(), n, tsar::Assoc::rows, TSAR_MEM_IN | TSAR_MEM_PERSIST);
  auto ys = region.map(y.data(), y.size(), tsar::Assoc::rows, TSAR_MEM_INOUT);
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    if (k > 0) xs.retarget(blocks[k].data());
    region.parallel_for(
        n, [&](const tsar::Chunk& c) { accel_test::axpy(c, c.ptr(xs), c.ptr(ys), 1.0); });
  }
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 1.0 + 2 + 3 + 4) << i;
}

TEST_F(Accel, ThesisStyleLoopGetsDevicePointersFromTsarMem) {
  const std::int64_t n = 10000;
  std::vector<double> x(n, 2.0), y(n, 1.0);
  tsar_region* r = nullptr;
  ASSERT_EQ(tsar_init(&r, "thesis", "split:3", TSAR_DEVICE_ALL, nullptr, 0, 0), TSAR_OK);
  ASSERT_EQ(tsar_reg_mem(r, x.data(), sizeof(double), n, 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN), TSAR_OK);
  ASSERT_EQ(tsar_reg_mem(r, y.data(), sizeof(double), n, 0, TSAR_ASSOC_ROWS, TSAR_MEM_INOUT),
            TSAR_OK);
  int failures = 0;
  for (int pass = 0; pass < 2; ++pass) {
#pragma omp parallel num_threads(tsar_num_devices(r)) reduction(+ : failures)
    do {
      int64_t b = 0, e = 0;
      if (tsar_next(r, n, &b, &e) != TSAR_OK) ++failures;
      if (b < e) {
        auto* xp = static_cast<double*>(tsar_mem(r, x.data()));
        auto* yp = static_cast<double*>(tsar_mem(r, y.data()));
        if (xp == nullptr || yp == nullptr) {
          ++failures;
        } else {
          // CUDA kernels go on the device's stream: ordered before TSAR's copies back.
          const tsar_chunk chunk{b,
                                 e,
                                 tsar_get_worker(r),
                                 tsar_get_type(r),
                                 tsar_get_device(r),
                                 -1,
                                 tsar_get_stream(r),
                                 r};
          tsar_device_info info{};
          tsar_get_device_info(r, chunk.worker, &info);
          tsar_chunk with_device = chunk;
          with_device.omp_device = info.omp_device;
          accel_test::axpy(tsar::Chunk(r, with_device), xp, yp, 1.0);
        }
      }
    } while (tsar_loop(r));
  }
  EXPECT_EQ(failures, 0);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 5.0) << i;
  EXPECT_EQ(tsar_free(r), TSAR_OK);
}

TEST_F(Accel, RunningOutOfDeviceMemoryRetiresTheDeviceAndTheWorkFinishesOnTheCpu) {
  // 4 KiB per accelerator: the first range's rows do not fit.
  set_devices_with("TSAR_DEVICE_MEMORY_LIMIT", "4K", setup().devices);
  const std::int64_t n = 30000;
  std::vector<double> x(n, 1.0), y(n, 0.5);
  tsar::Region region("oom", "adaptive");
  auto xs = region.map(x.data(), x.size(), tsar::Assoc::rows, TSAR_MEM_IN);
  auto ys = region.map(y.data(), y.size(), tsar::Assoc::rows, TSAR_MEM_INOUT);
  testing::internal::CaptureStderr();
  for (int pass = 0; pass < 3; ++pass)
    region.parallel_for(
        n, [&](const tsar::Chunk& c) { accel_test::axpy(c, c.ptr(xs), c.ptr(ys), 2.0); });
  const std::string warnings = testing::internal::GetCapturedStderr();
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 6.5) << i;
  EXPECT_THAT(warnings, HasSubstr("TSAR_DEVICE_MEMORY_LIMIT"));
  EXPECT_THAT(warnings, HasSubstr("is retired for this region and its work continues on CPUs"));
  const auto stats = region.pass_stats();
  for (int w = 0; w < region.num_devices(); ++w) {
    if (region.device(w).kind == TSAR_DEVICE_CPU) continue;
    EXPECT_EQ(region.device(w).retired, 1) << region.device(w).key;
    const auto& d = stats.devices[static_cast<std::size_t>(w)];
    EXPECT_EQ(d.kind, static_cast<unsigned>(TSAR_DEVICE_CPU));  // its worker computes on a core
    EXPECT_GT(d.iterations, 0);
    EXPECT_EQ(d.bytes_to_device + d.bytes_from_device, 0);
  }
}

TEST_F(Accel, ResidentStencilKeepsItsSplitWhereMovingRowsDoesNotPay) {
  // The adaptive split of a resident stencil, on links declared so slow (1 KiB/s) that moving
  // one row costs longer than any pass could gain: after the first pass the split holds, so
  // each accelerator moves only the halo exchange -- one row per neighbour each way -- and
  // the results equal the serial loop's. The first pass, which copies an accelerator's whole
  // range in, is all copies at that speed: not learned as the device's time per iteration.
  // That the split never pays for its moves needs the emulated accelerators' speeds: a real
  // GPU, many times faster than the cores, takes every row.
  if (setup().kind != "omphost") GTEST_SKIP() << "emulated speeds: host-as-device only";
  set_devices_with("TSAR_LINK_BANDWIDTH", "1K", setup().devices);
  const std::int64_t rows = 300, cols = 40;
  auto [a, b, ra, rb] = stencil_grids(rows, cols, scrambled);
  tsar::Region region("jacobi-held", "adaptive");
  region.set_backoff(0);  // slower accelerators stay accelerators: their bytes are checked
  auto [cur, next] = map_resident_stencil(region, a, b, rows, cols);
  const std::int64_t row_bytes = cols * kDouble;
  std::vector<std::pair<std::int64_t, std::int64_t>> first;
  for (int pass = 0; pass < 6; ++pass) {
    region.parallel_for(rows, [&](const tsar::Chunk& c) {
      accel_test::jacobi(c, c.ptr(cur), c.ptr(next), rows, cols);
    });
    serial_jacobi(ra, rb, rows, cols);
    for (int w = 0; w < region.num_devices(); ++w) {
      if (!accelerator(region, w)) continue;
      SCOPED_TRACE("pass " + std::to_string(pass) + " device " + region.device(w).key);
      const auto range = range_of(region, w);
      const auto learned = region.pass_stats().devices[static_cast<std::size_t>(w)];
      if (pass == 0) {
        first.push_back(range);
        if (range.second > range.first) {
          EXPECT_EQ(learned.time_per_iteration, 0.0);
        }
        continue;
      }
      if (range.second > range.first) {
        EXPECT_GT(learned.time_per_iteration, 0.0);
      }
      const auto [lo, hi] = range;
      EXPECT_EQ(range,
                first[static_cast<std::size_t>(w - (region.num_devices() - setup().accelerators))]);
      const std::int64_t neighbours = hi == lo ? 0 : (lo > 0 ? 1 : 0) + (hi < rows ? 1 : 0);
      const auto d = region.pass_stats().devices[static_cast<std::size_t>(w)];
      EXPECT_EQ(d.bytes_to_device,
                (pass == 1 ? neighbours : host_halo_rows(region, w, rows)) * row_bytes);
      EXPECT_EQ(d.bytes_from_device, neighbours * row_bytes);
    }
    cur.swap_buffers(next);
    std::swap(ra, rb);
  }
  cur.sync();
  next.sync();
  EXPECT_EQ(a, ra);
  EXPECT_EQ(b, rb);
}

TEST_F(Accel, AnAcceleratorWhoseCopiesOutlastTheCpuPassIsRetiredUnrun) {
  // A gather from a table every device needs whole and anew each pass, on links declared at
  // 1 MiB/s: copying the 1 MiB table takes a second, the CPU's whole pass microseconds. The
  // accelerators sit out the first pass (nobody knows the CPU's time yet) and are retired
  // before the second, never having copied a byte; results equal the serial loop's.
  set_devices_with("TSAR_LINK_BANDWIDTH", "1M", setup().devices);
  const std::int64_t n = 4096, len = std::int64_t{1} << 17;
  auto [t, y, ref] = gather_data(n, len);
  tsar::Region region("averse", "adaptive");
  auto ts = region.map(t.data(), t.size(), tsar::Assoc::full, TSAR_MEM_IN);
  auto ys = region.map(y.data(), y.size(), tsar::Assoc::rows, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE);
  for (int pass = 0; pass < 4; ++pass) {
    std::fill(y.begin(), y.end(), 0.0);
    region.parallel_for(
        n, [&](const tsar::Chunk& c) { accel_test::gather(c, c.ptr(ts), len, c.ptr(ys)); });
    EXPECT_EQ(y, ref) << "pass " << pass;
    const auto stats = region.pass_stats();
    for (int w = 0; w < region.num_devices(); ++w) {
      if (w < region.num_devices() - setup().accelerators) continue;  // the CPU devices
      SCOPED_TRACE("pass " + std::to_string(pass) + " device " + region.device(w).key);
      const auto& d = stats.devices[static_cast<std::size_t>(w)];
      EXPECT_EQ(d.bytes_to_device + d.bytes_from_device, 0);
      if (pass == 0) {
        EXPECT_EQ(d.iterations, 0);  // sat out
        EXPECT_EQ(d.retired, 0);
      } else {  // retired unrun: its worker computes on the core that drove it
        EXPECT_EQ(d.retired, 1);
        EXPECT_EQ(d.kind, static_cast<unsigned>(TSAR_DEVICE_CPU));
      }
    }
  }
}

TEST_F(Accel, ARetiredAcceleratorsCoreBesideATeamLeavesTheTeamItsRangeWhole) {
  // The GPU-averse loop beside a team (links declared at 1 MiB/s: the table's copy outlasts
  // the CPU pass, so the accelerator is retired unrun and its worker computes on the core that
  // drove it). The team spreads what it takes over its cores (a fork and join per piece): it
  // takes its range in one piece, and at most one more (the rest of the core's range), while
  // the core takes its own in pieces. How much each takes follows real time (sleeps), which a
  // loaded machine bends, so no share is asserted; that both take part is made certain by
  // order: the team's pieces wait until the core has run one (a core woken late would
  // otherwise find its range taken). Results equal the serial loop's.
  if (setup().kind != "omphost") GTEST_SKIP() << "emulated speeds: host-as-device only";
  set_devices_with("TSAR_LINK_BANDWIDTH", "1M", "team:0-1,omphost:1");
  const std::int64_t n = 60, len = std::int64_t{1} << 17;
  auto [t, y, ref] = gather_data(n, len);
  tsar::Region region("averse-team", "adaptive");
  ASSERT_EQ(region.num_devices(), 2);
  auto ts = region.map(t.data(), t.size(), tsar::Assoc::full, TSAR_MEM_IN);
  auto ys = region.map(y.data(), y.size(), tsar::Assoc::rows, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE);
  double core_share = 0.0;
  for (int pass = 0; pass < 6; ++pass) {
    std::fill(y.begin(), y.end(), 0.0);
    std::atomic<bool> core_ran{pass == 0};  // pass 0: the accelerator sits out
    region.parallel_for(n, [&](const tsar::Chunk& c) {
      if (c.worker() == 1) core_ran = true;
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!core_ran && std::chrono::steady_clock::now() < until) std::this_thread::yield();
      sleep_us((c.worker() == 0 ? 250.0 : 500.0) * static_cast<double>(c.size()));
      accel_test::gather(c, c.ptr(ts), len, c.ptr(ys));
    });
    EXPECT_EQ(y, ref) << "pass " << pass;
    if (pass == 0) continue;  // the accelerator sat out (nobody knew the CPU's time)
    SCOPED_TRACE("pass " + std::to_string(pass));
    ASSERT_EQ(region.device(1).retired, 1);
    ASSERT_EQ(region.device(1).kind, static_cast<unsigned>(TSAR_DEVICE_CPU));
    const auto stats = region.pass_stats();
    EXPECT_EQ(stats.devices[0].iterations + stats.devices[1].iterations, n);
    EXPECT_LE(stats.devices[0].chunks, 2);
    if (pass >= 4) core_share += static_cast<double>(stats.devices[1].iterations) / (2.0 * n);
  }
  EXPECT_GT(core_share, 0.0);
  EXPECT_LT(core_share, 1.0);
}

}  // namespace
