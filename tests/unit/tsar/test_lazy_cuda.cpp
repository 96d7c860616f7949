// SPDX-License-Identifier: BSD-3-Clause
// Where libtsar maps the CUDA runtime: with libtsar where an NVIDIA driver is installed and
// the device list may ask a GPU runtime (so it is torn down after OpenMP offload at exit),
// else only when a CUDA device is used: a machine without the driver, or a program whose
// TSAR_DEVICES names no GPU, runs without libcudart. Each test is its own process
// (ctest), and reads this process's mappings.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "tsar/tsar.h"

namespace {

bool cuda_runtime_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("libcudart") != std::string::npos) return true;
  return false;
}

bool nvidia_driver() { return access("/dev/nvidiactl", F_OK) == 0; }

/// TSAR_DEVICES is set and names only CPUs, places, emulated or OpenMP host devices: no entry
/// asks a GPU runtime (omp:, cuda:, team:all, or the default list do).
bool devices_ask_no_gpu() {
  const char* spec = std::getenv("TSAR_DEVICES");
  if (spec == nullptr || *spec == '\0') return false;
  const std::string s = std::string(",") + spec;
  return s.find(",omp:") == std::string::npos && s.find(",cuda:") == std::string::npos &&
         s.find(",team:all") == std::string::npos;
}

void run_a_region() {
  tsar_region* region = nullptr;
  ASSERT_EQ(tsar_init(&region, "lazy-cuda", "static", TSAR_DEVICE_ALL, nullptr, 0, 0), TSAR_OK)
      << tsar_last_error();
  ASSERT_EQ(tsar_run(
                region, 1000, [](const tsar_chunk*, void*) {}, nullptr),
            TSAR_OK);
  tsar_free(region);
}

TEST(LazyCuda, WithoutTheNvidiaDriverACpuOnlyProgramNeverMapsTheCudaRuntime) {
  if (TSAR_TEST_CUDA && nvidia_driver())
    GTEST_SKIP() << "an NVIDIA driver is installed: the runtime comes with libtsar";
  EXPECT_FALSE(cuda_runtime_mapped()) << "at start";
  ASSERT_EQ(tsar_set_devices("cpu:0,omphost:0"), TSAR_OK) << tsar_last_error();
  run_a_region();
  EXPECT_FALSE(cuda_runtime_mapped()) << "after a region on CPU and OpenMP devices";
  if (!nvidia_driver()) {  // the default list has no GPU
    ASSERT_EQ(tsar_set_devices(nullptr), TSAR_OK) << tsar_last_error();
    run_a_region();
    EXPECT_FALSE(cuda_runtime_mapped()) << "after a region on the default devices";
  }
}

TEST(LazyCuda, DevicesNamedWithoutAGpuLeaveTheRuntimeUnmapped) {
  if (!devices_ask_no_gpu())
    GTEST_SKIP() << "runs as tsar.lazy_cuda.named_devices, with TSAR_DEVICES naming no GPU";
  EXPECT_FALSE(cuda_runtime_mapped()) << "at start";
  run_a_region();
  EXPECT_FALSE(cuda_runtime_mapped()) << "after a region on " << std::getenv("TSAR_DEVICES");
}

#if TSAR_TEST_CUDA
TEST(LazyCuda, WhereTheNvidiaDriverIsInstalledTheRuntimeComesWithLibtsar) {
  // Before the program calls TSAR or starts OpenMP offload: loaded later, the runtime would
  // release its CUDA context at exit before libgomp frees device memory in it.
  if (!nvidia_driver()) GTEST_SKIP() << "no NVIDIA driver (/dev/nvidiactl)";
  if (devices_ask_no_gpu()) GTEST_SKIP() << "TSAR_DEVICES names no GPU";
  EXPECT_TRUE(cuda_runtime_mapped());
}

TEST(LazyCuda, ACudaDeviceLoadsTheRuntime) {
  if (!devices_ask_no_gpu()) {
    EXPECT_EQ(cuda_runtime_mapped(), nvidia_driver()) << "at start";
  }
  // Without a GPU the entry is refused (device 0 does not exist), after the runtime answered.
  const int status = tsar_set_devices("cuda:0");
  EXPECT_TRUE(status == TSAR_OK || status == TSAR_ERR_DEVICES) << tsar_last_error();
  EXPECT_TRUE(cuda_runtime_mapped()) << tsar_last_error();
}
#endif

}  // namespace
