// SPDX-License-Identifier: BSD-3-Clause
// The accelerator memory path from the inside: the interval sets behind "what is stale",
// row padding, device memory limits, the OpenMP target device's copies (on the host's
// initial device: separate allocations, real copies), device lists and GPU placement on a
// 4-GPU fixture, and the copy engine driven range by range, with the bytes each step must
// move computed here independently.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "api/error.hpp"
#include "devices/device_list.hpp"
#include "devices/gpu_discovery.hpp"
#include "devices/host_device.hpp"
#include "devices/link_speed.hpp"
#include "devices/omp_target_device.hpp"
#include "four_gpu_node.hpp"
#include "memory/copy_costs.hpp"
#include "memory/copy_engine.hpp"
#include "memory/data_environment.hpp"
#include "memory/interval_set.hpp"
#include "region/region.hpp"
#include "runtime/runtime.hpp"
#include "schedule/schedule_spec.hpp"
#include "symmer/topology/node_model.hpp"

namespace {

using namespace tsar::core;
using symmer::topology::NodeModel;
using ::testing::HasSubstr;

std::vector<std::pair<std::int64_t, std::int64_t>> parts(const IntervalSet& s) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const Range& r : s.parts()) out.emplace_back(r.begin, r.end);
  return out;
}

TEST(IntervalSet, AddMergesSubtractSplitsMissingListsTheGaps) {
  IntervalSet s;
  s.add({10, 20});
  s.add({30, 40});
  s.add({20, 25});  // touches: merges
  EXPECT_EQ(parts(s), (decltype(parts(s)){{10, 25}, {30, 40}}));
  s.add({5, 35});
  EXPECT_EQ(parts(s), (decltype(parts(s)){{5, 40}}));
  s.subtract({12, 14});
  EXPECT_EQ(parts(s), (decltype(parts(s)){{5, 12}, {14, 40}}));
  EXPECT_EQ(s.count(), 33);
  EXPECT_EQ(s.count({0, 13}), 7);
  EXPECT_EQ(s.count({11, 20}), 7);
  EXPECT_EQ(s.count({40, 50}), 0);
  EXPECT_TRUE(s.covers({15, 40}));
  EXPECT_FALSE(s.covers({11, 15}));
  std::vector<Range> gaps;
  s.missing({0, 50}, gaps);
  ASSERT_EQ(gaps.size(), 3u);
  EXPECT_EQ(gaps[0].begin, 0);
  EXPECT_EQ(gaps[0].end, 5);
  EXPECT_EQ(gaps[1].begin, 12);
  EXPECT_EQ(gaps[1].end, 14);
  EXPECT_EQ(gaps[2].begin, 40);
  EXPECT_EQ(gaps[2].end, 50);
  s.missing({20, 30}, gaps);
  EXPECT_TRUE(gaps.empty());
  IntervalSet other;
  other.add({0, 6});
  other.add({39, 41});
  s.subtract(other);
  EXPECT_EQ(parts(s), (decltype(parts(s)){{6, 12}, {14, 39}}));
  s.clip({8, 20});
  EXPECT_EQ(parts(s), (decltype(parts(s)){{8, 12}, {14, 20}}));
}

TEST(IntervalSet, RandomEditsMatchAnItemBitmap) {
  // add, subtract and clip against a bitmap of items (seeded: the same sequence every run);
  // the parts stay sorted, disjoint and non-adjacent.
  constexpr int kItems = 64;
  std::mt19937 random(7);
  std::uniform_int_distribution<int> item(0, kItems), op(0, 9);
  IntervalSet s;
  std::vector<bool> in(kItems, false);
  for (int step = 0; step < 4000; ++step) {
    int a = item(random), b = item(random);
    if (a > b) std::swap(a, b);
    const int what = op(random);
    if (what < 5) {
      s.add({a, b});
      for (int i = a; i < b; ++i) in[static_cast<std::size_t>(i)] = true;
    } else if (what < 9) {
      s.subtract({a, b});
      for (int i = a; i < b; ++i) in[static_cast<std::size_t>(i)] = false;
    } else {
      s.clip({a, b});
      for (int i = 0; i < kItems; ++i)
        if (i < a || i >= b) in[static_cast<std::size_t>(i)] = false;
    }
    std::vector<bool> got(kItems, false);
    std::int64_t end = -1;
    for (const Range& r : s.parts()) {
      ASSERT_LT(r.begin, r.end) << "step " << step;
      ASSERT_GT(r.begin, end) << "step " << step << ": parts overlap or touch";
      end = r.end;
      for (std::int64_t i = r.begin; i < r.end; ++i) got[static_cast<std::size_t>(i)] = true;
    }
    ASSERT_EQ(got, in) << "step " << step;
  }
}

TEST(Padding, RowsRoundUpToTheAlignmentWhenAsked) {
  EXPECT_EQ(padded_stride(5, 8, 64, true), 8u);
  EXPECT_EQ(padded_stride(8, 8, 64, true), 8u);
  EXPECT_EQ(padded_stride(9, 8, 128, true), 16u);
  EXPECT_EQ(padded_stride(33, 4, 128, true), 64u);
  EXPECT_EQ(padded_stride(5, 8, 64, false), 5u);
  EXPECT_EQ(padded_stride(5, 24, 64, true), 5u);  // 24-byte elements do not tile 64 bytes
}

TEST(MemoryLimit, ParsesAllAndPerDeviceEntries) {
  const auto limit = [](std::string_view spec, std::string_view key) {
    return per_device_bytes("TSAR_DEVICE_MEMORY_LIMIT", spec, key);
  };
  EXPECT_EQ(limit("1M", "omp:0"), std::size_t{1} << 20);
  EXPECT_EQ(limit("omphost:0=4K, 1G", "omphost:0"), 4096u);
  EXPECT_EQ(limit("omphost:0=4K, 1G", "cuda:1"), std::size_t{1} << 30);
  EXPECT_EQ(limit("cuda:1=2g", "omp:0"), 0u);
  try {
    limit("cuda:0=12X", "cuda:0");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_DEVICES);
    EXPECT_THAT(e.what(), HasSubstr("'cuda:0=12X'"));
  }
}

