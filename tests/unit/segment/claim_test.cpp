// SPDX-License-Identifier: BSD-3-Clause
// The claim (segment/claim.hpp): at most one analyzer of a job acts at a time -- the embedded
// one, a user's symmerd, root's symmerd -- whatever order they come in, and a claim lapses
// with its holder.
#include "symmer/segment/claim.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "segment_test_util.hpp"
#include "symmer/segment/reader.hpp"

extern char** environ;

namespace symmer::segment {
namespace {

using testing::TempSegmentDir;

constexpr std::uint64_t kSecond = 1'000'000'000ull;

// A live process other than this one, standing for another analyzer.
class OtherProcess {
 public:
  OtherProcess() {
    char sleep_arg[] = "sleep";
    char seconds[] = "60";
    char* argv[] = {sleep_arg, seconds, nullptr};
    if (::posix_spawnp(&pid_, "sleep", nullptr, nullptr, argv, environ) != 0) pid_ = 0;
    for (int i = 0; i < 1000 && identity_.start_ticks == 0; ++i)
      identity_.start_ticks = process_start_ticks(pid_);
    identity_.pid = pid_;
    identity_.pid_namespace = this_process().pid_namespace;
  }
  ~OtherProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  const ProcessIdentity& identity() const { return identity_; }

 private:
  pid_t pid_ = 0;
  ProcessIdentity identity_;
};

class ClaimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto w = SegmentWriter::create(testing::small_params(dir_.path(), 1));
    ASSERT_TRUE(w) << w.error().message;
    writer_.emplace(std::move(*w));
  }
  SegmentFile open() const {
    auto f = SegmentFile::open(writer_->path(), SegmentFile::Access::kReadWrite);
    EXPECT_TRUE(f) << f.error().message;
    return std::move(*f);
  }
  TempSegmentDir dir_;
  std::optional<SegmentWriter> writer_;
};

TEST_F(ClaimTest, ADaemonTakesAFreeJobAndKeepsItWhileItRenews) {
  const SegmentFile file = open();
  const ProcessIdentity me = this_process();
  OtherProcess other;
  const std::uint64_t now = monotonic_ns();
  EXPECT_FALSE(read_claim(file).held(now)) << "a new segment has no claim";
  EXPECT_EQ(try_claim(file, me, ClaimKind::kDaemon, now, now + 10 * kSecond), ClaimOutcome::kHeld);
  EXPECT_EQ(try_claim(file, me, ClaimKind::kDaemon, now, now + 20 * kSecond), ClaimOutcome::kHeld);
  Claim found;
  EXPECT_EQ(try_claim(file, other.identity(), ClaimKind::kDaemon, now, now + 10 * kSecond, &found),
            ClaimOutcome::kTaken)
      << "a second daemon leaves a live holder's job alone";
  EXPECT_EQ(found.holder.pid, me.pid);
  EXPECT_EQ(found.kind, ClaimKind::kDaemon);
  EXPECT_EQ(found.lease_until_ns, now + 20 * kSecond);
  // Readers see the claim, and still accept the segment.
  const auto snap = read_segment(writer_->path());
  ASSERT_TRUE(snap) << snap.error().message;
  EXPECT_EQ(snap->header.claim_pid, static_cast<std::uint64_t>(me.pid));
  release_claim(file, other.identity());  // not its claim: nothing happens
  EXPECT_EQ(read_claim(file).holder.pid, me.pid);
  release_claim(file, me);
  EXPECT_FALSE(read_claim(file).held(now));
  EXPECT_EQ(try_claim(file, other.identity(), ClaimKind::kDaemon, now, now + kSecond),
            ClaimOutcome::kHeld);
}

