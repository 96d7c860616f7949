// SPDX-License-Identifier: BSD-3-Clause
// Page migration: which memory is hot, and batches that keep every move_pages call short.
#include "symmer/topology/page_migration.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <numa.h>
#include <unistd.h>

#include <cstring>
#include <set>

namespace symmer::topology {
namespace {

using namespace std::chrono_literals;

constexpr const char* kMaps =
    "55d0c7a2e000-55d0c7a30000 r--p 00000000 fd:01 131 /usr/bin/app\n"
    "55d0c8b1f000-55d0c8b40000 rw-p 00000000 00:00 0 [heap]\n"
    "7f0000000000-7f0000400000 rw-p 00000000 00:00 0\n"
    "7f1000000000-7f1000200000 rw-p 00000000 00:00 0\n"
    "7f2000000000-7f2000001000 rw-p 00000000 fd:01 99 /usr/lib/libc.so.6\n"
    "7ffd9d5d2000-7ffd9d5f3000 rw-p 00000000 00:00 0 [stack]\n";
constexpr const char* kNumaMaps =
    "55d0c7a2e000 default file=/usr/bin/app mapped=2 N1=2 kernelpagesize_kB=4\n"
    "55d0c8b1f000 default heap anon=33 dirty=33 N0=20 N1=13 kernelpagesize_kB=4\n"
    "7f0000000000 default anon=1024 dirty=1024 N1=1024 kernelpagesize_kB=4\n"
    "7f1000000000 default anon=1 dirty=1 N1=1 kernelpagesize_kB=2048\n"
    "7f2000000000 default file=/usr/lib/libc.so.6 anon=1 dirty=1 N1=1 kernelpagesize_kB=4\n"
    "7ffd9d5d2000 default stack anon=5 dirty=5 N0=5 kernelpagesize_kB=4\n";

TEST(PageMigration, HotRangesArePrivateAnonymousMemoryElsewhere) {
  const auto ranges = hot_ranges_from(kMaps, kNumaMaps, 0);
  // Heap (part on node 1), the 4 MiB anonymous mapping, the huge-page mapping and the
  // written libc data page; not the read-only text, not the stack (all on node 0).
  ASSERT_EQ(ranges.size(), 4u);
  EXPECT_EQ(ranges[0].start, 0x55d0c8b1f000u);
  EXPECT_EQ(ranges[0].pages(), 0x21u);
  EXPECT_EQ(ranges[1].pages(), 1024u);
  EXPECT_EQ(ranges[2].page_size, 2048u * 1024);
  EXPECT_EQ(ranges[2].pages(), 1u);
  EXPECT_TRUE(hot_ranges_from(kMaps, kNumaMaps, 1).size() == 2u);  // heap and stack have N0 pages
  EXPECT_TRUE(hot_ranges_from("garbage\n-\n", "zz default anon=1 N1=1\n", 0).empty());
}

// move_pages stand-in: costs `per_page` of a fake clock per page and records every page.
struct FakeMover {
  explicit FakeMover(std::chrono::nanoseconds cost) : per_page(cost) {}
  std::chrono::nanoseconds per_page;
  std::chrono::steady_clock::time_point clock{};
  std::vector<std::size_t> batch_sizes;
  std::multiset<std::uintptr_t> pages;

