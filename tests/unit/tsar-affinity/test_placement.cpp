// SPDX-License-Identifier: BSD-3-Clause
// Memory policies end to end on a two-node in-memory machine: a pass with migrate,
// interleave, migrate-interleaved and replicate leaves each page -- and each copy -- where
// the policy says, checked through the location queries, with the per-place statistics.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <numeric>
#include <set>
#include <vector>

#include "api/error.hpp"
#include "partition_fixture.hpp"

namespace tsar::test {
namespace {

using core::Partition;
using ::testing::HasSubstr;

constexpr std::size_t kPage = 4096;
constexpr std::size_t kPerPage = kPage / sizeof(double);

class Placement : public ::testing::Test {
 protected:
  // 40 pages per array; two places on nodes 0 and 1, outer split static (20 pages each, the
  // boundary on a page boundary plus one element, so one page is shared).
  static constexpr std::size_t kN = 40 * kPerPage + 1;

  void SetUp() override {
    numa = std::make_shared<FakeNumaMemory>(2);
    part = make_partition(numa, "cpu:0|cpu:1", {0, 1}, "static");
    for (auto* v : {&a, &b, &c}) numa->touch(v->data, kN * sizeof(double), 0);  // worst case
    for (std::size_t i = 0; i < kN; ++i) {
      a[i] = static_cast<double>(i);
      b[i] = 2.0 * static_cast<double>(i);
    }
    part->map(core::Association::array(a.data, vector_desc("a", kN, TSAR_MEM_IN)));
    part->map(core::Association::array(b.data, vector_desc("b", kN, TSAR_MEM_IN)));
    part->map(core::Association::array(c.data, vector_desc("c", kN, TSAR_MEM_OUT)));
  }

  /// STREAM add through the place's views: c = a + b.
  void add_pass() {
    run_pass(*part, static_cast<std::int64_t>(kN),
             [&](tsar_place* place, std::int64_t lo, std::int64_t hi) {
               const auto* av =
                   static_cast<const double*>(part->view(place->index, a.data).host_indexed);
               const auto* bv =
                   static_cast<const double*>(part->view(place->index, b.data).host_indexed);
               auto* cv = static_cast<double*>(part->view(place->index, c.data).host_indexed);
               place_for(place, 0, lo, hi, [&](const tsar_chunk& ch) {
                 for (auto i = ch.begin; i < ch.end; ++i) cv[i] = av[i] + bv[i];
               });
             });
  }

  int node_of_page(const PageBuffer<double>& v, std::size_t page) const {
    return numa->node_of(reinterpret_cast<const char*>(v.data) + page * kPage);
  }

  void expect_sum() {
    for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(c[i], 3.0 * static_cast<double>(i)) << i;
  }

  std::vector<tsar_place_stats> stats(std::int64_t pass = -1) const {
    std::vector<tsar_place_stats> s(2);
    part->pass_stats(pass, nullptr, s.data(), 2);
    return s;
  }

