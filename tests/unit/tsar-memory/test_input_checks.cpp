// SPDX-License-Identifier: BSD-3-Clause
// Arguments that name no memory, or memory TSAR would write under the program's feet, are
// refused with a message that says what was wrong, before anything is allocated or moved.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tsar/tsar.h"

namespace {

using ::testing::HasSubstr;

class InputChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(tsar_set_devices("cpu:0"), TSAR_OK);
    ASSERT_EQ(tsar_init(&region, "checks", "static", TSAR_DEVICE_CPU, nullptr, 0, 0), TSAR_OK);
  }
  void TearDown() override {
    tsar_free(region);
    tsar_set_devices(nullptr);
  }
  /// An aligned address 64 bytes below the top of the address space.
  static void* near_the_top() { return reinterpret_cast<void*>(UINTPTR_MAX - 63); }
  static void add(void* inout, const void* in, void*) {
    *static_cast<double*>(inout) += *static_cast<const double*>(in);
  }
  tsar_region* region = nullptr;
};

TEST_F(InputChecks, ABufferThatWrapsTheAddressSpaceIsRefused) {
  EXPECT_EQ(
      tsar_reg_mem(region, near_the_top(), sizeof(double), 16, 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN),
      TSAR_ERR_INVALID);
  EXPECT_THAT(tsar_last_error(), HasSubstr("past the end of the address space"));
  tsar_partition* part = nullptr;
  ASSERT_EQ(tsar_partition_init(&part, "wrap", "cpu:0", "static", "static", TSAR_DEVICE_CPU),
            TSAR_OK);
  tsar_array_desc d{};
  d.elem_size = sizeof(double);
  d.dims = 1;
  d.extent[0] = 16;
  d.flags = TSAR_MEM_IN;
  EXPECT_EQ(tsar_partition_map_array(part, near_the_top(), &d), TSAR_ERR_INVALID);
  EXPECT_THAT(tsar_last_error(), HasSubstr("past the end of the address space"));
  tsar_partition_free(part);
}

TEST_F(InputChecks, AHaloAsLargeAsTheBufferIsRefused) {
  std::vector<double> a(100);
  for (std::size_t halo : {SIZE_MAX, std::size_t{100}}) {
    EXPECT_EQ(tsar_reg_mem(region, a.data(), sizeof(double), a.size(), halo, TSAR_ASSOC_ROWS,
                           TSAR_MEM_IN),
              TSAR_ERR_INVALID);
    EXPECT_THAT(tsar_last_error(), HasSubstr("is not smaller than the 100 rows"));
  }
  EXPECT_EQ(
      tsar_reg_mem_2d(region, a.data(), sizeof(double), 25, 4, 0, 4, TSAR_ASSOC_COLS, TSAR_MEM_IN),
      TSAR_ERR_INVALID);
  EXPECT_THAT(tsar_last_error(), HasSubstr("is not smaller than the 4 columns"));
  EXPECT_EQ(
      tsar_reg_mem(region, a.data(), sizeof(double), a.size(), 99, TSAR_ASSOC_ROWS, TSAR_MEM_IN),
      TSAR_OK);
}

TEST_F(InputChecks, AMemoryLocationQueryThatWrapsIsRefused) {
  std::vector<double> a(100);
  std::size_t pages = 0;
  EXPECT_EQ(tsar_mem_location(a.data(), SIZE_MAX, nullptr, 0, &pages), TSAR_ERR_INVALID);
  EXPECT_THAT(tsar_last_error(), HasSubstr("past the end of the address space"));
  EXPECT_EQ(tsar_mem_location(a.data(), sizeof(double) * a.size(), nullptr, 0, &pages), TSAR_OK);
  EXPECT_GE(pages, 1u);
}

TEST_F(InputChecks, AReductionResultInsideARegisteredBufferIsRefused) {
  std::vector<double> a(100, 1.0);
  const double zero = 0.0;
  ASSERT_EQ(
      tsar_reg_mem(region, a.data(), sizeof(double), a.size(), 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN),
      TSAR_OK);
  EXPECT_EQ(tsar_reg_reduction(region, &a[50], &zero, sizeof(double), add, nullptr),
            TSAR_ERR_REGISTERED);
  EXPECT_THAT(tsar_last_error(), HasSubstr("inside registered buffer"));
  // The other order: a buffer registered over a reduction's result.
  std::vector<double> b(10);
  ASSERT_EQ(tsar_reg_reduction(region, &b[3], &zero, sizeof(double), add, nullptr), TSAR_OK);
  EXPECT_EQ(
      tsar_reg_mem(region, b.data(), sizeof(double), b.size(), 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN),
      TSAR_ERR_REGISTERED);
  EXPECT_THAT(tsar_last_error(), HasSubstr("holds the result"));
  EXPECT_EQ(tsar_reg_reduction(region, near_the_top(), &zero, 128, add, nullptr), TSAR_ERR_INVALID);
  EXPECT_THAT(tsar_last_error(), HasSubstr("past the end of the address space"));
}

}  // namespace
