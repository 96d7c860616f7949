// SPDX-License-Identifier: BSD-3-Clause
// Associations: validation of every bad description (the message names the buffer and the
// problem), and the bytes each range of iterations owns.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "affinity/association.hpp"
#include "api/error.hpp"

namespace tsar::core {
namespace {

using ::testing::HasSubstr;
using Runs = std::vector<std::pair<std::size_t, std::size_t>>;

tsar_array_desc matrix(const char* name, std::size_t rows, std::size_t cols, std::size_t stride,
                       int part_dim, std::size_t halo = 0, unsigned flags = TSAR_MEM_INOUT) {
  tsar_array_desc d{};
  d.name = name;
  d.elem_size = sizeof(double);
  d.dims = 2;
  d.extent[0] = rows;
  d.extent[1] = cols;
  d.stride[0] = stride;
  d.part_dim = part_dim;
  d.halo = halo;
  d.flags = flags;
  return d;
}

template <class F>
std::string error_of(F&& f, tsar_status expected = TSAR_ERR_INVALID) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

Runs owned(const Association& a, Range r) {
  Runs runs;
  a.for_each_owned(r, [&](std::size_t b, std::size_t e) { runs.emplace_back(b, e); });
  return runs;
}

TEST(Association, RowsOfAPaddedMatrixAreOneRunPerRow) {
  std::vector<double> m(4 * 10);
  const auto a = Association::array(m.data(), matrix("m", 4, 8, 10, 0));
  EXPECT_EQ(a.bytes(), (3 * 10 + 8) * sizeof(double));
  EXPECT_EQ(a.items(), 4);
  EXPECT_EQ(owned(a, {1, 3}), (Runs{{80, 80 + 64}, {160, 160 + 64}}));
}

TEST(Association, PackedRowsMergeIntoOneRun) {
  std::vector<double> m(4 * 8);
  const auto a = Association::array(m.data(), matrix("m", 4, 8, 0, 0));
  EXPECT_EQ(owned(a, {1, 3}), (Runs{{64, 192}}));
}

TEST(Association, ColumnsAreAPieceOfEveryRow) {
  std::vector<double> m(3 * 8);
  const auto a = Association::array(m.data(), matrix("m", 3, 8, 0, 1, 1));
  EXPECT_EQ(owned(a, {2, 4}), (Runs{{16, 32}, {80, 96}, {144, 160}}));
  const Box b = a.box({2, 4}, true);  // the halo widens the columns, not the rows
  EXPECT_EQ(b.lo[1], 1);
  EXPECT_EQ(b.hi[1], 5);
  EXPECT_EQ(b.lo[0], 0);
  EXPECT_EQ(b.hi[0], 3);
}

TEST(Association, ThreeDimensionsWithAStridedInnermostDimension) {
  // 2 x 2 x 3 elements, innermost stride 2 (every other float), planes 16 apart.
  std::vector<float> v(64);
  tsar_array_desc d{};
  d.name = "v";
  d.elem_size = sizeof(float);
  d.dims = 3;
  d.extent[0] = 2;
  d.extent[1] = 2;
  d.extent[2] = 3;
  d.stride[0] = 16;
  d.stride[1] = 6;
  d.stride[2] = 2;
  d.part_dim = 0;
  d.flags = TSAR_MEM_IN;
  const auto a = Association::array(v.data(), d);
  EXPECT_EQ(a.bytes(), (16 + 6 + 4 + 1) * sizeof(float));
  EXPECT_EQ(owned(a, {1, 2}),
            (Runs{{64, 68}, {72, 76}, {80, 84}, {88, 92}, {96, 100}, {104, 108}}));
}

TEST(Association, SegmentsOwnTheirElementsAndEntries) {
  std::vector<float> data(10);
  const std::vector<std::int64_t> seg{0, 3, 3, 7, 10};
  const tsar_indirect_desc d{"csr", sizeof(float), 10, seg.data(), 8, seg.size(), TSAR_MEM_IN};
  const auto a = Association::segmented(data.data(), d);
  EXPECT_EQ(a.items(), 4);
  EXPECT_EQ(owned(a, {1, 3}), (Runs{{12, 28}}));
  Runs map;
  a.for_each_owned_map({1, 3}, [&](std::size_t b, std::size_t e) { map.emplace_back(b, e); });
  EXPECT_EQ(map, (Runs{{8, 24}}));
}

TEST(Association, IndicesOwnTheElementsTheyRead) {
  std::vector<double> data(100);
  const std::vector<std::int32_t> idx{5, 99, 5, 0};
  const tsar_indirect_desc d{"gather", sizeof(double), 100, idx.data(), 4, idx.size(), TSAR_MEM_IN};
  const auto a = Association::indexed(data.data(), d);
  EXPECT_EQ(owned(a, {1, 3}), (Runs{{792, 800}, {40, 48}}));
}

TEST(AssociationErrors, NameTheBufferAndTheProblem) {
  std::vector<double> m(100);
  auto bad = matrix("grid", 4, 8, 6, 0);  // rows of 8 elements 6 apart overlap
  EXPECT_THAT(
      error_of([&] { Association::array(m.data(), bad); }),
      AllOf(HasSubstr("'grid'"), HasSubstr("overlapping rows"), HasSubstr("stride[0] = 6")));
  auto misaligned = matrix("grid", 4, 8, 0, 0);
  EXPECT_THAT(
      error_of([&] { Association::array(reinterpret_cast<char*>(m.data()) + 4, misaligned); }),
      AllOf(HasSubstr("'grid'"), HasSubstr("misaligned"), HasSubstr("multiple of 8")));
  auto shared_out = matrix("out", 4, 8, 0, -1, 0, TSAR_MEM_OUT);
  EXPECT_THAT(error_of([&] { Association::array(m.data(), shared_out); }),
              AllOf(HasSubstr("'out'"), HasSubstr("cannot be an output")));
  auto no_dir = matrix("x", 4, 8, 0, 0, 0, 0);
  EXPECT_THAT(error_of([&] { Association::array(m.data(), no_dir); }), HasSubstr("no direction"));
  auto bad_dim = matrix("x", 4, 8, 0, 2);
  EXPECT_THAT(error_of([&] { Association::array(m.data(), bad_dim); }),
              HasSubstr("part_dim 2 is not a dimension"));
  auto halo = matrix("x", 4, 8, 0, 0, 4);
  EXPECT_THAT(error_of([&] { Association::array(m.data(), halo); }), HasSubstr("halo 4"));
  EXPECT_THAT(error_of([&] { Association::array(nullptr, halo); }, TSAR_ERR_NULL),
              HasSubstr("NULL"));
  // Unnamed buffers are named by their address.
  auto unnamed = matrix(nullptr, 4, 8, 6, 0);
  EXPECT_THAT(error_of([&] { Association::array(m.data(), unnamed); }), HasSubstr("buffer 0x"));
}

TEST(AssociationErrors, SegmentsThatDecreaseOrLeaveTheData) {
  std::vector<float> data(10);
  const std::vector<std::int64_t> down{0, 4, 3, 10};
  const tsar_indirect_desc d{"rows", sizeof(float), 10, down.data(), 8, down.size(), TSAR_MEM_IN};
  EXPECT_THAT(error_of([&] { Association::segmented(data.data(), d); }),
              AllOf(HasSubstr("'rows'"), HasSubstr("not monotonic"),
                    HasSubstr("entry 2 = 3 < entry 1 = 4")));
  const std::vector<std::int32_t> past{0, 4, 11};
  const tsar_indirect_desc p{"rows", sizeof(float), 10, past.data(), 4, past.size(), TSAR_MEM_IN};
  EXPECT_THAT(error_of([&] { Association::segmented(data.data(), p); }),
              HasSubstr("entry 2 = 11 is past the end of the data (10 elements)"));
  const tsar_indirect_desc size{"rows", sizeof(float), 10,         past.data(),
                                2,      past.size(),   TSAR_MEM_IN};
  EXPECT_THAT(error_of([&] { Association::segmented(data.data(), size); }),
              HasSubstr("map_size must be 4"));
}

TEST(AssociationErrors, IndicesOutsideTheDataAndWritesThroughAnIndex) {
  std::vector<double> data(10);
  const std::vector<std::int64_t> idx{1, 10, 2};
  const tsar_indirect_desc d{"x", sizeof(double), 10, idx.data(), 8, idx.size(), TSAR_MEM_IN};
  EXPECT_THAT(
      error_of([&] { Association::indexed(data.data(), d); }),
      AllOf(HasSubstr("'x'"), HasSubstr("index array entry 1 = 10 points outside the data")));
  const std::vector<std::int64_t> neg{-1};
  const tsar_indirect_desc n{"x", sizeof(double), 10, neg.data(), 8, neg.size(), TSAR_MEM_IN};
  EXPECT_THAT(error_of([&] { Association::indexed(data.data(), n); }), HasSubstr("entry 0 = -1"));
  const tsar_indirect_desc out{"x", sizeof(double), 10, idx.data(), 8, 1, TSAR_MEM_INOUT};
  EXPECT_THAT(error_of([&] { Association::indexed(data.data(), out); }),
              HasSubstr("read through its index"));
}

TEST(AssociationErrors, PassesAreCheckedAgainstTheMapAsItIsNow) {
  std::vector<double> data(10);
  std::vector<std::int64_t> idx{1, 2, 3};
  const tsar_indirect_desc d{"x", sizeof(double), 10, idx.data(), 8, idx.size(), TSAR_MEM_IN};
  const auto a = Association::indexed(data.data(), d);
  EXPECT_NO_THROW(a.check_pass(3));
  EXPECT_THAT(error_of([&] { a.check_pass(4); }),
              HasSubstr("has 3 index entries but the pass has 4"));
  idx[2] = 50;  // the program rewrote its index array after mapping it
  EXPECT_THAT(error_of([&] { a.check_pass(3); }), HasSubstr("entry 2 = 50 points outside"));
  EXPECT_NO_THROW(a.check_pass(2));  // a shorter pass does not read that entry
}

}  // namespace
}  // namespace tsar::core