  std::shared_ptr<FakeNumaMemory> numa;
  std::unique_ptr<Partition> part;
  PageBuffer<double> a{kN}, b{kN}, c{kN};
};

TEST_F(Placement, CoherentMovesNothing) {
  add_pass();
  expect_sum();
  for (std::size_t k = 0; k < 40; ++k) EXPECT_EQ(node_of_page(c, k), 0);
  for (const auto& s : stats()) {
    EXPECT_EQ(s.pages_moved, 0);
    EXPECT_EQ(s.bytes_replicated, 0);
  }
  EXPECT_EQ(numa->pages_moved(), 0);
}

TEST_F(Placement, MigrateMovesEachPartsWholePagesOnce) {
  part->set_policy(TSAR_LEVEL_PLACES, TSAR_POLICY_MIGRATE);
  add_pass();
  expect_sum();
  // Split: [0, 20 pages + 1) and the rest. Page 20 holds the boundary and stays.
  const auto r = part->ranges();
  ASSERT_EQ(r[0].end, static_cast<std::int64_t>(20 * kPerPage + 1));
  for (const auto* v : {&a, &b, &c}) {
    for (std::size_t k = 0; k < 20; ++k) EXPECT_EQ(node_of_page(*v, k), 0) << k;
    EXPECT_EQ(node_of_page(*v, 20), 0) << "the boundary page stays";
    for (std::size_t k = 21; k < 40; ++k) EXPECT_EQ(node_of_page(*v, k), 1) << k;
    EXPECT_EQ(node_of_page(*v, 40), 0) << "the partial last page stays";
  }
  auto s = stats();
  EXPECT_EQ(s[0].pages_moved, 0);
  EXPECT_EQ(s[1].pages_moved, 3 * 19);
  EXPECT_EQ(numa->pages_moved(), 3 * 19);
  EXPECT_GE(s[1].placement_seconds, 0.0);
  // The split did not change: the next pass plans and moves nothing.
  add_pass();
  s = stats();
  EXPECT_EQ(s[1].pages_moved + s[1].pages_failed + s[1].pages_absent, 0);
  EXPECT_EQ(numa->pages_moved(), 3 * 19);
}

TEST_F(Placement, InterleaveSpreadsEveryBufferOnce) {
  part->set_policy(TSAR_LEVEL_PLACES, TSAR_POLICY_INTERLEAVE);
  add_pass();
  expect_sum();
  for (const auto* v : {&a, &b, &c})
    for (std::size_t k = 0; k < 40; ++k) EXPECT_EQ(node_of_page(*v, k), static_cast<int>(k % 2));
  const auto s = stats();
  EXPECT_EQ(s[0].pages_moved, 0);
  EXPECT_EQ(s[1].pages_moved, 3 * 20);
  add_pass();
  EXPECT_EQ(stats()[1].pages_moved, 0);
}

TEST_F(Placement, MigrateInterleavedSpreadsOnlyTheShared) {
  part->unmap(b.data);
  part->map(
      core::Association::array(b.data, vector_desc("b", kN, TSAR_MEM_IN, sizeof(double), -1)));
  part->set_policy(TSAR_LEVEL_PLACES, TSAR_POLICY_MIGRATE_INTERLEAVED);
  add_pass();
  expect_sum();
  for (std::size_t k = 0; k < 40; ++k) EXPECT_EQ(node_of_page(b, k), static_cast<int>(k % 2));
  for (std::size_t k = 21; k < 40; ++k) EXPECT_EQ(node_of_page(a, k), 1);
  EXPECT_EQ(node_of_page(a, 20), 0);
  // Under plain migrate the shared buffer stays.
  part->set_policy(TSAR_LEVEL_PLACES, TSAR_POLICY_MIGRATE);
  numa->touch(b.data, kN * sizeof(double), 0);
  add_pass();
  for (std::size_t k = 0; k < 40; ++k) EXPECT_EQ(node_of_page(b, k), 0);
}

TEST_F(Placement, ReplicateComputesInCopiesOnEachPlacesNode) {
  part->set_policy(TSAR_LEVEL_PLACES, TSAR_POLICY_REPLICATE);
  std::fill(c.data, c.data + kN, -1.0);
  std::vector<const void*> views(2);
  run_pass(*part, static_cast<std::int64_t>(kN),
           [&](tsar_place* place, std::int64_t lo, std::int64_t hi) {
             const auto va = part->view(place->index, a.data);
             views[static_cast<std::size_t>(place->index)] = va.base;
             const auto* av = static_cast<const double*>(va.host_indexed);
             const auto* bv =
                 static_cast<const double*>(part->view(place->index, b.data).host_indexed);
             auto* cv = static_cast<double*>(part->view(place->index, c.data).host_indexed);
             EXPECT_NE(cv, c.data);
             for (auto i = lo; i < hi; ++i) cv[i] = av[i] + bv[i];
             // The host buffer is untouched until the merge at the end of the pass.
             EXPECT_EQ(c[static_cast<std::size_t>(lo)], -1.0);
           });
  expect_sum();
  // Each copy was allocated on its place's node.
  const auto allocs = numa->allocations();
  for (int place = 0; place < 2; ++place) {
    const auto it = std::find_if(allocs.begin(), allocs.end(), [&](const auto& kv) {
      return kv.first == views[static_cast<std::size_t>(place)];
    });
    ASSERT_NE(it, allocs.end());
    EXPECT_EQ(it->second, place);
  }
  const auto s = stats();
  const auto r = part->ranges();
  for (int p = 0; p < 2; ++p) {
    const auto bytes =
        r[static_cast<std::size_t>(p)].size() * static_cast<std::int64_t>(sizeof(double));
    EXPECT_EQ(s[static_cast<std::size_t>(p)].bytes_replicated, 2 * bytes)
        << "a and b; c is output only";
    EXPECT_EQ(s[static_cast<std::size_t>(p)].bytes_merged, bytes);
  }
  EXPECT_EQ(numa->pages_moved(), 0);
}

TEST_F(Placement, BadPassesAreRefusedBeforeAnyCopy) {
  part->set_policy(TSAR_LEVEL_PLACES, TSAR_POLICY_REPLICATE);
  try {
    run_pass(*part, static_cast<std::int64_t>(kN) + 1,
             [](tsar_place*, std::int64_t, std::int64_t) {});
    ADD_FAILURE();
  } catch (const core::Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_INVALID);
    EXPECT_THAT(e.what(), HasSubstr("'a'"));
  }
  EXPECT_EQ(part->passes(), 0);
  EXPECT_TRUE(numa->allocations().empty());
  EXPECT_THROW(part->map(core::Association::array(a.data + 10, vector_desc("x", 5, TSAR_MEM_IN))),
               core::Error);
}

TEST(PlacementPersist, PersistentCopiesOfAnUnmovedPartReadOnlyTheirHaloAgain) {
  auto numa = std::make_shared<FakeNumaMemory>(2);
  auto part = make_partition(numa, "cpu:0|cpu:1", {0, 1}, "static");
  std::vector<double> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  part->map(core::Association::array(
      v.data(),
      vector_desc("v", v.size(), TSAR_MEM_INOUT | TSAR_MEM_PERSIST, sizeof(double), 0, 1)));
  part->set_policy(TSAR_LEVEL_PLACES, TSAR_POLICY_REPLICATE);
  std::vector<double> halo(2);
  const auto body = [&](tsar_place* place, std::int64_t lo, std::int64_t hi) {
    auto* x = static_cast<double*>(part->view(place->index, v.data()).host_indexed);
    halo[static_cast<std::size_t>(place->index)] = place->index == 0 ? x[hi] : x[lo - 1];
    for (auto i = lo; i < hi; ++i) x[i] += 1.0;
  };
  run_pass(*part, 1000, body);
  std::vector<tsar_place_stats> s(2);
  part->pass_stats(-1, nullptr, s.data(), 2);
  EXPECT_EQ(s[0].bytes_replicated, 501 * 8);  // [0, 500) and the halo element 500
  EXPECT_EQ(s[1].bytes_replicated, 501 * 8);
  EXPECT_EQ(halo[0], 500.0);
  run_pass(*part, 1000, body);
  part->pass_stats(-1, nullptr, s.data(), 2);
  EXPECT_EQ(s[0].bytes_replicated, 8) << "the part is current: only the halo is read";
  EXPECT_EQ(s[1].bytes_replicated, 8);
  EXPECT_EQ(halo[0], 501.0) << "the neighbour's merged value of the first pass";
  EXPECT_EQ(halo[1], 500.0);
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], static_cast<double>(i) + 2.0);
}

