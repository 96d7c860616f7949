// SPDX-License-Identifier: BSD-3-Clause
// The node model on this node's GPUs, against independent references: with
// CUDA_DEVICE_ORDER=PCI_BUS_ID, CUDA numbers GPUs in PCI address order (CUDA documentation);
// CUDA_VISIBLE_DEVICES=0 leaves only the first; sysfs gives each device's local CPUs and
// NUMA node.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "symmer/testing/accelerator.hpp"
#include "symmer/topology/cpu_list.hpp"
#include "symmer/topology/node_model.hpp"

namespace {

using symmer::topology::NodeModel;
using symmer::topology::PciDevice;

std::vector<PciDevice> gpus_by_address(const NodeModel& model) {
  auto gpus = model.gpus();
  std::sort(gpus.begin(), gpus.end(),
            [](const PciDevice& a, const PciDevice& b) { return a.pci_address < b.pci_address; });
  return gpus;
}

TEST(CudaOrdinals, FollowPciOrder) {
  symmer::testing::require_cuda_gpus();
  const NodeModel model = NodeModel::from_this_node();
  const auto gpus = gpus_by_address(model);
  for (size_t i = 0; i < gpus.size(); ++i) {
    SCOPED_TRACE(gpus[i].pci_address + " " + gpus[i].model);
    EXPECT_EQ(gpus[i].cuda_device, static_cast<int>(i));
    EXPECT_TRUE(gpus[i].omp_device == gpus[i].cuda_device || gpus[i].omp_device == -1);
  }
  std::printf("%s", model.to_text().c_str());
}

TEST(CudaOrdinals, NotAskedWhenTheCallerSaysSo) {
  symmer::testing::require_cuda_gpus();
  for (const PciDevice& gpu : NodeModel::from_this_node(symmer::topology::GpuQuery::kNone).gpus())
    if (gpu.names.empty()) {
      EXPECT_EQ(gpu.cuda_device, -1) << gpu.pci_address;
    }
}

TEST(CudaOrdinals, OnlyTheVisibleGpuHasOne) {
  symmer::testing::require_cuda_gpus();
  const auto gpus = gpus_by_address(NodeModel::from_this_node());
  ASSERT_FALSE(gpus.empty());
  EXPECT_EQ(gpus[0].cuda_device, 0);
  for (size_t i = 1; i < gpus.size(); ++i) EXPECT_EQ(gpus[i].cuda_device, -1);
}

TEST(Locality, LocalCoresAndNumaNodeMatchSysfs) {
  symmer::testing::require_cuda_gpus();
  const NodeModel model = NodeModel::from_this_node();
  for (const PciDevice& gpu : model.gpus()) {
    SCOPED_TRACE(gpu.pci_address);
    const std::string dir = "/sys/bus/pci/devices/" + gpu.pci_address;
    std::string cpulist;
    std::getline(std::ifstream(dir + "/local_cpulist"), cpulist);
    ASSERT_FALSE(cpulist.empty()) << "no " << dir << "/local_cpulist";
    // Every allowed CPU sysfs calls local is in one of the model's local cores, and back.
    std::vector<int> from_model;
    for (int core : gpu.local_cores)
      for (int pu : model.cores()[static_cast<size_t>(core)].pus) from_model.push_back(pu);
    std::sort(from_model.begin(), from_model.end());
    std::vector<int> from_sysfs;
    const auto listed = symmer::topology::parse_cpu_list(cpulist);
    ASSERT_TRUE(listed) << listed.error().message;
    for (int cpu : *listed)
      if (model.core_of_pu(cpu) >= 0) from_sysfs.push_back(cpu);
    EXPECT_EQ(from_model, from_sysfs);
    int sysfs_node = -1;
    std::ifstream(dir + "/numa_node") >> sysfs_node;
    if (sysfs_node >= 0 && model.numa_nodes().size() > 1) {
      ASSERT_GE(gpu.numa_node, 0);
      EXPECT_EQ(model.numa_nodes()[static_cast<size_t>(gpu.numa_node)].os_index, sysfs_node);
    }
  }
}

}  // namespace
