// SPDX-License-Identifier: BSD-3-Clause
// Every memory policy on the NUMA layouts of hwloc fixture topologies (four nodes; three
// allowed nodes of a cgroup-restricted machine): a partition whose places claim the fixture's
// nodes runs a pass on this machine over an in-memory NUMA machine, and the decisions --
// which page ends on which node, where each copy lives -- are read back through the memory
// location query users call (tsar_mem_location's), against expectations computed here from
// the places' ranges alone.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "affinity/mem_location.hpp"
#include "partition_fixture.hpp"

namespace tsar::test {
namespace {

using symmer::topology::NodeModel;

constexpr std::size_t kPage = 4096;
constexpr std::size_t kPerPage = kPage / sizeof(double);
// 50 pages and a bit; `a` starts in the middle of a page, so both its end pages are partial.
constexpr std::size_t kN = 50 * kPerPage + 3;

struct Case {
  const char* fixture;
  int policy;
  friend void PrintTo(const Case& c, std::ostream* os) {
    *os << c.fixture << " " << core::mem_policy_name(c.policy);
  }
};

std::string name_of(const ::testing::TestParamInfo<Case>& info) {
  std::string f = info.param.fixture;
  f = f.substr(0, f.find('.'));
  std::replace(f.begin(), f.end(), '-', '_');
  std::string p = core::mem_policy_name(info.param.policy);
  std::replace(p.begin(), p.end(), '-', '_');
  return f + "_" + p;
}

class FixturePlacement : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    fixture.emplace(NodeModel::from_xml_file(std::string(SYMMER_SOURCE_DIR) +
                                             "/tests/fixtures/topologies/" + GetParam().fixture));
    int os_nodes = 0;
    for (const auto& n : fixture->numa_nodes()) os_nodes = std::max(os_nodes, n.os_index + 1);
    numa = std::make_shared<FakeNumaMemory>(os_nodes);
    part = fixture_partition(numa, *fixture);
    places = part->num_places();
    a = a_mem.data + kPerPage / 2;
    // The worst case: every page first touched by one thread on the first place's node.
    for (const double* v : {a, s.data, c.data})
      numa->touch(v, kN * sizeof(double), part->place(0).os_node);
    for (std::size_t i = 0; i < kN; ++i) {
      a[i] = static_cast<double>(i);
      s[i] = 0.5 * static_cast<double>(i);
      c[i] = -1.0;
    }
    part->map(core::Association::array(a, vector_desc("a", kN, TSAR_MEM_IN)));
    // s is read whole by every place: shared, not partitioned.
    part->map(core::Association::array(
        s.data, vector_desc("s", kN, TSAR_MEM_IN, sizeof(double), /*part_dim=*/-1)));
    part->map(core::Association::array(c.data, vector_desc("c", kN, TSAR_MEM_OUT)));
    part->set_policy(TSAR_LEVEL_PLACES, GetParam().policy);
  }

  /// c[i] = a[i] + s[kN - 1 - i] through the place's views; records where each place's
  /// copy of `a` lives while the pass runs.
  void pass() {
    copy_nodes.assign(static_cast<std::size_t>(places), {});
    run_pass(*part, static_cast<std::int64_t>(kN),
             [&](tsar_place* place, std::int64_t lo, std::int64_t hi) {
               const int p = place->index;
               const auto va = part->view(p, a);
               const auto* av = static_cast<const double*>(va.host_indexed);
               const auto* sv = static_cast<const double*>(part->view(p, s.data).host_indexed);
               auto* cv = static_cast<double*>(part->view(p, c.data).host_indexed);
               if (va.base != a && hi > lo)
                 copy_nodes[static_cast<std::size_t>(p)] =
                     locate(va.base, static_cast<std::size_t>(hi - lo) * sizeof(double));
               place_for(place, 0, lo, hi, [&](const tsar_chunk& ch) {
                 for (auto i = ch.begin; i < ch.end; ++i)
                   cv[i] = av[i] + sv[kN - 1 - static_cast<std::size_t>(i)];
               });
             });
    for (std::size_t i = 0; i < kN; ++i)
      ASSERT_EQ(c[i], static_cast<double>(i) + 0.5 * static_cast<double>(kN - 1 - i)) << i;
  }

  /// Logical fixture node of each page of [p, p + bytes): the memory location query.
  std::vector<int> locate(const void* p, std::size_t bytes) const {
    std::size_t pages = 0;
    return core::memory_location(*numa, *fixture, p, bytes, 1 << 20, &pages);
  }

  /// The node each page of buffer `v` must be on after the pass, from the places' ranges:
  /// `partitioned` pages wholly inside the buffer and in one place's part go to its node
  /// (migrate); whole pages round-robin over the places' distinct nodes (interleave); all
  /// others stay where they were first touched.
  std::vector<int> expected(const double* v, bool migrate, bool interleave) const {
    const auto begin = reinterpret_cast<std::uintptr_t>(v);
    const auto end = begin + kN * sizeof(double);
    const auto first_page = begin / kPage * kPage;
    const auto ranges = part->ranges();
    std::vector<int> distinct;
    for (int p = 0; p < places; ++p)
      if (std::find(distinct.begin(), distinct.end(), part->place(p).numa_node) == distinct.end())
        distinct.push_back(part->place(p).numa_node);
    std::vector<int> nodes;
    std::size_t whole = 0;  // whole pages seen so far
    for (auto page = first_page; page < end; page += kPage) {
      int node = part->place(0).numa_node;
      const bool inside = page >= begin && page + kPage <= end;
      if (inside && interleave) node = distinct[whole % distinct.size()];
      if (inside && migrate) {
        std::set<int> owners;
        for (int p = 0; p < places; ++p) {
          const auto r = ranges[static_cast<std::size_t>(p)];
          const auto lo = begin + static_cast<std::uintptr_t>(r.begin) * sizeof(double);
          const auto hi = begin + static_cast<std::uintptr_t>(r.end) * sizeof(double);
          if (r.size() > 0 && lo < page + kPage && page < hi) owners.insert(p);
        }
        if (owners.size() == 1) node = part->place(*owners.begin()).numa_node;
      }
      whole += inside ? 1 : 0;
      nodes.push_back(node);
    }
    return nodes;
  }

