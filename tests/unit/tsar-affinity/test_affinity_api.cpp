// SPDX-License-Identifier: BSD-3-Clause
// The partition API (C and C++) on this machine's real memory: move_pages queries and moves
// (node 0 -> node 0 here), replicated copies on a node, bad input through the C API, and
// regions of another device set nesting inside a body.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "affinity/numa_memory.hpp"
#include "affinity/page_mover.hpp"
#include "symmer/topology/node_model.hpp"
#include "tsar/tsar.h"
#include "tsar/tsar.hpp"

namespace {

using ::testing::Each;
using ::testing::HasSubstr;

const std::size_t kPage = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));

/// Fresh anonymous pages (heap memory may have been touched by earlier tests).
struct Pages {
  explicit Pages(std::size_t n)
      : count(n),
        data(static_cast<char*>(mmap(nullptr, n * kPage, PROT_READ | PROT_WRITE,
                                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))) {}
  ~Pages() { munmap(data, count * kPage); }
  std::size_t count;
  char* data;
};

TEST(RealMemory, LocationsOfTouchedAndUntouchedPages) {
  Pages mem(16);
  std::memset(mem.data, 1, 8 * kPage);  // pages 0-7 touched; 8-15 never
  const auto nodes = tsar::mem_location(mem.data, 16 * kPage);
  ASSERT_EQ(nodes.size(), 16u);
  const int here = nodes[0];
  EXPECT_GE(here, 0);
  for (std::size_t p = 0; p < 8; ++p) EXPECT_EQ(nodes[p], here) << p;
  for (std::size_t p = 8; p < 16; ++p) EXPECT_EQ(nodes[p], -1) << p;
  // A range that is not page aligned spans the pages it touches.
  std::size_t pages = 0;
  ASSERT_EQ(tsar_mem_location(mem.data + kPage - 1, 2, nullptr, 0, &pages), TSAR_OK);
  EXPECT_EQ(pages, 2u);
  EXPECT_EQ(tsar_mem_location(mem.data, kPage, nullptr, 1, &pages), TSAR_ERR_NULL);
}

TEST(RealMemory, MovesToTheNodeThePagesAreOnAreNoOps) {
  // This machine has one NUMA node: the real move_pages path runs node 0 -> node 0.
  auto memory = tsar::core::system_numa_memory();
  Pages mem(32);
  std::memset(mem.data, 1, 24 * kPage);
  tsar::core::PageMover mover(*memory);
  const std::vector<tsar::core::PageRun> runs{{reinterpret_cast<std::uintptr_t>(mem.data), 32}};
  const auto where = mover.locate(runs);
  const int node = where[0];
  tsar::core::MoveResult r;
  mover.move(runs, node, &r);
  EXPECT_EQ(r.already, 24);
  EXPECT_EQ(r.absent, 8);
  EXPECT_EQ(r.moved + r.failed, 0);
  EXPECT_TRUE(r.error.empty()) << r.error;
  // A node that does not exist: the kernel refuses, the mover reports it.
  tsar::core::MoveResult bad;
  mover.move(runs, 4000, &bad);
  EXPECT_EQ(bad.moved, 0);
  EXPECT_EQ(bad.failed, 24);
}

TEST(RealMemory, CopiesAreAllocatedOnTheirNode) {
  auto memory = tsar::core::system_numa_memory();
  const int node = symmer::topology::NodeModel::from_this_node(symmer::topology::GpuQuery::kNone)
                       .numa_nodes()
                       .front()
                       .os_index;
  void* p = memory->allocate_on(8 * kPage, node);
  std::memset(p, 0, 8 * kPage);
  const auto nodes = tsar::mem_location(p, 8 * kPage);
  EXPECT_THAT(nodes, Each(0));
  memory->release(p, 8 * kPage);
}

