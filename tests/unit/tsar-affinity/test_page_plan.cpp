// SPDX-License-Identifier: BSD-3-Clause
// The placement planner on fixture topologies: which pages go to which node under migrate
// and interleave, carried out by the page mover on an in-memory NUMA machine of the
// fixture's nodes and checked through its location queries.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <numeric>
#include <vector>

#include "affinity/association.hpp"
#include "affinity/page_mover.hpp"
#include "affinity/page_plan.hpp"
#include "affinity/places.hpp"
#include "api/error.hpp"
#include "fake_numa_memory.hpp"
#include "schedule/split_math.hpp"
#include "symmer/topology/node_model.hpp"

namespace tsar::core {
namespace {

using symmer::topology::NodeModel;
using test::FakeNumaMemory;

constexpr std::size_t kPage = 4096;
constexpr std::size_t kPerPage = kPage / sizeof(double);

std::string fixture(const char* name) {
  return std::string(SYMMER_SOURCE_DIR) + "/tests/fixtures/topologies/" + name;
}

/// A page-aligned buffer of doubles that frees itself. aligned_alloc takes a size that is a
/// multiple of the alignment: the allocation is rounded up to whole pages.
struct Buffer {
  explicit Buffer(std::size_t count)
      : data(static_cast<double*>(
            std::aligned_alloc(kPage, (count * sizeof(double) + kPage - 1) / kPage * kPage))),
        n(count) {}
  ~Buffer() { std::free(data); }
  double* data;
  std::size_t n;
};

Association rows_of(double* data, std::size_t n) {
  tsar_array_desc d{};
  d.name = "a";
  d.elem_size = sizeof(double);
  d.dims = 1;
  d.extent[0] = n;
  d.part_dim = 0;
  d.flags = TSAR_MEM_INOUT;
  return Association::array(data, d);
}

/// The split a partition would start with: shares proportional to each place's cores.
std::vector<Range> split_by_cores(const std::vector<Place>& places, std::int64_t n) {
  std::vector<double> tpi;
  for (const auto& p : places) tpi.push_back(1.0 / p.cores);
  std::vector<std::int64_t> counts(places.size());
  split_iterations(n, tpi, counts);
  std::vector<Range> parts;
  std::int64_t at = 0;
  for (auto c : counts) {
    parts.push_back({at, at + c});
    at += c;
  }
  return parts;
}

std::vector<int> os_nodes(const std::vector<Place>& places) {
  std::vector<int> nodes;
  for (const auto& p : places) nodes.push_back(p.os_node);
  return nodes;
}

TEST(Places, OnePerNumaNodeOfTheFixture) {
  const auto places = build_places(NodeModel::from_xml_file(fixture("2p4n4gpu.xml")), "", "");
  ASSERT_EQ(places.size(), 4u);
  for (int p = 0; p < 4; ++p) {
    EXPECT_EQ(places[p].numa_node, p);
    EXPECT_EQ(places[p].os_node, p);
    EXPECT_EQ(places[p].cores, 8);
    EXPECT_EQ(places[p].devices.size(), 8u);
  }
  EXPECT_EQ(places[1].keys, "cpu:8,cpu:9,cpu:10,cpu:11,cpu:12,cpu:13,cpu:14,cpu:15");
}

TEST(Places, AllowedNodesOnlyAndOsNumbersKept) {
  // cgroup: NUMA node 3 disallowed, node 0 lost two cores.
  const auto places =
      build_places(NodeModel::from_xml_file(fixture("4p4n2gpu-cgroup.xml")), "", "");
  ASSERT_EQ(places.size(), 3u);
  EXPECT_EQ(places[0].cores, 4);
  EXPECT_EQ(places[1].cores, 6);
  EXPECT_EQ(places[2].os_node, 2);
}

TEST(Places, ExplicitGroupsAndBadOnes) {
  const auto node = NodeModel::from_synthetic("pack:2 numa:2 core:4 pu:1");
  const auto places = build_places(node, "cpu:0-3|cpu:12,cpu:13|place:1", "");
  ASSERT_EQ(places.size(), 3u);
  EXPECT_EQ(places[0].numa_node, 0);
  EXPECT_EQ(places[1].numa_node, 3);
  EXPECT_EQ(places[2].numa_node, 1);
  EXPECT_EQ(places[2].devices.size(), 1u);  // one team device of node 1's four cores
  EXPECT_EQ(places[2].cores, 4);
  try {
    build_places(node, "cpu:0||cpu:1", "");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("place 1 ('') has no devices"));
  }
  try {
    build_places(node, "cpu:0|cpu:99", "");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), TSAR_ERR_DEVICES);
    EXPECT_THAT(e.what(), ::testing::HasSubstr("place 1 ('cpu:99')"));
  }
}