  MovePagesFunction function() {
    return [this](int, unsigned long count, void** p, const int* nodes, int* status, int) {
      batch_sizes.push_back(count);
      for (unsigned long i = 0; i < count; ++i) {
        pages.insert(reinterpret_cast<std::uintptr_t>(p[i]));
        status[i] = nodes[i];
      }
      clock += per_page * static_cast<long>(count);
      return 0L;
    };
  }
  PageMigration::Now now() {
    return [this] { return clock; };
  }
};

std::vector<MemoryRange> big_ranges() {
  return {{0x100000, 0x100000 + 30000 * 4096, 4096}, {0x80000000, 0x80000000 + 20000 * 4096, 4096}};
}

TEST(PageMigration, BatchesGrowToTheBudgetAndNeverExceedIt) {
  FakeMover mover(5us);  // 20 ms holds 4000 pages
  PageMigration m(42, 1, big_ranges(), {}, mover.function(), mover.now());
  while (m.step()) {
  }
  EXPECT_TRUE(m.done());
  EXPECT_EQ(m.stats().pages_requested, 50000u);
  EXPECT_EQ(m.stats().pages_on_target, 50000u);
  EXPECT_LE(m.stats().longest_call, 20ms);
  // Each page exactly once, in order, across both ranges.
  EXPECT_EQ(mover.pages.size(), 50000u);
  EXPECT_EQ(std::set<std::uintptr_t>(mover.pages.begin(), mover.pages.end()).size(), 50000u);
  // Doubling from 256 up to 80% of the budget (3200 pages).
  EXPECT_THAT(std::vector<std::size_t>(mover.batch_sizes.begin(), mover.batch_sizes.begin() + 5),
              ::testing::ElementsAre(256, 512, 1024, 2048, 3200));
}

TEST(PageMigration, SlowPagesShrinkTheBatch) {
  FakeMover mover(1ms);  // pathological: 1 ms per page
  PageMigration m(42, 1, big_ranges(), {}, mover.function(), mover.now());
  m.step();
  EXPECT_EQ(m.next_batch(), 16u);  // 0.8 * 20 ms / 1 ms
  for (int i = 0; i < 20; ++i) m.step();
  for (std::size_t i = 1; i < mover.batch_sizes.size(); ++i) EXPECT_LE(mover.batch_sizes[i], 20u);
}

TEST(PageMigration, ProcessGoneStopsWithAMessage) {
  MovePagesFunction gone = [](int, unsigned long, void**, const int*, int*, int) {
    errno = ESRCH;
    return -1L;
  };
  PageMigration m(4242, 0, big_ranges(), {}, gone);
  EXPECT_FALSE(m.step());
  EXPECT_TRUE(m.done());
  EXPECT_THAT(m.stats().error, ::testing::HasSubstr("move_pages(pid 4242) failed"));
}

TEST(PageMigration, PerPageOutcomesAreCounted) {
  // Page k of the range: on target, never touched, or busy, by k % 3.
  MovePagesFunction mixed = [](int, unsigned long count, void** pages, const int* nodes,
                               int* status, int) {
    for (unsigned long i = 0; i < count; ++i) {
      const auto k = (reinterpret_cast<std::uintptr_t>(pages[i]) - 0x1000) / 4096;
      status[i] = k % 3 == 0 ? nodes[i] : (k % 3 == 1 ? -ENOENT : -EBUSY);
    }
    return 0L;
  };
  PageMigration m(1, 0, {{0x1000, 0x1000 + 300 * 4096, 4096}}, {}, mixed);
  while (m.step()) {
  }
  EXPECT_EQ(m.stats().pages_on_target, 100u);
  EXPECT_EQ(m.stats().pages_absent, 100u);
  EXPECT_EQ(m.stats().pages_failed, 100u);
}

// The real move_pages on this process. On a single-NUMA machine every page is already on
// the target node: this exercises the system call path as a no-op, nothing more.
TEST(PageMigration, RealMovePagesOnThisProcess) {
  if (numa_available() < 0) GTEST_SKIP() << "libnuma reports NUMA unavailable";
  const long page = sysconf(_SC_PAGESIZE);
  constexpr int kPages = 64;
  void* buffer = nullptr;
  ASSERT_EQ(posix_memalign(&buffer, static_cast<std::size_t>(page), kPages * page), 0);
  std::memset(buffer, 1, kPages * page);  // touch: the pages exist
  const int node = numa_node_of_cpu(sched_getcpu());
  const auto start = reinterpret_cast<std::uintptr_t>(buffer);
  PageMigration m(getpid(), node, {{start, start + kPages * page, static_cast<std::size_t>(page)}});
  while (m.step()) {
  }
  EXPECT_TRUE(m.stats().error.empty()) << m.stats().error;
  EXPECT_EQ(m.stats().pages_on_target, static_cast<std::size_t>(kPages));
  if (numa_max_node() == 0) {  // one node: nothing of ours lives elsewhere
    EXPECT_TRUE(hot_ranges(getpid(), 0).empty());
  }
  std::free(buffer);
}

}  // namespace
}  // namespace symmer::topology