TEST(PartitionCApi, DefaultPlacesAreTheNumaNodes) {
  tsar_partition* part = nullptr;
  ASSERT_EQ(tsar_partition_init(&part, "places", nullptr, nullptr, nullptr, 0), TSAR_OK);
  const auto node = symmer::topology::NodeModel::from_this_node(symmer::topology::GpuQuery::kNone);
  EXPECT_EQ(tsar_partition_num_places(part), static_cast<int>(node.numa_nodes().size()));
  EXPECT_EQ(tsar_num_numa_nodes(), static_cast<int>(node.numa_nodes().size()));
  tsar_place_info info{};
  ASSERT_EQ(tsar_partition_get_place_info(part, 0, &info), TSAR_OK);
  EXPECT_EQ(info.numa_node, 0);
  EXPECT_EQ(info.num_cores, static_cast<int>(node.numa_nodes()[0].cores.size()));
  EXPECT_EQ(tsar_partition_get_place_info(part, 99, &info), TSAR_ERR_INVALID);
  EXPECT_EQ(tsar_partition_free(part), TSAR_OK);
  EXPECT_EQ(tsar_partition_init(&part, "bad", "cpu:0|cpu:999", nullptr, nullptr, 0),
            TSAR_ERR_DEVICES);
  EXPECT_THAT(tsar_last_error(), HasSubstr("place 1 ('cpu:999')"));
  EXPECT_EQ(part, nullptr);
  EXPECT_EQ(tsar_partition_init(&part, "bad", nullptr, "chunk:4", nullptr, 0), TSAR_ERR_SCHEDULE);
  EXPECT_EQ(tsar_partition_init(&part, "bad", nullptr, "fastest", nullptr, 0), TSAR_ERR_SCHEDULE);
}

TEST(PartitionCApi, PlacesKeepTheDeviceKindsAsked) {
  // An emulated accelerator stands in for a GPU attached to place 0.
  tsar_partition* part = nullptr;
  ASSERT_EQ(tsar_partition_init(&part, "kinds", "cpu:0,emul:1|cpu:1", nullptr, nullptr, 0),
            TSAR_OK);
  tsar_place_info info{};
  ASSERT_EQ(tsar_partition_get_place_info(part, 0, &info), TSAR_OK);
  EXPECT_EQ(info.num_devices, 2);
  EXPECT_STREQ(info.devices, "cpu:0,emul:0");
  struct Seen {
    std::atomic<unsigned> kinds{0};
  } seen;
  ASSERT_EQ(tsar_partition_run(
                part, 1000,
                [](tsar_place* place, int64_t b, int64_t e, void* arg) {
                  tsar_place_for(
                      place, 0, b, e,
                      [](const tsar_chunk* c, void* a) {
                        static_cast<Seen*>(a)->kinds |= c->end > c->begin ? c->kind : 0u;
                      },
                      arg);
                },
                &seen),
            TSAR_OK);
  EXPECT_EQ(seen.kinds.load(), static_cast<unsigned>(TSAR_DEVICE_CPU | TSAR_DEVICE_EMULATED));
  EXPECT_EQ(tsar_partition_free(part), TSAR_OK);
  ASSERT_EQ(
      tsar_partition_init(&part, "kinds", "cpu:0,emul:1|cpu:1", nullptr, nullptr, TSAR_DEVICE_CPU),
      TSAR_OK);
  ASSERT_EQ(tsar_partition_get_place_info(part, 0, &info), TSAR_OK);
  EXPECT_STREQ(info.devices, "cpu:0");
  EXPECT_EQ(tsar_partition_free(part), TSAR_OK);
  EXPECT_EQ(tsar_partition_init(&part, "kinds", "cpu:0|emul:1", nullptr, nullptr, TSAR_DEVICE_CPU),
            TSAR_ERR_DEVICES);
  EXPECT_THAT(tsar_last_error(),
              HasSubstr("place 1 ('emul:1') has no device of the allowed kinds"));
  EXPECT_EQ(tsar_partition_init(&part, "kinds", nullptr, nullptr, nullptr, 64u), TSAR_ERR_INVALID);
}

