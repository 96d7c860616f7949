// SPDX-License-Identifier: BSD-3-Clause
// Moving the threads of this test process (and of a child) between CPU sets of the CPUs it may
// use: relative places, threads already inside the target kept, the skipped thread, bad
// targets.
#include "symmer/topology/thread_binding.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "symmer/topology/cpu_list.hpp"

namespace symmer::topology {
namespace {

using V = std::vector<int>;
using namespace std::chrono_literals;

// A thread of this process bound to `cpus` until it is destroyed.
class BoundThread {
 public:
  explicit BoundThread(const V& cpus)
      : thread_([this, set = cpu_set_of(cpus)] {
          bound_ = sched_setaffinity(0, sizeof set, &set) == 0;
          tid_ = static_cast<int>(gettid());
          while (!stop_) std::this_thread::sleep_for(1ms);
        }) {
    while (tid_ == 0) std::this_thread::sleep_for(1ms);
  }
  ~BoundThread() {
    stop_ = true;
    thread_.join();
  }
  bool bound() const { return bound_; }
  int tid() const { return tid_; }
  V cpus() const { return thread_cpus(tid_); }

 private:
  std::atomic<bool> bound_{false};
  std::atomic<int> tid_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;  // last: starts once the members above exist
};

// The CPUs this process may use, or empty (and the test skipped) with fewer than `n`.
V usable_cpus(std::size_t n) {
  V cpus = this_thread_cpus();
  return cpus.size() >= n ? cpus : V{};
}

TEST(ThreadBinding, MovesThreadsToTheirPlacesAndKeepsThoseAlreadyInTheTarget) {
  const V cpus = usable_cpus(2);
  if (cpus.empty()) GTEST_SKIP() << "needs 2 CPUs";
  const int a = cpus[0], b = cpus[1];
  BoundThread on_a({a}), on_b({b}), on_both({a, b});
  ASSERT_TRUE(on_a.bound() && on_b.bound() && on_both.bound());
  const auto r = move_process_threads(getpid(), V{a}, V{b}, {.skip_tid = gettid()});
  EXPECT_EQ(r.error, ThreadMoveError::kNone);
  EXPECT_EQ(r.moved, 2u);
  EXPECT_EQ(r.kept, 1u);
  EXPECT_EQ(on_a.cpus(), V{b});
  EXPECT_EQ(on_b.cpus(), V{b});         // inside `to` already: kept
  EXPECT_EQ(on_both.cpus(), V{b});      // all of `from`: all of `to`
  EXPECT_EQ(this_thread_cpus(), cpus);  // the skipped thread
}

TEST(ThreadBinding, ThreadsBoundToSubsetsKeepTheirRelativePlaces) {
  const V cpus = usable_cpus(3);
  if (cpus.empty()) GTEST_SKIP() << "needs 3 CPUs";
  const V from{cpus[0], cpus[1]}, to{cpus[1], cpus[2]};
  BoundThread first({cpus[0]}), second({cpus[1]}), whole(from), in_target({cpus[2]});
  ASSERT_TRUE(first.bound() && second.bound() && whole.bound() && in_target.bound());
  const auto r = move_process_threads(getpid(), from, to, {.skip_tid = gettid()});
  EXPECT_EQ(r.error, ThreadMoveError::kNone);
  EXPECT_EQ(r.moved, 3u);
  EXPECT_EQ(r.kept, 1u);
  EXPECT_EQ(first.cpus(), V{cpus[1]});
  EXPECT_EQ(second.cpus(), V{cpus[2]});  // inside both sets: it moves to its place
  EXPECT_EQ(whole.cpus(), to);
  EXPECT_EQ(in_target.cpus(), V{cpus[2]});
  EXPECT_EQ(this_thread_cpus(), cpus);
}

TEST(ThreadBinding, ListsEveryThreadOfThisProcess) {
  const BoundThread other(this_thread_cpus());
  const auto tids = process_threads(getpid());
  ASSERT_TRUE(tids.has_value());
  for (const int tid : {static_cast<int>(gettid()), other.tid()})
    EXPECT_NE(std::find(tids->begin(), tids->end(), tid), tids->end()) << "thread " << tid;
}

TEST(ThreadBinding, MovesAnotherProcess) {
  const V cpus = usable_cpus(2);
  if (cpus.empty()) GTEST_SKIP() << "needs 2 CPUs";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  // Sets of different sizes: the whole new set.
  const auto r = move_process_threads(child, cpus, V{cpus[1]});
  EXPECT_EQ(r.error, ThreadMoveError::kNone);
  EXPECT_EQ(r.moved, 1u);
  EXPECT_EQ(thread_cpus(child), V{cpus[1]});
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(move_process_threads(child, cpus, V{cpus[1]}).error, ThreadMoveError::kNoProcess);
  EXPECT_FALSE(process_threads(child).has_value());
}

TEST(ThreadBinding, RefusesTargetsThisNodeLacksTouchingNothing) {
  const V cpus = usable_cpus(2);
  if (cpus.empty()) GTEST_SKIP() << "needs 2 CPUs";
  BoundThread on_a({cpus[0]});
  ASSERT_TRUE(on_a.bound());
  const int lacking = static_cast<int>(sysconf(_SC_NPROCESSORS_CONF));
  for (const V& to : {V{}, V{-1}, V{cpus[1], lacking}, V{CPU_SETSIZE}})
    EXPECT_EQ(move_process_threads(getpid(), V{cpus[0]}, to).error, ThreadMoveError::kInvalidCpu);
  EXPECT_EQ(on_a.cpus(), V{cpus[0]});
  EXPECT_EQ(this_thread_cpus(), cpus);
}

}  // namespace
}  // namespace symmer::topology