TEST(PlacementPersist, AnEmptyPassRunsEveryBody) {
  auto part = make_partition(std::make_shared<FakeNumaMemory>(2), "cpu:0|cpu:1", {0, 1});
  std::vector<double> v(10);
  part->map(core::Association::array(v.data(), vector_desc("v", 10, TSAR_MEM_INOUT)));
  part->set_policy(TSAR_LEVEL_PLACES, TSAR_POLICY_REPLICATE);
  std::atomic<int> bodies{0};
  run_pass(*part, 0, [&](tsar_place*, std::int64_t lo, std::int64_t hi) {
    EXPECT_EQ(lo, hi);
    ++bodies;
  });
  EXPECT_EQ(bodies.load(), 2);
}

TEST(PlacementIndirect, SegmentedAndIndexedBuffersFollowTheirMaps) {
  // CSR y = A x over 2 places with replicate: values and column indices segmented by the
  // row pointer, x gathered through the column indices.
  auto numa = std::make_shared<FakeNumaMemory>(2);
  auto part = make_partition(numa, "cpu:0|cpu:1", {0, 1}, "static");
  const int rows = 50, cols = 40;
  std::vector<std::int64_t> row_ptr{0};
  std::vector<std::int32_t> col;
  std::vector<double> val, x(cols), y(rows, 0.0);
  for (int r = 0; r < rows; ++r) {
    for (int k = 0; k < r % 7 + 1; ++k) {
      col.push_back((r * 13 + k * 5) % cols);
      val.push_back(0.5 + r + k);
    }
    row_ptr.push_back(static_cast<std::int64_t>(col.size()));
  }
  for (int j = 0; j < cols; ++j) x[static_cast<std::size_t>(j)] = 1.0 + j * 0.25;
  const tsar_indirect_desc vals{"val", sizeof(double), val.size(), row_ptr.data(),
                                8,     row_ptr.size(), TSAR_MEM_IN};
  const tsar_indirect_desc cols_d{"col", sizeof(std::int32_t), col.size(), row_ptr.data(),
                                  8,     row_ptr.size(),       TSAR_MEM_IN};
  // x is read through col: an indexed buffer over the nonzeros.
  const tsar_indirect_desc xs{"x", sizeof(double), x.size(),   col.data(),
                              4,   col.size(),     TSAR_MEM_IN};
  part->map(core::Association::segmented(val.data(), vals));
  part->map(core::Association::segmented(col.data(), cols_d));
  part->map(core::Association::array(y.data(), vector_desc("y", rows, TSAR_MEM_OUT)));
  part->set_policy(TSAR_LEVEL_PLACES, TSAR_POLICY_REPLICATE);
  run_pass(*part, rows, [&](tsar_place* place, std::int64_t lo, std::int64_t hi) {
    const int p = place->index;
    const auto* rp = static_cast<const std::int64_t*>(part->view(p, row_ptr.data()).host_indexed);
    const auto* cv = static_cast<const std::int32_t*>(part->view(p, col.data()).host_indexed);
    const auto* vv = static_cast<const double*>(part->view(p, val.data()).host_indexed);
    auto* yv = static_cast<double*>(part->view(p, y.data()).host_indexed);
    EXPECT_NE(vv, val.data());
    for (auto r = lo; r < hi; ++r) {
      double s = 0.0;
      for (auto k = rp[r]; k < rp[r + 1]; ++k) s += vv[k] * x[static_cast<std::size_t>(cv[k])];
      yv[r] = s;
    }
  });
  for (int r = 0; r < rows; ++r) {
    double s = 0.0;
    for (auto k = row_ptr[static_cast<std::size_t>(r)];
         k < row_ptr[static_cast<std::size_t>(r) + 1]; ++k)
      s += val[static_cast<std::size_t>(k)] *
           x[static_cast<std::size_t>(col[static_cast<std::size_t>(k)])];
    EXPECT_DOUBLE_EQ(y[static_cast<std::size_t>(r)], s) << r;
  }

  // The gather: x[col[k]] for the nonzeros k, partitioned over places by k.
  auto gather = make_partition(numa, "cpu:0|cpu:1", {0, 1}, "static");
  std::vector<double> out(col.size(), 0.0);
  gather->map(core::Association::indexed(x.data(), xs));
  gather->map(core::Association::array(out.data(), vector_desc("out", out.size(), TSAR_MEM_OUT)));
  gather->set_policy(TSAR_LEVEL_PLACES, TSAR_POLICY_REPLICATE);
  std::vector<std::int64_t> copied(2);
  run_pass(*gather, static_cast<std::int64_t>(col.size()),
           [&](tsar_place* place, std::int64_t lo, std::int64_t hi) {
             const int p = place->index;
             const auto xv = gather->view(p, x.data());
             const auto* iv =
                 static_cast<const std::int32_t*>(gather->view(p, col.data()).host_indexed);
             auto* ov = static_cast<double*>(gather->view(p, out.data()).host_indexed);
             copied[static_cast<std::size_t>(p)] = xv.extent[0];
             for (auto k = lo; k < hi; ++k) ov[k] = static_cast<const double*>(xv.base)[iv[k]];
           });
  for (std::size_t k = 0; k < col.size(); ++k)
    EXPECT_EQ(out[k], x[static_cast<std::size_t>(col[k])]) << k;
  // Each place copied only the distinct elements its part reads.
  const auto r = gather->ranges();
  for (int p = 0; p < 2; ++p) {
    std::set<std::int32_t> distinct(col.begin() + r[static_cast<std::size_t>(p)].begin,
                                    col.begin() + r[static_cast<std::size_t>(p)].end);
    EXPECT_EQ(copied[static_cast<std::size_t>(p)], static_cast<std::int64_t>(distinct.size()));
  }
}

}  // namespace
}  // namespace tsar::test