TEST(PartitionCApi, BadAssociationsNameTheBufferBeforeAnyCopy) {
  tsar_partition* part = nullptr;
  ASSERT_EQ(tsar_partition_init(&part, "bad", "cpu:0|cpu:1", nullptr, nullptr, 0), TSAR_OK);
  std::vector<double> a(100), b(100);
  tsar_array_desc d{};
  d.name = "grid";
  d.elem_size = 8;
  d.dims = 2;
  d.extent[0] = 10;
  d.extent[1] = 10;
  d.stride[0] = 9;
  d.part_dim = 0;
  d.flags = TSAR_MEM_INOUT;
  EXPECT_EQ(tsar_partition_map_array(part, a.data(), &d), TSAR_ERR_INVALID);
  EXPECT_THAT(tsar_last_error(),
              AllOf(HasSubstr("tsar_partition_map_array: 'grid'"), HasSubstr("overlapping rows")));
  d.stride[0] = 10;
  ASSERT_EQ(tsar_partition_map_array(part, a.data(), &d), TSAR_OK);
  d.name = "other";
  d.extent[0] = 5;
  EXPECT_EQ(tsar_partition_map_array(part, a.data() + 50, &d), TSAR_ERR_REGISTERED);
  EXPECT_THAT(tsar_last_error(),
              AllOf(HasSubstr("'other'"), HasSubstr("overlaps mapped buffer 'grid'")));
  const std::vector<std::int64_t> seg{0, 5, 2};
  const tsar_indirect_desc s{"vals", 8, 100, seg.data(), 8, seg.size(), TSAR_MEM_IN};
  EXPECT_EQ(tsar_partition_map_segmented(part, b.data(), &s), TSAR_ERR_INVALID);
  EXPECT_THAT(tsar_last_error(), AllOf(HasSubstr("'vals'"), HasSubstr("not monotonic")));
  const std::vector<std::int64_t> idx{3, 100};
  const tsar_indirect_desc x{"x", 8, 100, idx.data(), 8, idx.size(), TSAR_MEM_IN};
  EXPECT_EQ(tsar_partition_map_indexed(part, b.data(), &x), TSAR_ERR_INVALID);
  EXPECT_THAT(tsar_last_error(),
              AllOf(HasSubstr("'x'"), HasSubstr("entry 1 = 100 points outside")));
  EXPECT_EQ(tsar_partition_unmap(part, b.data()), TSAR_ERR_UNKNOWN);
  EXPECT_EQ(tsar_set_mem_policy(part, TSAR_LEVEL_DEVICES, TSAR_POLICY_REPLICATE),
            TSAR_ERR_UNSUPPORTED);
  EXPECT_EQ(tsar_set_mem_policy(part, TSAR_LEVEL_PLACES, TSAR_POLICY_REPLICATE), TSAR_OK);
  // A pass larger than the buffer is refused before anything is copied.
  EXPECT_EQ(tsar_partition_run(
                part, 11, [](tsar_place*, int64_t, int64_t, void*) {}, nullptr),
            TSAR_ERR_INVALID);
  EXPECT_THAT(tsar_last_error(), HasSubstr("'grid' (0x"));
  EXPECT_EQ(tsar_partition_num_passes(part), 0);
  EXPECT_EQ(tsar_partition_free(part), TSAR_OK);
}

TEST(PartitionCppApi, StreamTriadUnderEveryPolicyOnRealMemory) {
  const std::size_t n = 200000;
  std::vector<double> a(n), b(n, 1.0), c(n);
  for (std::size_t i = 0; i < n; ++i) c[i] = static_cast<double>(i);
  for (auto policy :
       {tsar::MemPolicy::coherent, tsar::MemPolicy::interleave, tsar::MemPolicy::migrate,
        tsar::MemPolicy::migrate_interleaved, tsar::MemPolicy::replicate}) {
    SCOPED_TRACE(static_cast<int>(policy));
    tsar::Partition part("triad", "cpu:0|cpu:1");
    part.map_array(a.data(), tsar::Partition::vector(n, TSAR_MEM_OUT, "a"));
    part.map_array(b.data(), tsar::Partition::vector(n, TSAR_MEM_IN, "b"));
    part.map_array(c.data(), tsar::Partition::vector(n, TSAR_MEM_IN, "c"));
    part.set_policy(policy);
    std::fill(a.begin(), a.end(), 0.0);
    part.run(static_cast<std::int64_t>(n), [&](tsar::Place& place) {
      double* ap = place.mem(a.data());
      const double* bp = place.mem(b.data());
      const double* cp = place.mem(c.data());
      place.for_each(0, place.begin(), place.end(),
                     [&](std::int64_t i) { ap[i] = bp[i] + 3.0 * cp[i]; });
    });
    for (std::size_t i = 0; i < n; i += 997)
      ASSERT_EQ(a[i], 1.0 + 3.0 * static_cast<double>(i)) << i;
    const auto stats = part.place_stats();
    std::int64_t replicated = 0;
    for (const auto& s : stats) {
      replicated += s.bytes_replicated;
      EXPECT_EQ(s.pages_moved, 0) << "one node here: every page is on it already";
    }
    EXPECT_EQ(replicated, policy == tsar::MemPolicy::replicate
                              ? static_cast<std::int64_t>(2 * n * sizeof(double))
                              : 0);
  }
}