TEST_F(ClaimTest, ALapsedLeaseOrADeadHolderFreesTheJobAnUnknownOneWaits) {
  const SegmentFile file = open();
  OtherProcess other;
  const std::uint64_t now = monotonic_ns();
  ASSERT_EQ(try_claim(file, other.identity(), ClaimKind::kDaemon, now, now + kSecond),
            ClaimOutcome::kHeld);
  EXPECT_EQ(
      try_claim(file, this_process(), ClaimKind::kDaemon, now + kSecond - 1, now + 3 * kSecond),
      ClaimOutcome::kTaken);
  EXPECT_EQ(try_claim(file, this_process(), ClaimKind::kDaemon, now + kSecond, now + 3 * kSecond),
            ClaimOutcome::kHeld)
      << "the lease lapsed";
  // A holder that died: its job is free at once.
  ProcessIdentity dead;
  {
    OtherProcess gone;
    dead = gone.identity();
  }
  release_claim(file, this_process());
  ASSERT_EQ(try_claim(file, dead, ClaimKind::kDaemon, now, now + 100 * kSecond),
            ClaimOutcome::kHeld);
  EXPECT_EQ(try_claim(file, this_process(), ClaimKind::kDaemon, now, now + kSecond),
            ClaimOutcome::kHeld);
  // A holder in a namespace this process cannot see into may be alive: wait for its lease.
  release_claim(file, this_process());
  ProcessIdentity elsewhere = dead;
  elsewhere.pid_namespace = 0;
  ASSERT_EQ(try_claim(file, elsewhere, ClaimKind::kDaemon, now, now + 100 * kSecond),
            ClaimOutcome::kHeld);
  EXPECT_EQ(try_claim(file, this_process(), ClaimKind::kDaemon, now, now + kSecond),
            ClaimOutcome::kTaken);
}

TEST_F(ClaimTest, TheEmbeddedAnalyzerHandsTheJobToADaemon) {
  const SegmentFile embedded_file = open();
  const SegmentFile daemon_file = open();
  OtherProcess daemon;
  const ProcessIdentity job = this_process();
  std::uint64_t now = monotonic_ns();
  ASSERT_EQ(try_claim(embedded_file, job, ClaimKind::kEmbedded, now, now + 10 * kSecond),
            ClaimOutcome::kHeld);
  Claim found;
  EXPECT_EQ(try_claim(daemon_file, daemon.identity(), ClaimKind::kDaemon, now, now + 10 * kSecond,
                      &found),
            ClaimOutcome::kTaken);
  EXPECT_EQ(found.kind, ClaimKind::kEmbedded);
  EXPECT_GT(read_claim(daemon_file).wanted_until_ns, now) << "the daemon asked for the job";
  // At its next window the embedded analyzer lets go; it does not take it back meanwhile.
  EXPECT_EQ(try_claim(embedded_file, job, ClaimKind::kEmbedded, now, now + 10 * kSecond),
            ClaimOutcome::kYielded);
  EXPECT_EQ(try_claim(embedded_file, job, ClaimKind::kEmbedded, now, now + 10 * kSecond),
            ClaimOutcome::kTaken);
  EXPECT_EQ(try_claim(daemon_file, daemon.identity(), ClaimKind::kDaemon, now, now + 10 * kSecond),
            ClaimOutcome::kHeld);
  EXPECT_EQ(read_claim(daemon_file).wanted_until_ns, 0u);
  EXPECT_EQ(try_claim(embedded_file, job, ClaimKind::kEmbedded, now, now + 10 * kSecond),
            ClaimOutcome::kTaken);
  // The daemon stops: the embedded analyzer takes over at once.
  release_claim(daemon_file, daemon.identity());
  EXPECT_EQ(try_claim(embedded_file, job, ClaimKind::kEmbedded, now, now + 10 * kSecond),
            ClaimOutcome::kHeld);
  // A daemon that asked and went away does not keep the embedded analyzer off for ever.
  now = monotonic_ns();
  ASSERT_EQ(try_claim(daemon_file, daemon.identity(), ClaimKind::kDaemon, now, now + kSecond),
            ClaimOutcome::kTaken);
  EXPECT_EQ(
      try_claim(embedded_file, job, ClaimKind::kEmbedded, now + 2 * kSecond, now + 12 * kSecond),
      ClaimOutcome::kHeld);
}