  std::optional<NodeModel> fixture;
  std::shared_ptr<FakeNumaMemory> numa;
  std::unique_ptr<core::Partition> part;
  int places = 0;
  PageBuffer<double> a_mem{kN + kPerPage}, s{kN}, c{kN};
  double* a = nullptr;
  std::vector<std::vector<int>> copy_nodes;
};

TEST_P(FixturePlacement, PagesAndCopiesLandWhereThePolicySays) {
  const int policy = GetParam().policy;
  ASSERT_GE(places, 3) << "a multi-NUMA fixture";
  pass();
  const bool migrate = policy == TSAR_POLICY_MIGRATE || policy == TSAR_POLICY_MIGRATE_INTERLEAVED;
  const bool interleave = policy == TSAR_POLICY_INTERLEAVE;
  EXPECT_EQ(locate(a, kN * sizeof(double)), expected(a, migrate, interleave)) << "a";
  EXPECT_EQ(locate(c.data, kN * sizeof(double)), expected(c.data, migrate, interleave)) << "c";
  // The shared input: interleaved under interleave and migrate-interleaved, else it stays.
  EXPECT_EQ(locate(s.data, kN * sizeof(double)),
            expected(s.data, false, interleave || policy == TSAR_POLICY_MIGRATE_INTERLEAVED))
      << "s";

  std::vector<tsar_place_stats> st(static_cast<std::size_t>(places));
  part->pass_stats(-1, nullptr, st.data(), places);
  const auto ranges = part->ranges();
  std::int64_t moved = 0;
  for (int p = 0; p < places; ++p) {
    const auto& x = st[static_cast<std::size_t>(p)];
    moved += x.pages_moved;
    EXPECT_GE(x.placement_seconds, 0.0);
    EXPECT_EQ(x.pages_failed, 0);
    if (policy == TSAR_POLICY_REPLICATE) {
      // Its part of a, all of the shared s; c is an output: merged back, not copied in.
      const std::int64_t part_bytes =
          ranges[static_cast<std::size_t>(p)].size() * static_cast<std::int64_t>(sizeof(double));
      EXPECT_EQ(x.bytes_replicated, part_bytes + static_cast<std::int64_t>(kN * sizeof(double)))
          << p;
      EXPECT_EQ(x.bytes_merged, part_bytes) << p;
      // Its copy of a is on its own node.
      const auto& nodes = copy_nodes[static_cast<std::size_t>(p)];
      ASSERT_FALSE(nodes.empty()) << p;
      EXPECT_TRUE(std::all_of(nodes.begin(), nodes.end(),
                              [&](int n) { return n == part->place(p).numa_node; }))
          << "place " << p;
    } else {
      EXPECT_EQ(x.bytes_replicated, 0);
      EXPECT_TRUE(copy_nodes[static_cast<std::size_t>(p)].empty()) << "no copies";
    }
  }
  // Pages moved = the pages whose expected node is not the first-touch node.
  std::int64_t off_home = 0;
  const int home = part->place(0).numa_node;
  for (const double* v : {a, s.data, c.data}) {
    const bool shared_spread =
        v == s.data && (interleave || policy == TSAR_POLICY_MIGRATE_INTERLEAVED);
    for (int n : expected(v, migrate && v != s.data, interleave || shared_spread))
      off_home += n != home ? 1 : 0;
  }
  EXPECT_EQ(moved, off_home);
  EXPECT_EQ(numa->pages_moved(), off_home);
  if (policy == TSAR_POLICY_COHERENT || policy == TSAR_POLICY_REPLICATE)
    EXPECT_EQ(moved, 0);
  else
    EXPECT_GT(moved, 0);

  // The split stays: a second pass places nothing more.
  pass();
  part->pass_stats(-1, nullptr, st.data(), places);
  for (const auto& x : st) EXPECT_EQ(x.pages_moved, 0);
  EXPECT_EQ(numa->pages_moved(), off_home);
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (const char* f : {"2p4n4gpu.xml", "4p4n2gpu-cgroup.xml"})
    for (int p : {TSAR_POLICY_COHERENT, TSAR_POLICY_INTERLEAVE, TSAR_POLICY_MIGRATE,
                  TSAR_POLICY_MIGRATE_INTERLEAVED, TSAR_POLICY_REPLICATE})
      v.push_back({f, p});
  return v;
}

INSTANTIATE_TEST_SUITE_P(EveryPolicy, FixturePlacement, ::testing::ValuesIn(cases()), name_of);

}  // namespace
}  // namespace tsar::test
