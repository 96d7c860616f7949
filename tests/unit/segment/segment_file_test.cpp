// SPDX-License-Identifier: BSD-3-Clause
// SegmentFile: what it opens (a regular file of one link, reached without a symlink), and its
// bounded pread/pwrite copies and locks.
#include "symmer/segment/segment_file.hpp"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "segment_test_util.hpp"

namespace symmer::segment {
namespace {

using ::testing::HasSubstr;
using testing::TempSegmentDir;

class SegmentFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/symmer-0-0000000000000001-0";
    std::ofstream(path_) << std::string(64, '\0');
  }
  TempSegmentDir dir_;
  std::string path_;
};

TEST_F(SegmentFileTest, ReadsAndWritesWordsWithinTheFile) {
  auto file = SegmentFile::open(path_, SegmentFile::Access::kReadWrite);
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->status().st_size, 64);
  ASSERT_TRUE(file->write_word(8, 0x1122334455667788ull));
  std::uint64_t w = 0;
  ASSERT_TRUE(file->read_word(8, w));
  EXPECT_EQ(w, 0x1122334455667788ull);
  EXPECT_FALSE(file->read_word(60, w)) << "a read past the end is refused, not a fault";
  EXPECT_FALSE(file->write_word(64, 1)) << "a write never grows the file";
  EXPECT_EQ(file->current_size(), 64u);
  // Shrunk under it: reads past the new end fail, nothing faults.
  ASSERT_EQ(::truncate(path_.c_str(), 8), 0);
  EXPECT_FALSE(file->read_word(8, w));
  EXPECT_FALSE(file->write_word(8, 1));
  EXPECT_EQ(file->current_size(), 8u);
}

TEST_F(SegmentFileTest, ASeqlockCopyNeedsAnEvenUnchangedWord) {
  auto file = SegmentFile::open(path_, SegmentFile::Access::kReadWrite);
  ASSERT_TRUE(file);
  std::byte out[16];
  ASSERT_TRUE(file->write_word(16, 4));
  EXPECT_TRUE(file->read_consistent(16, out, 4));
  ASSERT_TRUE(file->write_word(16, 5));  // a writer inside, for ever
  EXPECT_FALSE(file->read_consistent(16, out, 4));
  EXPECT_FALSE(file->read_consistent(56, out, 4)) << "past the end";
}

TEST_F(SegmentFileTest, RefusesWhatIsNotASegmentFile) {
  const std::string link = dir_.path() + "/link";
  ASSERT_EQ(::symlink(path_.c_str(), link.c_str()), 0);
  auto r = SegmentFile::open(link, SegmentFile::Access::kRead);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("a symlink"));
  const std::string hard = dir_.path() + "/hard";
  ASSERT_EQ(::link(path_.c_str(), hard.c_str()), 0);
  r = SegmentFile::open(hard, SegmentFile::Access::kRead);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("2 links"));
  ASSERT_EQ(::unlink(hard.c_str()), 0);
  const std::string fifo = dir_.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  r = SegmentFile::open(fifo, SegmentFile::Access::kReadWrite);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("not a regular file"));
  r = SegmentFile::open(dir_.path(), SegmentFile::Access::kRead);
  ASSERT_FALSE(r);
  r = SegmentFile::open(dir_.path() + "/missing", SegmentFile::Access::kRead);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::kNotFound);
}

TEST_F(SegmentFileTest, LocksExcludeOtherOpensOfTheFile) {
  auto a = SegmentFile::open(path_, SegmentFile::Access::kReadWrite);
  auto b = SegmentFile::open(path_, SegmentFile::Access::kReadWrite);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->try_lock(0, 16));
  EXPECT_FALSE(b->try_lock(8, 16)) << "overlapping range held by another open";
  EXPECT_TRUE(b->try_lock(16, 16)) << "a range of its own";
  a->unlock(0, 16);
  EXPECT_TRUE(b->try_lock(0, 16));
}

}  // namespace
}  // namespace symmer::segment