TEST(OmpHostDevice, AllocationsStayWithinTheLimit) {
  const NodeModel node = NodeModel::from_synthetic("pack:1 core:2 pu:1");
  auto dev = make_omp_host(node, 0, 1);
  EXPECT_EQ(dev->description().key, "omphost:0");
  EXPECT_EQ(dev->kind(), DeviceKind::kOmpTarget);
  EXPECT_FALSE(dev->description().host_memory);
  EXPECT_EQ(dev->launch_context().omp_device, omp_get_initial_device());
  dev->set_memory_limit(1000);
  void* a = dev->allocate(600);
  EXPECT_EQ(dev->allocated(), 600u);
  try {
    dev->allocate(600);
    ADD_FAILURE() << "the limit did not hold";
  } catch (const DeviceOutOfMemory& e) {
    EXPECT_THAT(e.what(), HasSubstr("TSAR_DEVICE_MEMORY_LIMIT"));
    EXPECT_THAT(e.what(), HasSubstr("omphost:0"));
  }
  EXPECT_EQ(dev->allocated(), 600u);
  dev->release(a, 600);
  void* b = dev->allocate(1000);
  dev->release(b, 1000);
  EXPECT_EQ(dev->allocated(), 0u);
}

TEST(OmpHostDevice, CopiesArePackedOrGoThroughMemcpyRect) {
  const NodeModel node = NodeModel::from_synthetic("pack:1 core:2 pu:1");
  auto dev = make_omp_host(node, 0, 0);
  std::vector<int> host(6 * 8);
  std::iota(host.begin(), host.end(), 0);
  int* d = static_cast<int*>(dev->allocate(4 * 8 * sizeof(int)));
  ASSERT_NE(static_cast<void*>(d), static_cast<void*>(host.data()));
  // Rows 1..3 whole: the device side is contiguous (one packed copy).
  RectCopy rows;
  rows.elem_size = sizeof(int);
  rows.dims = 2;
  rows.volume = {3, 8, 0};
  rows.src_offsets = {1, 0, 0};
  rows.src_dims = {6, 8, 0};
  rows.dst_offsets = {1, 0, 0};
  rows.dst_dims = {4, 8, 0};
  dev->copy_rect_to_device(d, host.data(), rows);
  std::vector<int> back(32, -1);
  dev->copy_from_device(back.data(), d, back.size() * sizeof(int));
  for (int k = 8; k < 32; ++k) EXPECT_EQ(back[k], k) << k;
  // A 3x2 block at column 5 (not contiguous on either side): omp_target_memcpy_rect.
  RectCopy block = rows;
  block.volume = {3, 2, 0};
  block.src_offsets = {2, 5, 0};
  block.dst_offsets = {0, 1, 0};
  dev->copy_rect_to_device(d, host.data(), block);
  dev->copy_from_device(back.data(), d, back.size() * sizeof(int));
  EXPECT_EQ(back[1], 2 * 8 + 5);
  EXPECT_EQ(back[2 * 8 + 2], 4 * 8 + 6);
  // And back to the host, both ways.
  std::vector<int> out(6 * 8, 0);
  std::swap(rows.src_offsets, rows.dst_offsets);
  std::swap(rows.src_dims, rows.dst_dims);
  rows.dst_offsets = {2, 0, 0};
  dev->copy_rect_from_device(out.data(), d, rows);
  EXPECT_EQ(out[2 * 8 + 1], back[8 + 1]);
  EXPECT_EQ(out[4 * 8 + 7], back[3 * 8 + 7]);
  EXPECT_EQ(out[1 * 8], 0);
  std::swap(block.src_offsets, block.dst_offsets);
  std::swap(block.src_dims, block.dst_dims);
  dev->copy_rect_from_device(out.data(), d, block);
  EXPECT_EQ(out[4 * 8 + 6], back[2 * 8 + 2]);
  EXPECT_EQ(out[2 * 8 + 5], 2 * 8 + 5);
  dev->release(d, 4 * 8 * sizeof(int));
}

TEST(DeviceList, AcceleratorEntries) {
  const NodeModel node = NodeModel::from_synthetic("pack:1 core:2 pu:1");
  const auto list = build_devices(node, "cpu:0,omphost:1,omphost:0");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[1]->description().key, "omphost:0");
  EXPECT_EQ(list[1]->description().control_core, 1);
  EXPECT_EQ(list[2]->description().key, "omphost:1");
  EXPECT_EQ(list[2]->description().control_core, 0);
  if (omp_get_num_devices() == 0) {
    try {
      build_devices(node, "cpu:0,omp:0@1");
      ADD_FAILURE() << "omp:0 accepted without OpenMP target devices";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("OpenMP target device 0 does not exist (0 here)"));
    }
  }
  try {
    build_devices(node, "cuda:7");
    ADD_FAILURE() << "cuda:7 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_DEVICES);
    EXPECT_THAT(e.what(), HasSubstr(cuda_backend_built() ? "CUDA device 7 does not exist"
                                                         : "no CUDA backend"));
  }
  EXPECT_THROW(build_devices(node, "omphost:2"), Error);  // core 2 does not exist
}

// The 4-GPU node of four_gpu_node.hpp.
class FourGpus : public ::testing::Test {
 protected:
  NodeModel node = four_gpu_node::node();
  GpuRuntimes runtimes = four_gpu_node::runtimes();
};

TEST_F(FourGpus, EachGpuGetsTheLastFreeCoreOfItsNumaNode) {
  const auto gpus = place_gpus(node, runtimes);
  ASSERT_EQ(gpus.size(), 4u);
  const std::vector<std::string> physical = {"0000:3b:00.0", "0000:19:00.0", "0000:bb:00.0",
                                             "0000:9b:00.0"};
  const std::vector<int> numa = {1, 0, 3, 2};
  for (std::size_t k = 0; k < 4; ++k) {
    SCOPED_TRACE(physical[k]);
    EXPECT_EQ(gpus[k].physical, physical[k]);
    EXPECT_EQ(gpus[k].numa_node, numa[k]);
    EXPECT_EQ(gpus[k].control_core, 8 * numa[k] + 7);
    EXPECT_EQ(gpus[k].cuda_device, static_cast<int>(k));
    EXPECT_EQ(gpus[k].omp_device, static_cast<int>(k));  // GCC numbers GPUs in CUDA order
    EXPECT_DOUBLE_EQ(gpus[k].peak_gflops, 30000);
  }
  // Two GPUs seen only through OpenMP (no CUDA backend): placed by the model's numbers.
  const auto omp_only = place_gpus(node, GpuRuntimes{{}, {}, 2});
  ASSERT_EQ(omp_only.size(), 2u);
  EXPECT_EQ(omp_only[0].physical, "0000:3b:00.0");
  EXPECT_EQ(omp_only[1].control_core, 7);
  EXPECT_EQ(omp_only[1].cuda_device, -1);
}

