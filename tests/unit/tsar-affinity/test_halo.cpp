// SPDX-License-Identifier: BSD-3-Clause
// Halo (padding) updates: a Jacobi stencil partitioned once for many steps gives the serial
// result whether the places share the host buffers (coherent), keep copies and exchange
// only boundary rows (replicate + padding updates), or merge everything back every step
// (replicate + full merge) -- and the bytes each moves are exactly what the halo is.

#include <gtest/gtest.h>

#include <vector>

#include "partition_fixture.hpp"

namespace tsar::test {
namespace {

constexpr std::size_t kRows = 37, kCols = 16;
constexpr int kSteps = 5;

std::vector<double> initial() {
  std::vector<double> g(kRows * kCols);
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = static_cast<double>((i * 7919) % 101);
  return g;
}

void step(const double* u, double* v, std::int64_t lo, std::int64_t hi) {
  for (auto i = std::max<std::int64_t>(lo, 1); i < std::min<std::int64_t>(hi, kRows - 1); ++i)
    for (std::size_t j = 1; j + 1 < kCols; ++j) {
      const auto r = static_cast<std::size_t>(i);
      v[r * kCols + j] = 0.25 * (u[(r - 1) * kCols + j] + u[(r + 1) * kCols + j] +
                                 u[r * kCols + j - 1] + u[r * kCols + j + 1]);
    }
}

std::vector<double> serial() {
  auto u = initial(), v = u;
  for (int s = 0; s < kSteps; ++s) {
    step(u.data(), v.data(), 0, kRows);
    std::swap(u, v);
  }
  return u;
}

struct Run {
  std::vector<double> result;
  std::vector<tsar_place_stats> stats;
  std::vector<core::Range> ranges;
};

/// One partition pass of kSteps steps; `updates` are the update calls after each step.
Run jacobi(const std::string& places, int policy, std::vector<int> updates) {
  auto part = make_partition(std::make_shared<FakeNumaMemory>(3), places, {0, 1, 2}, "static");
  auto u = initial(), v = u;
  part->map(
      core::Association::array(u.data(), matrix_desc("u", kRows, kCols, 0, 1, TSAR_MEM_INOUT)));
  part->map(
      core::Association::array(v.data(), matrix_desc("v", kRows, kCols, 0, 1, TSAR_MEM_INOUT)));
  part->set_policy(TSAR_LEVEL_PLACES, policy);
  run_pass(*part, kRows, [&](tsar_place* place, std::int64_t lo, std::int64_t hi) {
    const int p = place->index;
    const void* keys[2] = {u.data(), v.data()};
    double* views[2] = {static_cast<double*>(part->view(p, u.data()).host_indexed),
                        static_cast<double*>(part->view(p, v.data()).host_indexed)};
    for (int s = 0; s < kSteps; ++s) {
      const int from = s % 2, to = 1 - from;
      place_for(place, 0, lo, hi,
                [&](const tsar_chunk& c) { step(views[from], views[to], c.begin, c.end); });
      for (int what : updates) ASSERT_EQ(part->update(p, keys[to], what), TSAR_OK);
    }
  });
  Run r;
  r.result = kSteps % 2 == 0 ? u : v;
  r.stats.resize(static_cast<std::size_t>(part->num_places()));
  part->pass_stats(-1, nullptr, r.stats.data(), part->num_places());
  r.ranges = part->ranges();
  return r;
}

TEST(Halo, EveryWayGivesTheSerialResult) {
  const auto expect = serial();
  for (const char* places : {"cpu:0|cpu:1", "cpu:0|cpu:1|cpu:0"}) {
    SCOPED_TRACE(places);
    EXPECT_EQ(jacobi(places, TSAR_POLICY_COHERENT, {TSAR_UPDATE_PADDING_NEARBY}).result, expect);
    EXPECT_EQ(jacobi(places, TSAR_POLICY_MIGRATE, {TSAR_UPDATE_PADDING_NEARBY}).result, expect);
    EXPECT_EQ(jacobi(places, TSAR_POLICY_REPLICATE, {TSAR_UPDATE_PADDING_NEARBY}).result, expect);
    EXPECT_EQ(
        jacobi(places, TSAR_POLICY_REPLICATE, {TSAR_UPDATE_PADDING_FROM, TSAR_UPDATE_PADDING_TO})
            .result,
        expect);
    EXPECT_EQ(jacobi(places, TSAR_POLICY_REPLICATE, {TSAR_UPDATE_MERGE}).result, expect);
  }
}

TEST(Halo, WithoutUpdatesCopiesGoStale) {
  // The test above would pass without exchanges if copies were not really separate.
  EXPECT_NE(jacobi("cpu:0|cpu:1", TSAR_POLICY_REPLICATE, {}).result, serial());
}

TEST(Halo, NearbyUpdatesMoveOnlyTheHaloRows) {
  const std::int64_t row = kCols * sizeof(double);
  const auto nearby =
      jacobi("cpu:0|cpu:1|cpu:0", TSAR_POLICY_REPLICATE, {TSAR_UPDATE_PADDING_NEARBY});
  // Place 1 has neighbours on both sides, the end places on one.
  EXPECT_EQ(nearby.stats[0].halo_bytes, kSteps * row);
  EXPECT_EQ(nearby.stats[1].halo_bytes, kSteps * 2 * row);
  EXPECT_EQ(nearby.stats[2].halo_bytes, kSteps * row);
  const auto merge = jacobi("cpu:0|cpu:1|cpu:0", TSAR_POLICY_REPLICATE, {TSAR_UPDATE_MERGE});
  for (std::size_t p = 0; p < 3; ++p) {
    const std::int64_t owned = merge.ranges[p].size() * row;
    const std::int64_t halo = (p == 1 ? 2 : 1) * row;
    EXPECT_EQ(merge.stats[p].halo_bytes, kSteps * (owned + owned + halo)) << p;
    EXPECT_GT(merge.stats[p].halo_bytes, 5 * nearby.stats[p].halo_bytes);
  }
  // Shared host buffers: updates only synchronise.
  const auto shared = jacobi("cpu:0|cpu:1", TSAR_POLICY_COHERENT, {TSAR_UPDATE_PADDING_NEARBY});
  EXPECT_EQ(shared.stats[0].halo_bytes, 0);
}

}  // namespace
}  // namespace tsar::test