TEST(PageOwners, BoundaryAndPartialPagesStay) {
  // A buffer from the middle of page 0 to the middle of page 5: pages 1-4 are whole.
  Buffer mem(6 * kPerPage);
  const char* base = reinterpret_cast<const char*>(mem.data) + kPage / 2;
  PageOwners owners(base, 5 * kPage, kPage);
  ASSERT_EQ(owners.pages(), 4u);
  owners.mark(0, 0, 2 * kPage);                     // up to the middle of page 2
  owners.mark(1, 2 * kPage, 5 * kPage);             // the rest
  EXPECT_EQ(owners.owner(0), 0);                    // page 1
  EXPECT_EQ(owners.owner(1), PageOwners::kShared);  // page 2: both parts touch it
  EXPECT_EQ(owners.owner(2), 1);
  EXPECT_EQ(owners.owner(3), 1);
  std::vector<PageRun> runs;
  owners.runs_of(1, runs);
  EXPECT_EQ(runs,
            (std::vector<PageRun>{{reinterpret_cast<std::uintptr_t>(mem.data) + 3 * kPage, 2}}));
}

TEST(PlanMigrate, EachPlaceGetsTheWholePagesOfItsPartOnTheFixture) {
  const auto places = build_places(NodeModel::from_xml_file(fixture("2p4n4gpu.xml")), "", "");
  // 64 pages of doubles plus 100 elements: the equal split does not fall on page bounds.
  const std::size_t n = 64 * kPerPage + 100;
  Buffer mem(n);
  const auto a = rows_of(mem.data, n);
  const auto parts = split_by_cores(places, static_cast<std::int64_t>(n));
  std::vector<std::vector<PageRun>> moves;
  plan_migrate(a, parts, kPage, moves);

  // Expected owner of page k: the place whose range holds all its elements, else none.
  const std::size_t pages = 64;  // the last, partial page is not whole: it stays
  std::size_t planned = 0;
  for (std::size_t p = 0; p < places.size(); ++p) planned += run_pages(moves[p]);
  std::size_t expected_moving = 0;
  FakeNumaMemory numa(4);
  numa.touch(mem.data, n * sizeof(double), 0);  // first touched by one thread on node 0
  PageMover mover(numa);
  std::vector<MoveResult> results(places.size());
  for (std::size_t p = 0; p < places.size(); ++p)
    mover.move(moves[p], places[p].os_node, &results[p]);
  for (std::size_t k = 0; k < pages; ++k) {
    const auto first = static_cast<std::int64_t>(k * kPerPage);
    const auto last = static_cast<std::int64_t>((k + 1) * kPerPage - 1);
    int owner = -1;
    for (std::size_t p = 0; p < parts.size(); ++p)
      if (parts[p].begin <= first && last < parts[p].end) owner = static_cast<int>(p);
    expected_moving += owner >= 0 ? 1 : 0;
    const int expect_node = owner >= 0 ? places[static_cast<std::size_t>(owner)].os_node : 0;
    EXPECT_EQ(numa.node_of(reinterpret_cast<char*>(mem.data) + k * kPage), expect_node)
        << "page " << k;
  }
  EXPECT_EQ(planned, expected_moving);
  EXPECT_EQ(expected_moving, 61u) << "three boundaries, three shared pages";
  // Place 0's pages were on its node already; the others moved.
  EXPECT_EQ(results[0].moved, 0);
  EXPECT_EQ(results[0].already, static_cast<std::int64_t>(run_pages(moves[0])));
  for (std::size_t p = 1; p < places.size(); ++p) {
    EXPECT_EQ(results[p].moved, static_cast<std::int64_t>(run_pages(moves[p])));
    EXPECT_EQ(results[p].failed, 0);
  }
}

TEST(PlanMigrate, SharesFollowTheCoresOfRestrictedNodes) {
  const auto places =
      build_places(NodeModel::from_xml_file(fixture("4p4n2gpu-cgroup.xml")), "", "");
  const std::size_t n = 160 * kPerPage + 8;
  Buffer mem(n);
  const auto parts = split_by_cores(places, static_cast<std::int64_t>(n));
  EXPECT_EQ(parts[0].end, 20482);  // 4/16 of the iterations
  std::vector<std::vector<PageRun>> moves;
  plan_migrate(rows_of(mem.data, n), parts, kPage, moves);
  // 4 : 6 : 6 cores -> 40 : 60 : 60 pages; pages 40 and 100 hold a boundary and stay.
  EXPECT_EQ(run_pages(moves[0]), 40u);
  EXPECT_EQ(run_pages(moves[1]), 59u);
  EXPECT_EQ(run_pages(moves[2]), 59u);
}

TEST(PlanMigrate, ColumnPartitionsMoveOnlyPagesOfOneColumnBlock) {
  // 4 rows of 2048 doubles (4 pages per row), columns split in two: each half-row is two
  // whole pages of one place.
  const std::size_t rows = 4, cols = 4 * kPerPage;
  Buffer mem(rows * cols);
  tsar_array_desc d{};
  d.name = "m";
  d.elem_size = sizeof(double);
  d.dims = 2;
  d.extent[0] = rows;
  d.extent[1] = cols;
  d.part_dim = 1;
  d.flags = TSAR_MEM_IN;
  const auto a = Association::array(mem.data, d);
  const std::vector<Range> parts{
      {0, static_cast<std::int64_t>(cols / 2)},
      {static_cast<std::int64_t>(cols / 2), static_cast<std::int64_t>(cols)}};
  std::vector<std::vector<PageRun>> moves;
  plan_migrate(a, parts, kPage, moves);
  ASSERT_EQ(moves.size(), 2u);
  EXPECT_EQ(run_pages(moves[0]), 8u);
  EXPECT_EQ(run_pages(moves[1]), 8u);
  const auto base = reinterpret_cast<std::uintptr_t>(mem.data);
  EXPECT_EQ(moves[1].front().first, base + 2 * kPage);
  EXPECT_EQ(moves[1].front().count, 2u);
}

