// SPDX-License-Identifier: BSD-3-Clause
// StrictModes-style directory checks: what symmerd accepts to create its socket and logs in.
#include "private_directory.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "../segment/segment_test_util.hpp"

namespace symmer::daemon {
namespace {

using segment::testing::TempSegmentDir;
using ::testing::HasSubstr;

constexpr uid_t kStranger = 65534;

TEST(PrivateDirectory, AcceptsADirectoryOnlyItsOwnerMayChange) {
  TempSegmentDir tmp;  // under /tmp: sticky and writable by all, which is fine above
  const std::string dir = tmp.path() + "/run";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  auto fd = open_private_directory(dir, ::geteuid());
  ASSERT_TRUE(fd) << fd.error().message;
  struct stat st {};
  ASSERT_EQ(::fstat(fd->get(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
}

TEST(PrivateDirectory, RefusesADirectoryOthersMayWriteIn) {
  TempSegmentDir tmp;
  const std::string dir = tmp.path() + "/run";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  auto fd = open_private_directory(dir, ::geteuid());
  ASSERT_FALSE(fd);
  EXPECT_THAT(fd.error().message, HasSubstr("writable by others (mode 0777)"));
  // Sticky is no excuse for the directory itself: others could still add a name to it.
  ASSERT_EQ(::chmod(dir.c_str(), 01777), 0);
  EXPECT_FALSE(open_private_directory(dir, ::geteuid()));
  // A directory above that others may write in but not rename in (sticky) is fine...
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(tmp.path().c_str(), 01777), 0);
  EXPECT_TRUE(open_private_directory(dir, ::geteuid()));
  // ... one that is not sticky is not: anyone could swap `run` for their own.
  ASSERT_EQ(::chmod(tmp.path().c_str(), 0777), 0);
  auto above = open_private_directory(dir, ::geteuid());
  ASSERT_FALSE(above);
  EXPECT_THAT(above.error().message, HasSubstr(tmp.path() + " is writable by others"));
}

TEST(PrivateDirectory, RefusesADirectoryOfAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another user";
  TempSegmentDir tmp;
  const std::string dir = tmp.path() + "/run";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chown(dir.c_str(), kStranger, kStranger), 0);
  auto fd = open_private_directory(dir, 0);
  ASSERT_FALSE(fd);
  EXPECT_THAT(fd.error().message, HasSubstr("belongs to uid 65534"));
  // That user's own daemon may use it.
  EXPECT_TRUE(open_private_directory(dir, kStranger));
}

TEST(PrivateDirectory, CreatesTheLastDirectoryOnlyAndReadableByAll) {
  TempSegmentDir tmp;
  const std::string dir = tmp.path() + "/run";
  const mode_t old = ::umask(077);
  auto fd = open_private_directory(dir, ::geteuid(), true);
  ::umask(old);
  ASSERT_TRUE(fd) << fd.error().message;
  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u) << "clients must reach the socket whatever the umask";
  EXPECT_FALSE(open_private_directory(tmp.path() + "/a/b", ::geteuid(), true));
}

TEST(PrivateDirectory, ResolvesSymlinksBeforeCheckingWhatTheyLeadTo) {
  TempSegmentDir tmp;
  const std::string real = tmp.path() + "/real";
  ASSERT_EQ(::mkdir(real.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(real.c_str(), 0777), 0);
  std::filesystem::create_directory_symlink(real, tmp.path() + "/link");
  auto fd = open_private_directory(tmp.path() + "/link", ::geteuid());
  ASSERT_FALSE(fd);
  EXPECT_THAT(fd.error().message, HasSubstr(real + " is writable by others"));
  EXPECT_FALSE(open_private_directory("relative/dir", ::geteuid()));
}

}  // namespace
}  // namespace symmer::daemon
