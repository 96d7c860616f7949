// SPDX-License-Identifier: BSD-3-Clause
// TSAR's default CPUs: the process's affinity mask, narrowed by OMP_PLACES / OMP_NUM_THREADS,
// within the node model's CPUs; GPU control cores chosen inside them. Masks and OpenMP
// settings are injected (ProcessCpus), so every case runs on any machine.
#include <gtest/gtest.h>
#include <sched.h>

#include <string>
#include <vector>

#include "devices/default_cpus.hpp"
#include "devices/device_list.hpp"
#include "devices/gpu_discovery.hpp"
#include "four_gpu_node.hpp"
#include "symmer/topology/node_model.hpp"

namespace {

using namespace tsar::core;
using symmer::topology::NodeModel;

// 4 cores of two CPUs each: Linux CPUs 2k and 2k+1 on logical core k.
const NodeModel& smt_node() {
  static const NodeModel node = NodeModel::from_synthetic("pack:1 core:4 pu:2");
  return node;
}

std::vector<std::vector<int>> cpus_of_cpu_devices(const std::vector<std::shared_ptr<Device>>& ds) {
  std::vector<std::vector<int>> out;
  for (const auto& d : ds)
    if (d->kind() == DeviceKind::kCpu) out.push_back(d->description().cpus);
  return out;
}

TEST(DefaultCpus, AreTheAffinityMask) {
  ProcessCpus p;
  p.affinity = {6, 2, 3};
  EXPECT_EQ(default_cpus(smt_node(), p), (std::vector<int>{2, 3, 6}));
  // One device per core of the mask, bound to the mask's CPUs of it (not the sibling 7).
  EXPECT_EQ(cpus_of_cpu_devices(build_devices(smt_node(), "", p)),
            (std::vector<std::vector<int>>{{2, 3}, {6}}));
  p.affinity = {0};  // taskset -c 0, mpiexec -bind-to hwthread
  EXPECT_EQ(cpus_of_cpu_devices(build_devices(smt_node(), "", p)),
            (std::vector<std::vector<int>>{{0}}));
}

TEST(DefaultCpus, OmpNumThreadsTakesTheMasksFirstCores) {
  ProcessCpus p;
  p.affinity = {1, 2, 3, 4, 5, 6, 7};
  p.omp_num_threads = 2;  // one worker per core: cores 0 (CPU 1 only) and 1
  EXPECT_EQ(default_cpus(smt_node(), p), (std::vector<int>{1, 2, 3}));
  p.omp_num_threads = 9;  // more than the mask has: the whole mask
  EXPECT_EQ(default_cpus(smt_node(), p), (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
}

TEST(DefaultCpus, OmpPlacesWinOverTheMaskAndOmpNumThreadsCountsPlaces) {
  ProcessCpus p;
  p.affinity = {0};  // the OpenMP runtime bound the initial thread to its first place
  p.omp_places = {{4, 5}, {6, 7}, {0, 1}};
  EXPECT_EQ(default_cpus(smt_node(), p), (std::vector<int>{0, 1, 4, 5, 6, 7}));
  p.omp_num_threads = 2;
  EXPECT_EQ(default_cpus(smt_node(), p), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(cpus_of_cpu_devices(build_devices(smt_node(), "", p)),
            (std::vector<std::vector<int>>{{4, 5}, {6, 7}}));
}

TEST(DefaultCpus, StayInsideTheNodesAllowedCpus) {
  ProcessCpus p;
  p.omp_places = {{12, 13}, {2}};  // CPUs 12, 13: outside the model (another cgroup's)
  p.omp_num_threads = 1;           // counts places that have allowed CPUs
  EXPECT_EQ(default_cpus(smt_node(), p), (std::vector<int>{2}));
  // Nothing the model knows: every allowed CPU rather than none.
  EXPECT_EQ(default_cpus(smt_node(), ProcessCpus{{40, 41}, {}, 0}),
            (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(DefaultCpus, AnExplicitListIsTakenAsWrittenAndAllMeansTheProcesssCpus) {
  ProcessCpus p;
  p.affinity = {2, 3};
  EXPECT_EQ(cpus_of_cpu_devices(build_devices(smt_node(), "cpu:6,cpu:all", p)),
            (std::vector<std::vector<int>>{{6}, {2, 3}}));
  const auto team = build_devices(smt_node(), "team:all", p);
  ASSERT_EQ(team.size(), 1u);
  EXPECT_EQ(team[0]->description().cpus, (std::vector<int>{2, 3}));
}

// Which lists make TSAR ask the GPU runtimes: libtsar maps the CUDA runtime at start for
// those only (cuda_runtime.cpp), so OpenMP offload's exit finds it still there.
TEST(DeviceList, OnlyListsOfCpusAskNoGpuRuntime) {
  for (const char* spec : {"", " ", "omp:all", "cpu:0, omp:1", "cuda:0@3", "team:all",
                           "cpu:all,cuda:all"})
    EXPECT_TRUE(asks_gpu_runtimes(spec)) << "'" << spec << "'";
  for (const char* spec : {"cpu:0", "cpu:all", "cpu:L:0-3,team:0-3", "place:0", "omphost:0",
                           "emul:2,cpu:1"})
    EXPECT_FALSE(asks_gpu_runtimes(spec)) << "'" << spec << "'";
}

// The 4-GPU node (four_gpu_node.hpp), the process given the 16 CPUs of socket 0 (NUMA nodes
// 0 and 1).
class MaskedGpus : public ::testing::Test {
 protected:
  NodeModel node = four_gpu_node::node();
  GpuRuntimes runtimes = four_gpu_node::runtimes();
  std::vector<int> socket0() const {
    std::vector<int> cpus;
    for (int core = 0; core < 16; ++core) {
      const auto& pus = node.cores()[static_cast<std::size_t>(core)].pus;
      cpus.insert(cpus.end(), pus.begin(), pus.end());
    }
    std::sort(cpus.begin(), cpus.end());
    return cpus;
  }
};

TEST_F(MaskedGpus, ControlCoresComeFromInsideTheMaskNearTheirGpuWherePossible) {
  const auto gpus = place_gpus(node, runtimes, socket0());
  ASSERT_EQ(gpus.size(), 4u);
  // GPUs on NUMA nodes 1 and 0: the last core of their node, as without a mask.
  EXPECT_EQ(gpus[0].control_core, 15);
  EXPECT_EQ(gpus[1].control_core, 7);
  // GPUs on NUMA nodes 3 and 2 (the other socket): the highest free cores of the mask.
  EXPECT_EQ(gpus[2].control_core, 14);
  EXPECT_EQ(gpus[3].control_core, 13);
  for (const auto& g : gpus)
    for (int cpu : g.control_cpus) EXPECT_LT(node.core_of_pu(cpu), 16) << g.physical;

  const auto devices = default_devices(node, gpus, GpuCores::kReserve, socket0());
  std::vector<int> cpu_cores;
  for (const auto& d : devices)
    if (d->kind() == DeviceKind::kCpu) cpu_cores.push_back(d->description().control_core);
  EXPECT_EQ(cpu_cores, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12}));
}

TEST(ThisProcessCpus, AffinityIsTheCallingThreadsMask) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  std::vector<int> mask;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) mask.push_back(cpu);
  EXPECT_EQ(this_process_cpus().affinity, mask);
}

}  // namespace