TEST(PlanMigrate, IndexedPagesGoToTheOnlyPlaceReadingThem) {
  const std::size_t n = 8 * kPerPage;
  Buffer mem(n);
  // Place 0 reads pages 0 and 5, place 1 reads pages 2 and 5: page 5 is shared.
  const std::vector<std::int64_t> idx{0, 5 * kPerPage + 3, 2 * kPerPage + 1, 5 * kPerPage};
  const tsar_indirect_desc d{"x", sizeof(double), n, idx.data(), 8, idx.size(), TSAR_MEM_IN};
  const auto a = Association::indexed(mem.data, d);
  const std::vector<Range> parts{{0, 2}, {2, 4}};
  std::vector<std::vector<PageRun>> moves;
  plan_migrate(a, parts, kPage, moves);
  const auto base = reinterpret_cast<std::uintptr_t>(mem.data);
  EXPECT_EQ(moves[0], (std::vector<PageRun>{{base, 1}}));
  EXPECT_EQ(moves[1], (std::vector<PageRun>{{base + 2 * kPage, 1}}));
}

TEST(PlanInterleave, RoundRobinOverTheDistinctNodes) {
  const auto places = build_places(NodeModel::from_xml_file(fixture("2p4n4gpu.xml")), "", "");
  const std::size_t n = 10 * kPerPage;
  Buffer mem(n);
  std::vector<std::vector<PageRun>> moves;
  plan_interleave(rows_of(mem.data, n), os_nodes(places), kPage, moves);
  FakeNumaMemory numa(4);
  numa.touch(mem.data, n * sizeof(double), 0);
  PageMover mover(numa);
  MoveResult r;
  for (std::size_t p = 0; p < places.size(); ++p) mover.move(moves[p], places[p].os_node, &r);
  for (std::size_t k = 0; k < 10; ++k)
    EXPECT_EQ(numa.node_of(reinterpret_cast<char*>(mem.data) + k * kPage), static_cast<int>(k % 4));
  EXPECT_EQ(r.moved, 7);  // pages 0, 4, 8 were on node 0 already
  EXPECT_EQ(r.already, 3);

  // Two places on one node (explicit groups of node 0's cores): one target.
  const auto same =
      build_places(NodeModel::from_xml_file(fixture("2p4n4gpu.xml")), "cpu:0-3|cpu:4-7", "");
  std::vector<std::vector<PageRun>> one;
  plan_interleave(rows_of(mem.data, n), os_nodes(same), kPage, one);
  EXPECT_EQ(run_pages(one[0]), 10u);
  EXPECT_EQ(run_pages(one[1]), 0u);
}

TEST(PageMover, BatchesKeepEveryCallUnderTheBudget) {
  // 20000 pages at a simulated 50 us each would stall one call for a second; batches of at
  // most 20 ms must carry them all.
  const std::size_t pages = 20000;
  Buffer mem(pages * kPerPage);
  FakeNumaMemory numa(2);
  numa.touch(mem.data, pages * kPage, 0);
  numa.set_cost_per_page(std::chrono::microseconds(50));
  PageMover mover(numa, {}, [&numa] { return numa.now(); });
  MoveResult r;
  const std::vector<PageRun> runs{{reinterpret_cast<std::uintptr_t>(mem.data), pages}};
  mover.move(runs, 1, &r);
  EXPECT_EQ(r.moved, static_cast<std::int64_t>(pages));
  EXPECT_EQ(r.failed, 0);
  EXPECT_LE(r.longest_call, std::chrono::milliseconds(20));
  const auto sizes = numa.call_sizes();
  EXPECT_GT(sizes.size(), 50u);
  for (auto s : sizes) EXPECT_LE(s * 50, 20000u) << "a call of " << s << " pages";
  EXPECT_EQ(std::accumulate(sizes.begin(), sizes.end(), 0ul), pages);
}

TEST(PageMover, UntouchedAndRefusedPagesAreCounted) {
  Buffer mem(4 * kPerPage);
  FakeNumaMemory numa(2);
  numa.touch(mem.data, kPage, 0);  // pages 1-3 never touched
  PageMover mover(numa);
  MoveResult r;
  const std::vector<PageRun> runs{{reinterpret_cast<std::uintptr_t>(mem.data), 4}};
  mover.move(runs, 5, &r);  // a node this machine does not have
  EXPECT_EQ(r.absent, 3);
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.moved, 0);
}

}  // namespace
}  // namespace tsar::core
