// SPDX-License-Identifier: BSD-3-Clause
// Memory registrations: every bad descriptor gets a clear error, double and overlapping
// registrations are refused, retargeting keeps the shape, and the parts a device needs follow
// the association.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/error.hpp"
#include "memory/reductions.hpp"
#include "memory/registry.hpp"

namespace {

using namespace tsar::core;

tsar_mem_desc desc(std::size_t rows, std::size_t cols, int assoc, unsigned flags,
                   std::size_t stride = 0, std::size_t halo = 0, std::size_t elem = 8) {
  return {elem, rows, cols, stride, halo, assoc, flags};
}

void expect_error(int status, const std::string& fragment, auto&& f) {
  try {
    f();
    ADD_FAILURE() << "no error (expected '" << fragment << "')";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), status) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(MemoryRegistry, RejectsBadDescriptors) {
  MemoryRegistry reg;
  std::vector<double> a(100);
  expect_error(TSAR_ERR_NULL, "NULL",
               [&] { reg.add(nullptr, desc(10, 1, TSAR_ASSOC_ROWS, TSAR_MEM_IN)); });
  expect_error(TSAR_ERR_INVALID, "elem_size",
               [&] { reg.add(a.data(), desc(10, 1, TSAR_ASSOC_ROWS, TSAR_MEM_IN, 0, 0, 0)); });
  expect_error(TSAR_ERR_INVALID, "rows and cols",
               [&] { reg.add(a.data(), desc(0, 1, TSAR_ASSOC_ROWS, TSAR_MEM_IN)); });
  expect_error(TSAR_ERR_INVALID, "row_stride",
               [&] { reg.add(a.data(), desc(10, 10, TSAR_ASSOC_ROWS, TSAR_MEM_IN, 5)); });
  expect_error(TSAR_ERR_INVALID, "association",
               [&] { reg.add(a.data(), desc(10, 1, 9, TSAR_MEM_IN)); });
  expect_error(TSAR_ERR_INVALID, "direction",
               [&] { reg.add(a.data(), desc(10, 1, TSAR_ASSOC_ROWS, TSAR_MEM_PERSIST)); });
  expect_error(TSAR_ERR_INVALID, "flag bits",
               [&] { reg.add(a.data(), desc(10, 1, TSAR_ASSOC_ROWS, 0x100u | TSAR_MEM_IN)); });
  expect_error(TSAR_ERR_INVALID, "cannot be an output",
               [&] { reg.add(a.data(), desc(10, 1, TSAR_ASSOC_FULL, TSAR_MEM_OUT)); });
  expect_error(TSAR_ERR_INVALID, "halo",
               [&] { reg.add(a.data(), desc(10, 1, TSAR_ASSOC_FULL, TSAR_MEM_IN, 0, 1)); });
  expect_error(TSAR_ERR_INVALID, "overflows",
               [&] { reg.add(a.data(), desc(SIZE_MAX / 2, 4, TSAR_ASSOC_ROWS, TSAR_MEM_IN)); });
  EXPECT_EQ(reg.size(), 0u);
}

TEST(MemoryRegistry, RefusesDoubleAndOverlappingRegistrations) {
  MemoryRegistry reg;
  std::vector<double> a(100);
  reg.add(a.data(), desc(50, 1, TSAR_ASSOC_ROWS, TSAR_MEM_INOUT));
  expect_error(TSAR_ERR_REGISTERED, "already registered",
               [&] { reg.add(a.data(), desc(50, 1, TSAR_ASSOC_ROWS, TSAR_MEM_IN)); });
  expect_error(TSAR_ERR_REGISTERED, "overlaps",
               [&] { reg.add(a.data() + 49, desc(10, 1, TSAR_ASSOC_ROWS, TSAR_MEM_IN)); });
  reg.add(a.data() + 50, desc(50, 1, TSAR_ASSOC_ROWS, TSAR_MEM_IN));  // adjacent is fine
  EXPECT_EQ(reg.size(), 2u);
  expect_error(TSAR_ERR_UNKNOWN, "not registered", [&] { reg.remove(a.data() + 1); });
  reg.remove(a.data());
  EXPECT_EQ(reg.find(a.data()), nullptr);
}

TEST(MemoryRegistry, RetargetMovesTheRegistration) {
  MemoryRegistry reg;
  std::vector<double> a(10), b(10), c(10);
  reg.add(a.data(), desc(10, 1, TSAR_ASSOC_ROWS, TSAR_MEM_INOUT));
  reg.add(c.data(), desc(10, 1, TSAR_ASSOC_ROWS, TSAR_MEM_IN));
  reg.retarget(a.data(), b.data());
  EXPECT_EQ(reg.find(a.data()), nullptr);
  ASSERT_NE(reg.find(b.data()), nullptr);
  EXPECT_EQ(reg.find(b.data())->desc.rows, 10u);
  expect_error(TSAR_ERR_REGISTERED, "already registered",
               [&] { reg.retarget(b.data(), c.data()); });
  expect_error(TSAR_ERR_UNKNOWN, "not registered", [&] { reg.retarget(a.data(), b.data()); });
  expect_error(TSAR_ERR_NULL, "NULL", [&] { reg.retarget(b.data(), nullptr); });
  reg.retarget(b.data(), a.data());  // and back (double buffering)
  EXPECT_NE(reg.find(a.data()), nullptr);
}

TEST(MemoryRegistry, PassesMustFitPartialBuffers) {
  MemoryRegistry reg;
  std::vector<double> a(100), m(20 * 30);
  reg.add(a.data(), desc(100, 1, TSAR_ASSOC_ROWS, TSAR_MEM_IN));
  reg.add(m.data(), desc(20, 30, TSAR_ASSOC_COLS, TSAR_MEM_OUT));
  EXPECT_NO_THROW(reg.check_pass(30));
  expect_error(TSAR_ERR_INVALID, "30 columns", [&] { reg.check_pass(31); });
}

TEST(MemoryRegistry, NeededPartsFollowTheAssociation) {
  const tsar_mem_desc rows = desc(100, 1, TSAR_ASSOC_ROWS, TSAR_MEM_IN, 1, 2);
  EXPECT_EQ(MemoryRegistry::needed(rows, {10, 20}).begin, 8);  // halo 2 each side
  EXPECT_EQ(MemoryRegistry::needed(rows, {10, 20}).end, 22);
  EXPECT_EQ(MemoryRegistry::needed(rows, {0, 5}).begin, 0);  // clipped
  EXPECT_EQ(MemoryRegistry::needed(rows, {95, 100}).end, 100);
  EXPECT_TRUE(MemoryRegistry::needed(rows, {5, 5}).empty());
  const tsar_mem_desc cols = desc(4, 25, TSAR_ASSOC_COLS, TSAR_MEM_IN);
  EXPECT_EQ(MemoryRegistry::needed(cols, {24, 30}).end, 25);
  const tsar_mem_desc full = desc(100, 1, TSAR_ASSOC_FULL, TSAR_MEM_IN);
  EXPECT_TRUE(MemoryRegistry::needed(full, {0, 10}).empty());
}

void add_int(void* inout, const void* in, void*) {
  *static_cast<int*>(inout) += *static_cast<const int*>(in);
}

TEST(Reductions, AccumulatorsStartAtIdentityAndMergeInOrder) {
  Reductions red(3);
  int result = 100;
  const int zero = 0;
  red.add(&result, &zero, sizeof(int), add_int, nullptr);
  expect_error(TSAR_ERR_REGISTERED, "already",
               [&] { red.add(&result, &zero, sizeof(int), add_int, nullptr); });
  expect_error(TSAR_ERR_INVALID, "size", [&] {
    int x;
    red.add(&x, &zero, 0, add_int, nullptr);
  });
  expect_error(TSAR_ERR_NULL, "NULL", [&] {
    int x;
    red.add(&x, &zero, sizeof(int), nullptr, nullptr);
  });
  for (int w = 0; w < 3; ++w) *static_cast<int*>(red.accumulator(&result, w)) += w + 1;
  // Each worker's accumulator lives on its own cache line.
  EXPECT_GE(static_cast<char*>(red.accumulator(&result, 1)) -
                static_cast<char*>(red.accumulator(&result, 0)),
            64);
  red.merge();
  EXPECT_EQ(result, 106);
  red.reset();
  EXPECT_EQ(*static_cast<int*>(red.accumulator(&result, 2)), 0);
  EXPECT_EQ(red.accumulator(&zero, 0), nullptr);
  red.remove(&result);
  expect_error(TSAR_ERR_UNKNOWN, "not registered", [&] { red.remove(&result); });
}

}  // namespace
