// SPDX-License-Identifier: BSD-3-Clause
// check_job_process: symmerd acts from outside only on processes that really are the job's.
#include "job_process.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../segment/segment_test_util.hpp"
#include "symmer/segment/process_identity.hpp"

extern char** environ;

namespace symmer::daemon {
namespace {

using segment::testing::TempSegmentDir;
using ::testing::HasSubstr;

class JobProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    auto w = segment::SegmentWriter::create(segment::testing::small_params(dir_.path(), 1));
    ASSERT_TRUE(w) << w.error().message;
    writer_.emplace(std::move(*w));  // keeps the segment mapped in this process
    claim_ = {::getpid(), segment::this_process().start_ticks, ::geteuid(), writer_->path()};
  }
  TempSegmentDir dir_;
  std::optional<segment::SegmentWriter> writer_;
  JobProcessClaim claim_;
};

TEST_F(JobProcess, AcceptsAProcessThatMapsTheSegment) {
  const auto ok = check_job_process(claim_);
  EXPECT_TRUE(ok) << (ok ? "" : ok.error().message);
}

TEST_F(JobProcess, RefusesAProcessOfAnotherOwner) {
  auto claim = claim_;
  claim.owner_uid = ::geteuid() + 4321;
  const auto r = check_job_process(claim);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("not as the job's owner"));
}

TEST_F(JobProcess, RefusesAReusedPid) {
  auto claim = claim_;
  claim.start_ticks += 1;
  const auto r = check_job_process(claim);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("not the process the segment recorded"));
}

TEST_F(JobProcess, RefusesAProcessThatDoesNotMapTheSegment) {
  // Same user, alive, but not attached to the job: what a forged slot would name.
  pid_t child = 0;
  char sleep_arg[] = "sleep";
  char seconds[] = "30";
  char* argv[] = {sleep_arg, seconds, nullptr};
  ASSERT_EQ(::posix_spawnp(&child, "sleep", nullptr, nullptr, argv, environ), 0);
  std::uint64_t ticks = 0;
  for (int i = 0; i < 1000 && ticks == 0; ++i) ticks = segment::process_start_ticks(child);
  auto claim = claim_;
  claim.pid = child;
  claim.start_ticks = ticks;
  const auto r = check_job_process(claim);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("does not map"));
}

TEST_F(JobProcess, RefusesMissingProcessesAndSegments) {
  auto claim = claim_;
  claim.pid = 0;
  EXPECT_FALSE(check_job_process(claim));
  claim.pid = 1 << 30;
  EXPECT_THAT(check_job_process(claim).error().message, HasSubstr("no such process"));
  claim = claim_;
  claim.segment_path = dir_.path() + "/gone";
  EXPECT_THAT(check_job_process(claim).error().message, HasSubstr("gone"));
}

}  // namespace
}  // namespace symmer::daemon
