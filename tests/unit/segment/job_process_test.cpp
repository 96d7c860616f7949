// SPDX-License-Identifier: BSD-3-Clause
// check_job_process: a pid a segment names counts for the job only when it really is one of
// the job's processes.
#include "symmer/segment/job_process.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "segment_test_util.hpp"
#include "symmer/segment/process_identity.hpp"

extern char** environ;

namespace symmer::segment {
namespace {

using ::testing::HasSubstr;
using testing::TempSegmentDir;

class JobProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    auto w = SegmentWriter::create(testing::small_params(dir_.path(), 1));
    ASSERT_TRUE(w) << w.error().message;
    writer_.emplace(std::move(*w));  // keeps the segment mapped in this process
    struct stat st {};
    ASSERT_EQ(::stat(writer_->path().c_str(), &st), 0);
    claim_ = {::getpid(),     this_process().start_ticks, ::geteuid(), st.st_dev, st.st_ino,
              writer_->path()};
  }
  TempSegmentDir dir_;
  std::optional<SegmentWriter> writer_;
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
  for (int i = 0; i < 1000 && ticks == 0; ++i) ticks = process_start_ticks(child);
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
  const auto gone = check_job_process(claim);
  EXPECT_EQ(gone.error().code, Errc::kNotFound);
  // Another file of the same user is not this segment.
  claim = claim_;
  claim.inode += 1;
  EXPECT_THAT(check_job_process(claim).error().message, HasSubstr("does not map"));
}

// A /proc that cannot be read says nothing about the process: "unknown", never "gone".
TEST_F(JobProcess, AnUnreadableProcIsUnknownNotEnded) {
  TempSegmentDir fake_proc;  // a /proc whose entry for our pid cannot be opened
  const std::string entry = fake_proc.path() + "/" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(entry.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((entry + "/stat").c_str(), 0), 0);  // opening a directory to read: EISDIR
  const auto r = check_job_process(claim_, fake_proc.path());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::kIo) << r.error().message;
  const auto ticks = read_start_ticks(::getpid(), fake_proc.path());
  ASSERT_FALSE(ticks);
  EXPECT_EQ(ticks.error().code, Errc::kIo);
  EXPECT_EQ(read_start_ticks(1 << 30).error().code, Errc::kNotFound);
}

}  // namespace
}  // namespace symmer::segment