TEST_F(ClaimTest, TheLockedWordsAreNeitherReadNorChanged) {
  const SegmentFile holder = open();
  const SegmentFile other = open();
  ASSERT_TRUE(holder.try_lock(offsetof(SegmentHeader, claim_pid), 48));
  const std::uint64_t now = monotonic_ns();
  EXPECT_EQ(try_claim(other, this_process(), ClaimKind::kDaemon, now, now + kSecond),
            ClaimOutcome::kBusy);
  holder.unlock(offsetof(SegmentHeader, claim_pid), 48);
  EXPECT_EQ(try_claim(other, this_process(), ClaimKind::kDaemon, now, now + kSecond),
            ClaimOutcome::kHeld);
}

// Four analyzers (four live processes' identities, each with its own descriptor) race for the
// claim for a while, each renewing for a random number of rounds and then standing still (a
// stalled holder whose lease must lapse). Every interval during which one held the claim is
// recorded: no two overlap.
TEST_F(ClaimTest, NoTwoAnalyzersHoldTheJobAtOnce) {
  constexpr int kParties = 4;
  constexpr std::uint64_t kLease = 20'000'000;  // 20 ms
  std::vector<OtherProcess> processes(kParties);
  struct Held {
    int party;
    std::uint64_t from, until;
  };
  std::mutex mutex;
  std::vector<Held> held;
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int p = 0; p < kParties; ++p)
    threads.emplace_back([&, p] {
      const SegmentFile file = open();
      unsigned seed = static_cast<unsigned>(p + 1);
      while (!stop.load()) {
        const std::uint64_t now = monotonic_ns();
        if (try_claim(file, processes[p].identity(), ClaimKind::kDaemon, now, now + kLease) ==
            ClaimOutcome::kHeld) {
          std::lock_guard lock(mutex);
          held.push_back({p, now, now + kLease});
        }
        // Sometimes stall past the lease: another party must take over, never earlier.
        seed = seed * 1103515245u + 12345u;
        std::this_thread::sleep_for(
            std::chrono::microseconds((seed >> 16) % 8 == 0 ? 30000 : 2000));
      }
    });
  std::this_thread::sleep_for(std::chrono::seconds(2));
  stop.store(true);
  for (auto& t : threads) t.join();
  std::sort(held.begin(), held.end(), [](const Held& a, const Held& b) { return a.from < b.from; });
  int handovers = 0;
  for (std::size_t i = 1; i < held.size(); ++i) {
    if (held[i].party == held[i - 1].party) continue;
    ++handovers;
    // The last interval of the previous holder ends before the new one's first begins.
    std::uint64_t previous_until = 0;
    for (std::size_t k = 0; k < i; ++k)
      if (held[k].party != held[i].party) previous_until = std::max(previous_until, held[k].until);
    EXPECT_GE(held[i].from, previous_until)
        << "party " << held[i].party << " took the claim while another's lease held";
  }
  EXPECT_GT(handovers, 0) << "the stalls never let another party in: the test tested nothing";
}

TEST_F(ClaimTest, AJobClaimActsOnlyWhileItsLeaseHasTheMarginLeft) {
  auto claim = JobClaim::open(writer_->path(), ClaimKind::kDaemon);
  ASSERT_TRUE(claim) << claim.error().message;
  EXPECT_FALSE(claim->acting()) << "not before it holds the claim";
  ASSERT_EQ(claim->renew(kActMargin + 200'000'000), ClaimOutcome::kHeld);
  EXPECT_TRUE(claim->acting());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(claim->acting()) << "less than the margin left: the holder stops acting";
  ASSERT_EQ(claim->renew(10 * kSecond), ClaimOutcome::kHeld);
  EXPECT_TRUE(claim->acting());
  claim->release();
  EXPECT_FALSE(claim->acting());
  EXPECT_FALSE(claim->recorded().held(monotonic_ns()));
}

}  // namespace
}  // namespace symmer::segment