TEST_F(FourGpus, ControlCoresAreReservedOrShared) {
  const auto gpus = place_gpus(node, runtimes);
  const auto reserved = default_devices(node, gpus, GpuCores::kReserve);
  std::vector<int> cpu_cores;
  std::vector<std::string> accelerators;
  for (const auto& d : reserved) {
    if (d->kind() == DeviceKind::kCpu)
      cpu_cores.push_back(d->description().control_core);
    else
      accelerators.push_back(d->description().key);
  }
  EXPECT_EQ(cpu_cores.size(), 28u);
  for (int c : {7, 15, 23, 31})
    EXPECT_EQ(std::count(cpu_cores.begin(), cpu_cores.end(), c), 0) << "core " << c;
  std::vector<std::string> want = {"omp:0", "omp:1", "omp:2", "omp:3"};
  if (cuda_backend_built())
    for (const char* k : {"cuda:0", "cuda:1", "cuda:2", "cuda:3"}) want.emplace_back(k);
  EXPECT_EQ(accelerators, want);
  EXPECT_EQ(reserved[28]->description().control_core, 15);
  EXPECT_EQ(reserved[28]->description().physical, "0000:3b:00.0");
  EXPECT_EQ(reserved[28]->description().alignment, 128u);
  const auto shared = default_devices(node, gpus, GpuCores::kShare);
  EXPECT_EQ(shared.size(), reserved.size() + 4);
}

TEST(GpuCores, PolicyFromTheEnvironmentNamesABadValue) {
  ::setenv("TSAR_GPU_CORES", "share", 1);
  EXPECT_EQ(gpu_cores_policy(), GpuCores::kShare);
  ::setenv("TSAR_GPU_CORES", "both", 1);
  try {
    gpu_cores_policy();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("TSAR_GPU_CORES is 'both'"));
  }
  ::unsetenv("TSAR_GPU_CORES");
  EXPECT_EQ(gpu_cores_policy(), GpuCores::kReserve);
}

TEST(RegionDevices, TakesOneDeviceOfEachGpu) {
  // An OpenMP and a CUDA device of one GPU in a device list: a region allowing both kinds
  // takes the first; one allowing only the second kind takes that one.
  NodeModel node = NodeModel::from_this_node(symmer::topology::GpuQuery::kNone);
  DeviceDescription gpu;
  gpu.control_core = 0;
  gpu.physical = "0000:3b:00.0";
  auto a = make_omp_target(gpu, omp_get_initial_device());
  auto b = make_omp_target(gpu, omp_get_initial_device());
  auto runtime = std::make_shared<Runtime>(
      node, std::vector<std::shared_ptr<Device>>{make_cpu_core(node, 0), a, b});
  const ScheduleSpec spec = resolve_schedule("static", 0);
  tsar::core::Region region(runtime, "dedupe", spec, TSAR_DEVICE_ALL, nullptr, 0);
  EXPECT_EQ(region.workers(), 2);
}

// ---------------------------------------------------------------------------------------
// The copy engine, range by range. Worker 0 is a CPU core (host memory), worker 1 the host's
// OpenMP device as an accelerator.

class Engine : public ::testing::Test {
 protected:
  static constexpr std::size_t kRows = 100, kCols = 6;
  static constexpr std::size_t kRowBytes = kCols * sizeof(double);
  NodeModel node = NodeModel::from_synthetic("pack:1 core:2 pu:1");
  std::vector<std::shared_ptr<Device>> devices = {make_cpu_core(node, 0),
                                                  make_omp_host(node, 0, 1)};
  MemoryRegistry memory;
  Reductions reductions{2};
  CopyEngine engine{2};

  void begin() { engine.begin_pass(memory, reductions, devices); }
  // One pass: the CPU runs [0, split), the accelerator [split, n) with `body` on its copy.
  template <class Body>
  Traffic pass(std::int64_t split, std::int64_t n, Body&& body) {
    begin();
    engine.stage_in(memory, reductions, 1, devices[1], {split, n});
    body();
    engine.stage_out(memory, reductions, 0, *devices[0], {0, split}, true);
    engine.stage_out(memory, reductions, 1, *devices[1], {split, n}, true);
    engine.end_pass(memory);
    return engine.traffic(1);
  }
  tsar_mem_layout view(const void* host) {
    return MemoryRegistry::view(*memory.find(host), *devices[1], 1);
  }
  /// Registers *result as a sum of doubles (identity 0).
  void add_sum(double* result) {
    const double zero = 0.0;
    reductions.add(
        result, &zero, sizeof(double),
        [](void* a, const void* b, void*) {
          *static_cast<double*>(a) += *static_cast<const double*>(b);
        },
        nullptr);
  }
};

TEST_F(Engine, PersistentHaloMovesOwnRowsOutAndStaleHaloRowsIn) {
  std::vector<double> cur(kRows * kCols), next(kRows * kCols, 0.0);
  std::iota(cur.begin(), cur.end(), 0.0);
  const unsigned persist = TSAR_MEM_PERSIST;
  memory.add(cur.data(), {8, kRows, kCols, 0, 1, TSAR_ASSOC_ROWS, TSAR_MEM_IN | persist});
  memory.add(next.data(),
             {8, kRows, kCols, 0, 1, TSAR_ASSOC_ROWS, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE | persist});
  // The accelerator computes rows [40, 100): next = cur + 1 on its copies.
  const auto add_one = [&] {
    const tsar_mem_layout in = view(cur.data());
    const tsar_mem_layout out = view(next.data());
    EXPECT_LE(in.row_offset, 39);  // halo row 39 included (the window may hold more)
    EXPECT_EQ(in.row_stride, kCols);
    for (std::size_t r = 40; r < kRows; ++r)
      for (std::size_t c = 0; c < kCols; ++c)
        static_cast<double*>(out.base)[(r - static_cast<std::size_t>(out.row_offset)) * kCols + c] =
            static_cast<double*>(
                in.base)[(r - static_cast<std::size_t>(in.row_offset)) * kCols + c] +
            1;
  };
  // Pass 0: the window and its halo in (61 rows), own rows out (60 rows).
  Traffic t = pass(40, kRows, add_one);
  EXPECT_EQ(t.to_device, 61 * static_cast<std::int64_t>(kRowBytes));
  EXPECT_EQ(t.from_device, 60 * static_cast<std::int64_t>(kRowBytes));
  EXPECT_EQ(next[40 * kCols], cur[40 * kCols] + 1);
  EXPECT_EQ(next[39 * kCols], 0.0);  // the CPU's row: not copied back
  // The program swaps the buffers; the CPU wrote rows [0, 40) of `next` in place (recorded
  // by stage_out above, settled by end_pass). Pass 1: the accelerator's rows of the new `cur` are
  // its own (valid); only halo row 39, written by the CPU, moves in.
  for (std::size_t k = 0; k < 40 * kCols; ++k) next[k] = cur[k] + 1;
  memory.swap(cur.data(), next.data());
  std::swap(cur, next);  // the names follow the registrations again
  t = pass(40, kRows, add_one);
  EXPECT_EQ(t.to_device, 1 * static_cast<std::int64_t>(kRowBytes));
  EXPECT_EQ(t.from_device, 60 * static_cast<std::int64_t>(kRowBytes));
  for (std::size_t k = 40 * kCols; k < kRows * kCols; ++k) ASSERT_EQ(next[k], cur[k] + 1) << k;
}

