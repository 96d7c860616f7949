// SPDX-License-Identifier: BSD-3-Clause
// Host devices behind the generic Device interface: descriptions from the node model, memory
// and rectangle copies (the host half of omp_target_memcpy_rect), device lists.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "api/error.hpp"
#include "devices/device_list.hpp"
#include "devices/host_device.hpp"
#include "symmer/topology/node_model.hpp"

namespace {

using namespace tsar::core;
using symmer::topology::NodeModel;

TEST(HostDevice, DescribesCoresPlacesAndEmulatedAccelerators) {
  const NodeModel node = NodeModel::from_synthetic("pack:2 numa:1 core:4 pu:2");
  const auto core = make_cpu_core(node, 5);
  EXPECT_EQ(core->description().key, "cpu:10");  // named by its first Linux CPU
  EXPECT_EQ(core->description().cpus, (std::vector<int>{10, 11}));
  EXPECT_EQ(core->kind(), DeviceKind::kCpu);
  EXPECT_EQ(core->description().numa_node, 1);
  EXPECT_TRUE(core->description().host_memory);
  EXPECT_GT(core->description().peak_gflops, 0.0);
  const auto place = make_cpu_place(node, 1);
  EXPECT_EQ(place->description().cores, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_DOUBLE_EQ(place->description().peak_gflops, 4 * core->description().peak_gflops);
  const auto emul = make_emulated(node, 0, 7);
  EXPECT_EQ(emul->kind(), DeviceKind::kEmulated);
  EXPECT_EQ(emul->description().control_core, 3);
  EXPECT_EQ(emul->description().cpus, (std::vector<int>{7}));
  EXPECT_NE(core->serial(), emul->serial());
  EXPECT_THROW(make_cpu_core(node, 8), Error);
  EXPECT_THROW(make_cpu_place(node, 2), Error);
  EXPECT_THROW(make_emulated(node, 0, 16), Error);
}

TEST(HostDevice, MemoryAndRectangleCopies) {
  const NodeModel node = NodeModel::from_synthetic("pack:1 core:2 pu:1");
  auto dev = make_cpu_core(node, 0);
  // A 6x8 host matrix; copy the 3x4 block at (2, 3) to a packed 3x4 device buffer and back.
  std::vector<int> host(48);
  std::iota(host.begin(), host.end(), 0);
  int* d = static_cast<int*>(dev->allocate(12 * sizeof(int)));
  RectCopy rect;
  rect.elem_size = sizeof(int);
  rect.dims = 2;
  rect.volume = {3, 4, 0};
  rect.src_offsets = {2, 3, 0};
  rect.src_dims = {6, 8, 0};
  rect.dst_offsets = {0, 0, 0};
  rect.dst_dims = {3, 4, 0};
  dev->copy_rect_to_device(d, host.data(), rect);
  EXPECT_EQ(d[0], 2 * 8 + 3);
  EXPECT_EQ(d[11], 4 * 8 + 6);
  for (int k = 0; k < 12; ++k) d[k] = -d[k];
  std::swap(rect.src_offsets, rect.dst_offsets);
  std::swap(rect.src_dims, rect.dst_dims);
  dev->copy_rect_from_device(host.data(), d, rect);
  EXPECT_EQ(host[2 * 8 + 3], -(2 * 8 + 3));
  EXPECT_EQ(host[2 * 8 + 2], 2 * 8 + 2);  // outside the block: untouched
  std::vector<int> back(12);
  dev->copy_from_device(back.data(), d, 12 * sizeof(int));
  EXPECT_EQ(back[5], d[5]);
  dev->copy_to_device(d, host.data(), sizeof(int));
  EXPECT_EQ(d[0], 0);
  dev->synchronize();
  dev->release(d, 12 * sizeof(int));
  rect.volume = {4, 4, 0};  // leaves the 3-row destination
  EXPECT_THROW(copy_rect_host(host.data(), back.data(), rect), Error);
}

TEST(DeviceList, ParsesEntriesAndNamesTheBadOne) {
  const NodeModel node = NodeModel::from_synthetic("pack:1 numa:2 core:2 pu:1");
  const ProcessCpus all;  // no mask: every CPU of the model
  EXPECT_EQ(build_devices(node, "", all).size(), 4u);
  const auto list = build_devices(node, "cpu:0-2, cpu:0 ,place:1,emul:3,emul:0", all);
  ASSERT_EQ(list.size(), 7u);
  EXPECT_EQ(list[3]->description().key, "cpu:0");
  EXPECT_EQ(list[4]->description().key, "place:1");
  EXPECT_EQ(list[6]->description().key, "emul:1");
  EXPECT_EQ(build_devices(node, "cpu:all", all).size(), 4u);
  for (const char* bad : {"gpu:0", "cpu:9", "cpu:", "cpu:2-1", "cpu:0,,cpu:1", "place:5", "cpu",
                          "cpu:x", "cpu:L:4", "emul:0-1"}) {
    try {
      build_devices(node, bad, all);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), TSAR_ERR_DEVICES) << bad;
    }
  }
}

TEST(DeviceList, TeamsTakeACoreRangeOrTheDefaultListsCores) {
  const NodeModel node = NodeModel::from_synthetic("pack:1 numa:2 core:2 pu:1");
  const auto list = build_devices(node, "team:1-3,team:2,team:all", {});
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0]->description().key, "team:1-3");
  EXPECT_EQ(list[0]->kind(), DeviceKind::kCpu);
  EXPECT_EQ(list[0]->description().cores, (std::vector<int>{1, 2, 3}));
  EXPECT_DOUBLE_EQ(list[0]->description().peak_gflops, 3 * core_peak_gflops());
  EXPECT_EQ(list[1]->description().key, "team:2");
  EXPECT_EQ(list[1]->description().cores, (std::vector<int>{2}));
  // No GPU in the model: no control core is reserved.
  EXPECT_EQ(list[2]->description().cores, (std::vector<int>{0, 1, 2, 3}));
  for (const char* bad : {"team:3-1", "team:4", "team:2-9", "team:", "team:a-b"}) {
    try {
      build_devices(node, bad, {});
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), TSAR_ERR_DEVICES) << bad;
    }
  }
}

TEST(DeviceList, EntriesTakeLinuxCpusAndLogicalCoresWithThePrefix) {
  // Two CPUs per core: Linux CPUs 2k, 2k+1 on logical core k.
  const NodeModel node = NodeModel::from_synthetic("pack:1 core:4 pu:2");
  const auto list = build_devices(node, "cpu:3,cpu:L:1,team:4-7,emul:5,place:0", {});
  ASSERT_EQ(list.size(), 5u);
  EXPECT_EQ(list[0]->description().cpus, (std::vector<int>{3}));
  EXPECT_EQ(list[0]->description().cores, (std::vector<int>{1}));
  EXPECT_EQ(list[1]->description().cpus, (std::vector<int>{2, 3}));
  EXPECT_EQ(list[2]->description().key, "team:4-7");
  EXPECT_EQ(list[2]->description().cores, (std::vector<int>{2, 3}));
  EXPECT_EQ(list[3]->description().control_core, 2);
  EXPECT_EQ(list[4]->description().cpus, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  try {
    build_devices(node, "cpu:8", {});
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CPU 8"), std::string::npos) << e.what();
  }
}

}  // namespace
