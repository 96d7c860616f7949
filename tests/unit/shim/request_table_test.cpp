// SPDX-License-Identifier: BSD-3-Clause
// The shim's request table: insert/find/erase, full buckets, and handle reuse by another thread
// between a completion's lookup and its claim.
#include "request_table.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace symmer::shim {
namespace {

RequestInfo send_to(int peer) {
  RequestInfo i;
  i.kind = RequestInfo::kSend;
  i.peer = peer;
  return i;
}

// Keys that land in one bucket: the hash is multiplicative, find them by search.
std::vector<std::uint64_t> keys_of_one_bucket(std::size_t n) {
  std::vector<std::uint64_t> same;
  const auto bucket_of = [](std::uint64_t k) { return (k * 0x9E3779B97F4A7C15ull) >> 53; };
  for (std::uint64_t k = 1; same.size() < n; ++k)
    if (bucket_of(k) == bucket_of(1)) same.push_back(k);
  return same;
}

class RequestTableModes : public ::testing::TestWithParam<bool> {};

// Both modes: concurrent (MPI_THREAD_MULTIPLE) and one thread at a time (plain claims).
TEST_P(RequestTableModes, FindsWhatWasInsertedUntilErased) {
  RequestTable t;
  t.set_concurrent(GetParam());
  ASSERT_TRUE(t.insert(0x2c000001, send_to(3)));
  const auto idx = t.find(0x2c000001);
  ASSERT_GE(idx, 0);
  EXPECT_EQ(t.info(idx).peer, 3);
  EXPECT_EQ(t.find(0x2c000002), -1);
  t.erase(idx, 0x2c000001, t.serial(idx));
  EXPECT_EQ(t.find(0x2c000001), -1);
}

TEST_P(RequestTableModes, AFullBucketRefusesInsteadOfEvicting) {
  RequestTable t;
  t.set_concurrent(GetParam());
  const auto same = keys_of_one_bucket(RequestTable::kWays + 1);
  for (std::size_t i = 0; i < RequestTable::kWays; ++i)
    ASSERT_TRUE(t.insert(same[i], send_to(static_cast<int>(i))));
  EXPECT_FALSE(t.insert(same.back(), send_to(99)));
  for (std::size_t i = 0; i < RequestTable::kWays; ++i)
    EXPECT_EQ(t.info(t.find(same[i])).peer, static_cast<int>(i));
}

TEST_P(RequestTableModes, ReinsertingAHandleReplacesTheStaleEntry) {
  RequestTable t;
  t.set_concurrent(GetParam());
  ASSERT_TRUE(t.insert(42, send_to(1)));
  const auto idx = t.find(42);
  const auto serial = t.serial(idx);
  // The library recycled handle 42 for a new request before the old completion claimed it.
  ASSERT_TRUE(t.insert(42, send_to(2)));
  t.erase(idx, 42, serial);  // the late claim must not remove the new request
  ASSERT_GE(t.find(42), 0);
  EXPECT_EQ(t.info(t.find(42)).peer, 2);
}

TEST_P(RequestTableModes, AStaleEntryBehindAFreeWayIsReplacedNotDoubled) {
  auto t = std::make_unique<RequestTable>();
  t->set_concurrent(GetParam());
  const auto k = keys_of_one_bucket(2);
  ASSERT_TRUE(t->insert(k[0], send_to(0)));
  ASSERT_TRUE(t->insert(k[1], send_to(1)));  // its completion is never seen: stays stale
  const auto first = t->find(k[0]);
  t->erase(first, k[0], t->serial(first));   // frees the way before the stale entry
  ASSERT_TRUE(t->insert(k[1], send_to(2)));  // the handle reused
  const auto idx = t->find(k[1]);
  ASSERT_GE(idx, 0);
  EXPECT_EQ(t->info(idx).peer, 2);
  t->erase(idx, k[1], t->serial(idx));
  EXPECT_EQ(t->find(k[1]), -1);  // no second entry of the handle left behind
  // The freed ways are taken again, up to a full bucket.
  const auto more = keys_of_one_bucket(RequestTable::kWays + 1);
  for (std::size_t i = 0; i < RequestTable::kWays; ++i)
    ASSERT_TRUE(t->insert(more[i], send_to(static_cast<int>(i))));
  EXPECT_FALSE(t->insert(more.back(), send_to(99)));
  for (std::size_t i = 0; i < RequestTable::kWays; ++i)
    EXPECT_EQ(t->info(t->find(more[i])).peer, static_cast<int>(i));
}

INSTANTIATE_TEST_SUITE_P(RequestTable, RequestTableModes, ::testing::Bool(),
                         [](const auto& p) { return p.param ? "concurrent" : "single"; });

TEST(RequestTable, ConcurrentInsertAndEraseLoseNothing) {
  RequestTable t;
  constexpr int kThreads = 4, kPerThread = 20000;
  std::atomic<int> lost{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th)
    threads.emplace_back([&, th] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::uint64_t key =
            (static_cast<std::uint64_t>(th) << 32) | static_cast<std::uint64_t>(i % 64 + 1);
        if (!t.insert(key, send_to(th)))
          continue;  // a full bucket is allowed, a wrong entry is not
        const auto idx = t.find(key);
        if (idx < 0 || t.info(idx).peer != th)
          ++lost;
        else
          t.erase(idx, key, t.serial(idx));
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(lost.load(), 0);
}

}  // namespace
}  // namespace symmer::shim