TEST_F(Engine, NonPersistentInputsMoveEveryPass) {
  std::vector<double> a(kRows * kCols, 1.0), b(kRows * kCols, 0.0);
  memory.add(a.data(), {8, kRows, kCols, 0, 2, TSAR_ASSOC_ROWS, TSAR_MEM_IN});
  memory.add(b.data(), {8, kRows, kCols, 0, 0, TSAR_ASSOC_ROWS, TSAR_MEM_INOUT});
  for (int p = 0; p < 3; ++p) {
    const Traffic t = pass(90, kRows, [] {});
    // a: rows 88..99 (2 halo rows below, none past the end); b: rows 90..99 in and out.
    EXPECT_EQ(t.to_device, (12 + 10) * static_cast<std::int64_t>(kRowBytes)) << p;
    EXPECT_EQ(t.from_device, 10 * static_cast<std::int64_t>(kRowBytes)) << p;
  }
}

TEST_F(Engine, RetargetKeepsTheAllocationAndRereadsInvalidateRefreshes) {
  std::vector<double> a(kRows * kCols, 1.0), b(kRows * kCols, 2.0);
  memory.add(a.data(), {8, kRows, kCols, 0, 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN | TSAR_MEM_PERSIST});
  pass(50, kRows, [] {});
  const void* base = view(a.data()).base;
  EXPECT_EQ(pass(50, kRows, [] {}).to_device, 0);  // persistent, nobody wrote it
  const std::uint64_t writes = memory.host_writes();
  memory.invalidate(a.data());
  EXPECT_EQ(memory.host_writes(), writes + 1) << "the planner hears of it (CopyCosts)";
  EXPECT_EQ(pass(50, kRows, [] {}).to_device, 50 * static_cast<std::int64_t>(kRowBytes));
  memory.retarget(a.data(), b.data());
  EXPECT_EQ(memory.host_writes(), writes + 2);
  const auto first_row = [&] {
    const tsar_mem_layout v = view(b.data());
    return static_cast<double*>(v.base)[(50 - v.row_offset) * static_cast<std::int64_t>(kCols)];
  };
  EXPECT_EQ(pass(50, kRows, [&] { EXPECT_EQ(first_row(), 2.0); }).to_device,
            50 * static_cast<std::int64_t>(kRowBytes));
  EXPECT_EQ(view(b.data()).base, base);
}

TEST_F(Engine, APersistentCopyThatGrowsKeepsItsValidRows) {
  // An input only read: no rows owned on the device, all of them valid. When the split hands
  // the accelerator more rows, its allocation grows and the rows it held come along; only the
  // new ones move (before, the grown allocation started empty: all 60 rows were read again).
  std::vector<double> a(kRows * kCols, 1.0);
  memory.add(a.data(), {8, kRows, kCols, 0, 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN | TSAR_MEM_PERSIST});
  EXPECT_EQ(pass(50, kRows, [] {}).to_device, 50 * static_cast<std::int64_t>(kRowBytes));
  EXPECT_EQ(pass(40, kRows, [] {}).to_device, 10 * static_cast<std::int64_t>(kRowBytes));
  EXPECT_EQ(pass(40, kRows, [] {}).to_device, 0);
}

TEST_F(Engine, APersistentCopyKeepsItsAllocationWhenTheSplitMovesAFewRows) {
  // The first allocation of a persistent copy has slack too: a boundary that moves a few rows
  // copies those rows in and no more -- no new allocation, device copy and free, which took
  // milliseconds of a GPU pass of tenths of one.
  std::vector<double> a(kRows * kCols, 1.0);
  memory.add(a.data(), {8, kRows, kCols, 0, 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN | TSAR_MEM_PERSIST});
  EXPECT_EQ(pass(50, kRows, [] {}).to_device, 50 * static_cast<std::int64_t>(kRowBytes));
  const tsar_mem_layout before = view(a.data());
  EXPECT_EQ(pass(47, kRows, [] {}).to_device, 3 * static_cast<std::int64_t>(kRowBytes));
  const tsar_mem_layout after = view(a.data());
  EXPECT_EQ(after.base, before.base);
  EXPECT_EQ(after.row_offset, before.row_offset);
}

TEST_F(Engine, ColumnsArePackedAndPadded) {
  // 4 x 20 matrix (row stride 24), columns [12, 20) on the accelerator with one halo column.
  std::vector<double> m(4 * 24);
  std::iota(m.begin(), m.end(), 0.0);
  memory.add(m.data(), {8, 4, 20, 24, 1, TSAR_ASSOC_COLS, TSAR_MEM_INOUT | TSAR_MEM_PAD});
  const Traffic t = pass(12, 20, [&] {
    const tsar_mem_layout l = view(m.data());
    EXPECT_EQ(l.col_offset, 11);
    EXPECT_EQ(l.row_offset, 0);
    EXPECT_EQ(l.row_stride, 16u);  // 9 columns padded to 64 bytes
    auto* p = static_cast<double*>(l.base);
    EXPECT_EQ(p[2 * 16 + (11 - 11)], 2 * 24 + 11);
    for (std::size_t r = 0; r < 4; ++r)
      for (std::size_t c = 12; c < 20; ++c) p[r * 16 + c - 11] *= -1;
  });
  EXPECT_EQ(t.to_device, 4 * 9 * 8);
  EXPECT_EQ(t.from_device, 4 * 8 * 8);
  EXPECT_EQ(m[3 * 24 + 19], -(3.0 * 24 + 19));
  EXPECT_EQ(m[3 * 24 + 11], 3.0 * 24 + 11);  // halo column: never copied back
  EXPECT_EQ(m[3 * 24 + 21], 3.0 * 24 + 21);  // outside the matrix's columns
}