TEST(PartitionCppApi, ExceptionsFromBodiesCancelThePassAndReachTheCaller) {
  tsar::Partition part("throws", "cpu:0|cpu:1");
  EXPECT_THROW(part.run(10,
                        [&](tsar::Place& place) {
                          place.for_each(0, place.begin(), place.end(), [&](std::int64_t i) {
                            if (i == 7) throw std::runtime_error("seven");
                          });
                          place.barrier();
                        }),
               std::runtime_error);
  int ran = 0;
  part.run(10, [&](tsar::Place& place) {
    if (place.index() == 0) ++ran;
  });
  EXPECT_EQ(ran, 1);
  // Column parts are packed: mem() refuses, view() gives the strides.
  std::vector<double> m(4 * 64, 1.0), out(4 * 64);
  tsar::Partition cols("cols", "cpu:0|cpu:1", "static");
  cols.map_array(m.data(), tsar::Partition::matrix(4, 64, 0, 1, TSAR_MEM_IN, "m"));
  cols.map_array(out.data(), tsar::Partition::matrix(4, 64, 0, 1, TSAR_MEM_OUT, "out"));
  cols.set_policy(tsar::MemPolicy::replicate);
  cols.run(64, [&](tsar::Place& place) {
    EXPECT_THROW(place.mem(m.data()), tsar::Error);
    const auto v = place.view(m.data());
    const auto o = place.view(out.data());
    EXPECT_EQ(v.stride[0], static_cast<std::size_t>(place.end() - place.begin()));
    EXPECT_EQ(v.offset[1], place.begin());
    for (std::int64_t r = 0; r < 4; ++r)
      for (auto j = place.begin(); j < place.end(); ++j)
        static_cast<double*>(
            o.base)[r * static_cast<std::int64_t>(o.stride[0]) + (j - o.offset[1])] =
            static_cast<const double*>(
                v.base)[r * static_cast<std::int64_t>(v.stride[0]) + (j - v.offset[1])] +
            static_cast<double>(j);
  });
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t j = 0; j < 64; ++j) ASSERT_EQ(out[r * 64 + j], 1.0 + static_cast<double>(j));
}

TEST(NestedRegions, AnotherDeviceSetNestsTheSameOneIsRefused) {
  ASSERT_EQ(tsar_set_devices("cpu:0,cpu:1"), TSAR_OK);
  tsar_region* outer = nullptr;
  tsar_region* same = nullptr;
  ASSERT_EQ(tsar_init(&outer, "outer", "adaptive", 0, nullptr, 0, 0), TSAR_OK);
  ASSERT_EQ(tsar_init(&same, "same", "adaptive", 0, nullptr, 0, 0), TSAR_OK);
  ASSERT_EQ(tsar_set_devices("cpu:1"), TSAR_OK);
  tsar_region* inner = nullptr;
  ASSERT_EQ(tsar_init(&inner, "inner", "adaptive", 0, nullptr, 0, 0), TSAR_OK);
  std::vector<double> buf(2);
  ASSERT_EQ(tsar_reg_mem(outer, buf.data(), sizeof(double), 2, 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN),
            TSAR_OK);
  struct Ctx {
    tsar_region* outer;
    tsar_region* inner;
    tsar_region* same;
    const double* buf;
    std::atomic<int> nested_ok{0}, same_refused{0}, inner_iterations{0}, outer_view_ok{0};
  } ctx{outer, inner, same, buf.data()};
  ASSERT_EQ(tsar_run(
                outer, 2,
                [](const tsar_chunk* c, void* arg) {
                  auto* x = static_cast<Ctx*>(arg);
                  // One nested pass at a time on the inner set: from the piece holding
                  // iteration 0, whichever worker runs it.
                  if (c->begin != 0) return;
                  x->nested_ok += tsar_run(
                                      x->inner, 5,
                                      [](const tsar_chunk* ic, void* a) {
                                        static_cast<Ctx*>(a)->inner_iterations +=
                                            static_cast<int>(ic->end - ic->begin);
                                      },
                                      x) == TSAR_OK;
                  x->same_refused +=
                      tsar_run(
                          x->same, 5, [](const tsar_chunk*, void*) {}, nullptr) == TSAR_ERR_STATE;
                  // The caller's region is its worker's region again after the nested pass.
                  x->outer_view_ok += tsar_mem(x->outer, x->buf) == x->buf;
                },
                &ctx),
            TSAR_OK);
  EXPECT_EQ(ctx.nested_ok.load(), 1);
  EXPECT_EQ(ctx.inner_iterations.load(), 5);
  EXPECT_EQ(ctx.same_refused.load(), 1);
  EXPECT_EQ(ctx.outer_view_ok.load(), 1);
  tsar_free(inner);
  tsar_free(same);
  tsar_free(outer);
  ASSERT_EQ(tsar_set_devices(nullptr), TSAR_OK);
}

}  // namespace