TEST_F(Engine, PlusShapedOutputsMergeOnlyWhatTheDeviceChanged) {
  // 8 x 8, the accelerator owns iterations [5, 8): rows 5..7 and columns 5..7. It changes
  // (6, 1) in its row and (2, 6) in its column. (1, 6) lies in its column 6 too, but the CPU
  // writes it (iteration 1's row) on the host meanwhile: the device's stale copy must not win.
  std::vector<double> m(64);
  std::iota(m.begin(), m.end(), 0.0);
  memory.add(m.data(), {8, 8, 8, 0, 0, TSAR_ASSOC_ROWS_COLS, TSAR_MEM_INOUT});
  const Traffic t = pass(5, 8, [&] {
    auto* p = static_cast<double*>(view(m.data()).base);
    p[6 * 8 + 1] = -1;
    p[2 * 8 + 6] = -2;
    m[1 * 8 + 6] = 1000;  // the CPU's own write, during the pass
  });
  EXPECT_EQ(m[6 * 8 + 1], -1);
  EXPECT_EQ(m[2 * 8 + 6], -2);
  EXPECT_EQ(m[1 * 8 + 6], 1000) << "a stale element of the device's column overwrote the CPU's";
  EXPECT_EQ(t.to_device, (3 * 8 + 8 * 3) * 8);
  EXPECT_EQ(t.from_device, (3 * 8 + 8 * 3) * 8);
}

TEST_F(Engine, ReductionsAccumulateOnTheDevice) {
  double result = 0.0;
  add_sum(&result);
  begin();
  reductions.reset();
  engine.stage_in(memory, reductions, 1, devices[1], {0, 10});
  auto* acc = static_cast<double*>(reductions.device_accumulator(&result, 1));
  ASSERT_NE(acc, nullptr);
  EXPECT_NE(static_cast<void*>(acc), reductions.accumulator(&result, 1));
  *acc += 5;
  engine.stage_out(memory, reductions, 1, *devices[1], {0, 10}, true);
  engine.collect_reductions(reductions, 1, *devices[1]);
  *static_cast<double*>(reductions.accumulator(&result, 0)) += 2;
  reductions.merge();
  EXPECT_EQ(result, 7.0);
  EXPECT_EQ(engine.traffic(1).to_device, 8);
  EXPECT_EQ(engine.traffic(1).from_device, 8);
}

/// A device with its own (host) memory that counts how often its worker waits for it: every
/// wait is a round trip to a GPU.
class WaitCountingDevice final : public Device {
 public:
  explicit WaitCountingDevice(DeviceDescription d) : Device(std::move(d)) {}
  void attach_worker() override {}
  LaunchContext launch_context() const override { return {}; }
  void copy_to_device(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void copy_from_device(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void copy_rect_to_device(void* dst, const void* src, const RectCopy& r) override {
    copy_rect_host(dst, src, r);
  }
  void copy_rect_from_device(void* dst, const void* src, const RectCopy& r) override {
    copy_rect_host(dst, src, r);
  }
  void copy_on_device(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void synchronize() override { ++waits; }
  int waits = 0;

 protected:
  void* allocate_memory(std::size_t bytes) override { return std::malloc(bytes); }
  void release_memory(void* p) noexcept override { std::free(p); }
};

/// A wait-counting stand-in for a GPU, named `key`.
std::shared_ptr<WaitCountingDevice> counting_device(const char* key) {
  DeviceDescription d;
  d.kind = DeviceKind::kCuda;
  d.key = key;
  d.host_memory = false;
  return std::make_shared<WaitCountingDevice>(d);
}

TEST(LinkSpeed, ADeviceIsCalibratedOncePerProcess) {
  // A runtime built again for another device list (tsar_set_devices) makes its devices anew:
  // the second object of a key finds the link the first measured, and waits for no copy. Keys
  // of their own each time the test runs: the process keeps what it measured.
  static int run = 0;
  ++run;
  const std::string key = "counting:link" + std::to_string(run), other_key = key + "b";
  auto first = counting_device(key.c_str());
  const double per_byte = first->link_seconds_per_byte();
  EXPECT_GT(per_byte, 0.0);
  EXPECT_GT(first->waits, 0) << "measured";
  auto again = counting_device(key.c_str());
  EXPECT_EQ(again->link_seconds_per_byte(), per_byte);
  EXPECT_EQ(again->link_latency(), first->link_latency());
  EXPECT_EQ(again->waits, 0);
  auto other = counting_device(other_key.c_str());
  EXPECT_GT(other->link_seconds_per_byte(), 0.0);
  EXPECT_GT(other->waits, 0) << "another device measures its own link";
  DeviceDescription limited = again->description();
  limited.memory_limit = 1024;  // no room to time a copy: the fallback, not kept
  auto small = std::make_shared<WaitCountingDevice>(limited);
  EXPECT_DOUBLE_EQ(small->link_seconds_per_byte(), 1.0 / kFallbackLinkBytesPerSecond);
}

TEST_F(Engine, ResidentBoundaryRowsComeBackWithTheRangeSoThePlannerWaitsForNoDevice) {
  // A double-buffered stencil with a resident output over a core [0, 8) and two accelerators
  // [8, 50) and [50, 100): the boundary rows of each accelerator's output reach the host
  // under the wait for its range, so once the program swaps the buffers the planner's
  // exchange has nothing to copy back and waits for no device before the next pass.
  auto a = counting_device("counting:0");
  auto b = counting_device("counting:1");
  devices = {make_cpu_core(node, 0), a, b};
  Reductions red{3};
  CopyEngine eng{3};
  std::vector<double> cur(kRows * kCols), next(kRows * kCols, 0.0);
  std::iota(cur.begin(), cur.end(), 0.0);
  const unsigned persist = TSAR_MEM_PERSIST;
  memory.add(cur.data(), {8, kRows, kCols, 0, 1, TSAR_ASSOC_ROWS, TSAR_MEM_IN | persist});
  memory.add(next.data(), {8, kRows, kCols, 0, 1, TSAR_ASSOC_ROWS,
                           TSAR_MEM_OUT | TSAR_MEM_OVERWRITE | persist | TSAR_MEM_RESIDENT});
  const std::vector<Range> ranges = {{0, 8}, {8, 50}, {50, 100}};
  const auto sz = [](int w) { return static_cast<std::size_t>(w); };
  for (int pass = 0; pass < 3; ++pass) {
    SCOPED_TRACE("pass " + std::to_string(pass));
    eng.begin_pass(memory, red, devices);
    a->waits = b->waits = 0;
    eng.exchange(memory, ranges);
    EXPECT_EQ(a->waits + b->waits, 0) << "the planner waited for a device";
    EXPECT_EQ(eng.traffic(1).from_device + eng.traffic(2).from_device, 0);
    // Each worker writes its rows of `next` (the core on the host, the others on their copies).
    for (std::size_t i = 0; i < 8 * kCols; ++i) next[i] = pass + 1.0;
    for (int w = 1; w < 3; ++w) {
      eng.stage_in(memory, red, w, devices[sz(w)], ranges[sz(w)]);
      const tsar_mem_layout out =
          MemoryRegistry::view(*memory.find(next.data()), *devices[sz(w)], w);
      for (std::int64_t r = ranges[sz(w)].begin; r < ranges[sz(w)].end; ++r)
        for (std::size_t k = 0; k < kCols; ++k)
          static_cast<double*>(out.base)[static_cast<std::size_t>(r - out.row_offset) * kCols + k] =
              10.0 * w + pass;
    }
    for (int w = 0; w < 3; ++w) eng.stage_out(memory, red, w, *devices[sz(w)], ranges[sz(w)], true);
    eng.end_pass(memory);
    // The boundary rows 8 and 49 (accelerator 1), 50 (accelerator 2: row 99 borders no range)
    // are on the host; the rows inside the ranges are not.
    EXPECT_EQ(eng.traffic(1).from_device, 2 * static_cast<std::int64_t>(kRowBytes));
    EXPECT_EQ(eng.traffic(2).from_device, 1 * static_cast<std::int64_t>(kRowBytes));
    for (std::size_t r : {8u, 49u}) EXPECT_EQ(next[r * kCols], 10.0 + pass) << r;
    EXPECT_EQ(next[50 * kCols], 20.0 + pass);
    EXPECT_NE(next[20 * kCols], 10.0 + pass);
    EXPECT_NE(next[99 * kCols], 20.0 + pass);
    memory.swap(cur.data(), next.data());
    std::swap(cur, next);
  }
}

TEST_F(Engine, AccumulatorsComeBackUnderTheLastRangesWait) {
  auto device = counting_device("counting:0");
  devices[1] = device;
  std::vector<double> out(kRows * kCols, 0.0);
  memory.add(out.data(),
             {8, kRows, kCols, 0, 0, TSAR_ASSOC_ROWS, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE});
  double result = 1.0;
  add_sum(&result);
  // Two chunks (not the last: their accumulators stay on the device), then the last range.
  begin();
  reductions.reset();
  for (const Range r : {Range{0, 10}, Range{10, 20}, Range{20, 30}}) {
    engine.stage_in(memory, reductions, 1, devices[1], r);
    *static_cast<double*>(reductions.device_accumulator(&result, 1)) += 5;
    engine.stage_out(memory, reductions, 1, *device, r, r.begin == 20);
  }
  engine.collect_reductions(reductions, 1, *device);
  EXPECT_EQ(device->waits, 3) << "one wait per range: the accumulators need none of their own";
  reductions.merge();
  EXPECT_EQ(result, 16.0);
  EXPECT_EQ(engine.traffic(1).from_device, 30 * static_cast<std::int64_t>(kRowBytes) + 8);
  // A pass whose last stage_out did not collect (a chunk plan) collects at the end.
  begin();
  reductions.reset();
  result = 0.0;
  engine.stage_in(memory, reductions, 1, devices[1], {0, 10});
  *static_cast<double*>(reductions.device_accumulator(&result, 1)) += 2;
  engine.stage_out(memory, reductions, 1, *device, {0, 10}, false);
  engine.collect_reductions(reductions, 1, *device);
  reductions.merge();
  EXPECT_EQ(result, 2.0);
  EXPECT_EQ(device->waits, 5);
}

/// A GPU stand-in that page-locks host buffers as CUDA does: a range that overlaps a locked
/// one cannot be locked, and a copy from host memory that starts in a locked range must end
/// inside it (cuMemcpyHtoD: "invalid argument" otherwise).
class PageLockingDevice final : public Device {
 public:
  explicit PageLockingDevice(DeviceDescription d) : Device(std::move(d)) {}
  void attach_worker() override {}
  LaunchContext launch_context() const override { return {}; }
  std::shared_ptr<void> pin_host(void* host, std::size_t bytes) override {
    const auto lo = reinterpret_cast<std::uintptr_t>(host);
    for (const auto& [at, n] : locked)
      if (lo < at + n && at < lo + bytes) return nullptr;
    locked[lo] = bytes;
    return std::shared_ptr<void>(host, [this, lo](void*) { locked.erase(lo); });
  }
  void copy_to_device(void* dst, const void* src, std::size_t bytes) override {
    check_source(src, bytes);
    std::memcpy(dst, src, bytes);
  }
  void copy_from_device(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void copy_rect_to_device(void* dst, const void* src, const RectCopy& r) override {
    std::size_t first = 0, last = 0;
    for (int d = 0; d < r.dims; ++d) {
      first = first * r.src_dims[d] + r.src_offsets[d];
      last = last * r.src_dims[d] + r.src_offsets[d] + r.volume[d] - 1;
    }
    check_source(static_cast<const char*>(src) + first * r.elem_size,
                 (last - first + 1) * r.elem_size);
    copy_rect_host(dst, src, r);
  }
  void copy_rect_from_device(void* dst, const void* src, const RectCopy& r) override {
    copy_rect_host(dst, src, r);
  }
  void copy_on_device(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void synchronize() override {}
  std::map<std::uintptr_t, std::size_t> locked;  ///< start -> bytes

 protected:
  void* allocate_memory(std::size_t bytes) override { return std::malloc(bytes); }
  void release_memory(void* p) noexcept override { std::free(p); }

 private:
  void check_source(const void* src, std::size_t bytes) const {
    const auto lo = reinterpret_cast<std::uintptr_t>(src);
    for (const auto& [at, n] : locked)
      if (lo >= at && lo < at + n && lo + bytes > at + n)
        throw Error(TSAR_ERR_SYSTEM, "copy from a host range that leaves a page-locked one");
  }
};

// Two translated kernels in one process: the first kernel's region keeps its registration
// after the program freed the array, and the second kernel's larger array starts at the same
// host address. A lock that outlives the first array fails the second kernel's copies (as on
// the H100 at 1b27022: docs/results/archive/tsar/gpu-tests/2026-11-26-h100-1b27022.txt), so
// translated loops register TSAR_MEM_NO_PIN and the second kernel copies its array whole.
TEST(PageLocking, AKeptRegistrationOfAFreedArrayLocksNothingWithNoPin) {
  const unsigned kept = TSAR_MEM_IN | TSAR_MEM_PERSIST;
  NodeModel node = NodeModel::from_synthetic("pack:1 core:2 pu:1");
  DeviceDescription d;
  d.kind = DeviceKind::kCuda;
  d.key = "gpu:0";
  d.host_memory = false;
  d.pin_host = true;
  auto gpu = std::make_shared<PageLockingDevice>(d);
  const std::vector<std::shared_ptr<Device>> devices = {make_cpu_core(node, 0), gpu};
  std::vector<double> heap(100 * 6);
  std::iota(heap.begin(), heap.end(), 0.0);
  // One pass with all rows on the GPU; returns the GPU's first value of `host`.
  const auto pass = [&](MemoryRegistry& memory, CopyEngine& engine, double* host, int rows) {
    Reductions reductions{2};
    engine.begin_pass(memory, reductions, devices);
    engine.stage_in(memory, reductions, 1, gpu, {0, rows});
    engine.stage_out(memory, reductions, 0, *devices[0], {0, 0}, true);
    engine.stage_out(memory, reductions, 1, *gpu, {0, rows}, true);
    engine.end_pass(memory);
    return *static_cast<const double*>(MemoryRegistry::view(*memory.find(host), *gpu, 1).base);
  };
  for (const unsigned pin : {0u, static_cast<unsigned>(TSAR_MEM_NO_PIN)}) {
    MemoryRegistry first, second;
    CopyEngine first_engine{2}, second_engine{2};
    first.add(heap.data() + 6, {8, 40, 6, 0, 0, TSAR_ASSOC_ROWS, kept | pin});
    EXPECT_EQ(pass(first, first_engine, heap.data() + 6, 40), 6.0);
    // The first array is freed (its registration kept); the second one starts there.
    second.add(heap.data() + 6, {8, 90, 6, 0, 0, TSAR_ASSOC_ROWS, kept | pin});
    if (pin == 0) {
      EXPECT_EQ(gpu->locked.size(), 1u);
      EXPECT_THROW(pass(second, second_engine, heap.data() + 6, 90), Error);
    } else {
      EXPECT_TRUE(gpu->locked.empty());
      EXPECT_EQ(pass(second, second_engine, heap.data() + 6, 90), 6.0);
    }
  }
}

TEST(DataEnvironmentPasses, OneRegionAtATime) {
  auto env = std::make_shared<DataEnvironment>();
  std::vector<double> a(64);
  env->map(a.data(), {8, 64, 1, 0, 0, TSAR_ASSOC_ROWS, 0});
  MemoryRegistry first, second;
  first.attach(env);
  second.attach(env);
  first.add(a.data(), {8, 64, 1, 0, 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN});
  second.add(a.data(), {8, 64, 1, 0, 0, TSAR_ASSOC_ROWS, TSAR_MEM_INOUT});
  first.enter_pass(64, "first");
  try {
    second.enter_pass(64, "second");
    ADD_FAILURE() << "two passes held the environment";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_STATE);
    EXPECT_THAT(e.what(), HasSubstr("in a pass of region 'first'"));
  }
  EXPECT_THROW(env->update_host(nullptr, 0, DataEnvironment::kAllRows), Error);
  second.leave_pass();  // took nothing: gives nothing back
  EXPECT_THROW(env->update_device(a.data(), 0, 1), Error);
  first.leave_pass();
  second.enter_pass(64, "second");
  second.leave_pass();
  const std::uint64_t writes = first.host_writes();
  EXPECT_NO_THROW(env->update_device(a.data(), 0, 1));
  EXPECT_EQ(first.host_writes(), writes + 1) << "every attached region hears of it";
  second.invalidate(a.data());
  EXPECT_EQ(first.host_writes(), writes + 2);
  EXPECT_EQ(second.host_writes(), first.host_writes());
}

TEST(ResidentSplit, EachAcceleratorTakesTheRowsItsDeviceHoldsOfTheWidestSharedBuffer) {
  const NodeModel node = NodeModel::from_synthetic("pack:1 core:2 pu:1");
  const std::vector<std::shared_ptr<Device>> devices = {
      make_cpu_core(node, 0), make_omp_host(node, 0, 1), make_cpu_core(node, 1),
      make_omp_host(node, 0, 0)};
  auto env = std::make_shared<DataEnvironment>();
  std::vector<double> wide(100 * 8), narrow(100);
  env->map(wide.data(), {8, 100, 8, 0, 0, TSAR_ASSOC_ROWS, 0});
  env->map(narrow.data(), {8, 100, 1, 0, 0, TSAR_ASSOC_ROWS, 0});
  MemoryRegistry memory;
  memory.attach(env);
  memory.add(wide.data(), {8, 100, 8, 0, 1, TSAR_ASSOC_ROWS, TSAR_MEM_IN});
  memory.add(narrow.data(), {8, 100, 1, 0, 0, TSAR_ASSOC_ROWS, TSAR_MEM_INOUT});
  const auto split = [&] { return resident_split(memory.registrations(), devices, 0, 100); };
  EXPECT_TRUE(split().empty()) << "no device holds anything yet";
  // The narrow buffer's rows do not count once the wide one is held: the largest dependence.
  DeviceCopy& owned = env->find(narrow.data())->ensure_copy(devices[1]);
  owned.valid.add({0, 50});
  owned.dirty.add({0, 50});
  EXPECT_EQ(split(), (std::vector<std::int64_t>{0, 50, 50, 0}));
  BufferData& w = *env->find(wide.data());
  w.ensure_copy(devices[1]).valid.add({20, 45});
  w.copy_on(*devices[1])->dirty.add({20, 45});
  w.ensure_copy(devices[3]).valid.add({70, 100});
  EXPECT_EQ(split(), (std::vector<std::int64_t>{20, 25, 25, 30}));
  // A pass starting at row 30 over 60 rows: the blocks clipped to it.
  EXPECT_EQ(resident_split(memory.registrations(), devices, 30, 60),
            (std::vector<std::int64_t>{0, 15, 25, 20}));
  // Out of worker order, or rows before the first block with no core to take them: the
  // wide buffer proposes no split, the narrow one still does.
  w.copy_on(*devices[3])->valid.add({0, 10});
  w.copy_on(*devices[3])->valid.subtract({70, 100});
  EXPECT_EQ(split(), (std::vector<std::int64_t>{0, 50, 50, 0}));
  owned.valid.clear();
  owned.dirty.clear();
  EXPECT_TRUE(split().empty());
  // The rows marked owned above have no allocation behind them: nothing to write back.
  for (const void* host :
       {static_cast<const void*>(wide.data()), static_cast<const void*>(narrow.data())})
    for (auto& c : env->find(host)->copies) c->forget();
}

/// A loop of a time step on one core and one accelerator: three 100-row vectors mapped in a
/// data environment, registered with `flags`; the accelerator's copies are only marked as
/// holding rows (nothing is allocated, so nothing is written back: forgotten at the end).
struct StepLoop {
  explicit StepLoop(std::array<unsigned, 3> flags) {
    memory.attach(env);
    for (std::size_t b = 0; b < buffers.size(); ++b) {
      env->map(buffers[b].data(), {8, 100, 1, 0, 0, TSAR_ASSOC_ROWS, 0});
      memory.add(buffers[b].data(), {8, 100, 1, 0, 0, TSAR_ASSOC_ROWS, flags[b]});
    }
  }
  ~StepLoop() {
    for (auto& b : buffers)
      for (auto& c : env->find(b.data())->copies) c->forget();
  }
  /// The accelerator's copy of buffer b.
  DeviceCopy& copy(std::size_t b) { return env->find(buffers[b].data())->ensure_copy(devices[1]); }
  /// The accelerator wrote `rows` of buffer b: it owns them.
  void own(std::size_t b, Range rows) {
    copy(b).valid.add(rows);
    copy(b).dirty.add(rows);
  }
  std::vector<std::int64_t> split() {
    return resident_split(memory.registrations(), devices, 0, 100);
  }

  const NodeModel node = NodeModel::from_synthetic("pack:1 core:2 pu:1");
  const std::vector<std::shared_ptr<Device>> devices = {make_cpu_core(node, 0),
                                                        make_omp_host(node, 0, 0)};
  std::shared_ptr<DataEnvironment> env = std::make_shared<DataEnvironment>();
  MemoryRegistry memory;
  std::array<std::vector<double>, 3> buffers{std::vector<double>(100), std::vector<double>(100),
                                             std::vector<double>(100)};
};

TEST(ResidentSplit, TheSplitThatCopiesFewestBytesOfTheInputsWins) {
  // A time step's loop updating x, which only it writes, from p and s, which the loops before
  // it left whole on the accelerator: the split that keeps x where this loop's last pass left
  // it would copy the cores' rows of p and s out of the accelerator every pass; the one that
  // keeps p and s copies x's rows in once.
  constexpr std::size_t x = 0, p = 1, s = 2;
  StepLoop loop({TSAR_MEM_INOUT, TSAR_MEM_IN, TSAR_MEM_IN});
  loop.own(x, {30, 100});
  EXPECT_EQ(loop.split(), (std::vector<std::int64_t>{30, 70})) << "x alone is held: its rows stay";
  loop.own(p, {0, 100});
  loop.own(s, {0, 100});
  EXPECT_EQ(loop.split(), (std::vector<std::int64_t>{0, 100}));
}

TEST(ResidentSplit, WhereTwoSplitsCopyAsMuchTheAcceleratorKeepsItsRows) {
  // s = r - alpha v, with v left whole on the accelerator by the loop before and r a copy of
  // the host's rows [30, 100): either split copies 30 rows. The one that gives the cores none
  // writes none of s on the host for the accelerator's next loop to copy in.
  constexpr std::size_t r = 0, v = 1;
  StepLoop loop({TSAR_MEM_IN, TSAR_MEM_IN, TSAR_MEM_OUT});
  loop.copy(r).valid.add({30, 100});
  loop.own(v, {0, 100});
  EXPECT_EQ(loop.split(), (std::vector<std::int64_t>{0, 100}));
}

TEST_F(Engine, OutOfMemoryIsReportedAndAbandoningFreesEverything) {
  std::vector<double> a(kRows * kCols, 1.0), b(kRows * kCols, 0.0);
  memory.add(a.data(), {8, kRows, kCols, 0, 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN});
  memory.add(b.data(), {8, kRows, kCols, 0, 0, TSAR_ASSOC_ROWS, TSAR_MEM_OUT});
  devices[1]->set_memory_limit(60 * kRowBytes);  // room for a, not for b as well
  begin();
  EXPECT_THROW(engine.stage_in(memory, reductions, 1, devices[1], {50, kRows}), DeviceOutOfMemory);
  EXPECT_GT(devices[1]->allocated(), 0u);
  engine.abandon_device(memory, reductions, 1, *devices[1]);
  EXPECT_EQ(devices[1]->allocated(), 0u);
}

TEST(DataEnvironmentRegions, ALoopThatFeedsNoOtherButReadsAnothersOutputOnlyFollows) {
  // BiCGStab's shape: t = A s (spmv) then the dot product t.t (tt) into partials no loop
  // reads; and residual's: a sweep and a norm that each read what the other writes.
  constexpr std::size_t kRows = 16, kCols = 8;
  std::vector<double> s(kRows * kCols), t(s.size()), partials(kRows), u(s.size()), next(s.size());
  auto env = std::make_shared<DataEnvironment>();
  const tsar_mem_desc grid{8, kRows, kCols, 0, 0, TSAR_ASSOC_ROWS, TSAR_MEM_INOUT};
  for (double* p : {s.data(), t.data(), u.data(), next.data()}) env->map(p, grid);
  env->map(partials.data(), {8, kRows, 1, 0, 0, TSAR_ASSOC_ROWS, TSAR_MEM_INOUT});
  const auto rows = [&](unsigned flags, std::size_t cols) {
    return tsar_mem_desc{8, kRows, cols, 0, 0, TSAR_ASSOC_ROWS, flags};
  };
  MemoryRegistry spmv, tt, sweep, norm;
  for (MemoryRegistry* r : {&spmv, &tt, &sweep, &norm}) r->attach(env);
  spmv.add(s.data(), rows(TSAR_MEM_IN, kCols));
  spmv.add(t.data(), rows(TSAR_MEM_OUT, kCols));
  tt.add(t.data(), rows(TSAR_MEM_IN, kCols));
  tt.add(partials.data(), rows(TSAR_MEM_OUT, 1));
  sweep.add(u.data(), rows(TSAR_MEM_IN, kCols));
  sweep.add(next.data(), rows(TSAR_MEM_OUT, kCols));
  norm.add(next.data(), rows(TSAR_MEM_IN, kCols));
  norm.add(u.data(), rows(TSAR_MEM_OUT, kCols));
  norm.add(partials.data(), rows(TSAR_MEM_OUT, 1));
  EXPECT_TRUE(env->follows_only(tt));
  EXPECT_FALSE(env->follows_only(spmv)) << "tt reads what spmv writes";
  EXPECT_FALSE(env->follows_only(sweep)) << "the norm reads what the sweep writes";
  EXPECT_FALSE(env->follows_only(norm)) << "the sweep reads what the norm writes";
  // Once a loop reads the dot product's output, the dot product leads it.
  MemoryRegistry reader;
  reader.attach(env);
  reader.add(partials.data(), rows(TSAR_MEM_IN, 1));
  EXPECT_FALSE(env->follows_only(tt));
}

}  // namespace
