// SPDX-License-Identifier: BSD-3-Clause
// A segment shrunk, grown or removed under a mapping of it: no fault, and the writer tells.
#include "symmer/segment/guarded_mapping.hpp"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "segment_test_util.hpp"
#include "symmer/segment/segment_file.hpp"
#include "symmer/segment/shared_words.hpp"

namespace symmer::segment {
namespace {

using ::testing::HasSubstr;
using testing::TempSegmentDir;

TEST(GuardedMapping, ATruncatedFileFaultsNobody) {
  TempSegmentDir dir;
  const std::string path = dir.path() + "/f";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(4 * page)), 0);
  auto map = GuardedMapping::map(fd, 4 * page);
  ASSERT_TRUE(map) << map.error().message;
  auto* words = static_cast<std::uint64_t*>(map->data());
  store_word(words[0], 7);
  EXPECT_FALSE(map->lost());
  ASSERT_EQ(::ftruncate(fd, 0), 0);    // its owner truncates it under the job
  store_word(words[page / 8 * 3], 9);  // past the new end: SIGBUS, caught
  EXPECT_TRUE(map->lost());
  EXPECT_EQ(load_word(words[page / 8 * 3]), 9u) << "the store landed in private memory";
  EXPECT_EQ(load_word(words[0]), 0u) << "the whole mapping was replaced";
  ::close(fd);
}

TEST(GuardedMapping, AWordStoreIntoAShrunkFileFails) {
  TempSegmentDir dir;
  const std::string path = dir.path() + "/symmer-0-0000000000000001-0";
  {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0600);
    ASSERT_EQ(::ftruncate(fd, 8192), 0);
    ::close(fd);
  }
  auto file = SegmentFile::open(path, SegmentFile::Access::kReadWrite);
  ASSERT_TRUE(file);
  EXPECT_TRUE(file->store_word(4096, 5));
  std::uint64_t w = 0;
  ASSERT_TRUE(file->read_word_stable(4096, w));
  EXPECT_EQ(w, 5u);
  ASSERT_EQ(::truncate(path.c_str(), 100), 0);
  EXPECT_FALSE(file->store_word(4096, 6));
  EXPECT_FALSE(file->store_word(96, 6)) << "the word ends past the new end";
  EXPECT_TRUE(file->store_word(16, 6));
}

TEST(SegmentWriter, SaysWhenItsFileIsNoLongerWhatItMade) {
  TempSegmentDir dir;
  auto w = SegmentWriter::create(testing::small_params(dir.path(), 16));  // several pages
  ASSERT_TRUE(w) << w.error().message;
  EXPECT_TRUE(w->intact());
  const auto total = w->header().total_size;
  ASSERT_EQ(::truncate(w->path().c_str(), static_cast<off_t>(total + 4096)), 0);
  EXPECT_THAT(w->intact().error().message, HasSubstr("resized"));
  ASSERT_EQ(::truncate(w->path().c_str(), static_cast<off_t>(total / 4)), 0);
  store_word(w->counters(15).publish_count, 1);  // the last slot is pages past the new end
  EXPECT_THAT(w->intact().error().message, HasSubstr("shrank under the job"));
  auto other = SegmentWriter::create([&] {
    auto p = testing::small_params(dir.path(), 1);
    p.job_id = 99;
    return p;
  }());
  ASSERT_TRUE(other);
  ASSERT_EQ(::unlink(other->path().c_str()), 0);
  EXPECT_THAT(other->intact().error().message, HasSubstr("removed"));
}

TEST(SegmentWriter, LeavesAFileThatTookItsNameAlone) {
  TempSegmentDir dir;
  auto w = SegmentWriter::create(testing::small_params(dir.path(), 1));
  ASSERT_TRUE(w);
  const std::string path = w->path();
  ASSERT_EQ(::unlink(path.c_str()), 0);
  ASSERT_EQ(::symlink("/etc/hostname", path.c_str()), 0);  // something else under its name
  EXPECT_FALSE(w->remove());
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << "the link was removed";
}

TEST(SegmentWriter, AttachingASlotSomeoneElseWritesFails) {
  TempSegmentDir dir;
  auto w = SegmentWriter::create(testing::small_params(dir.path(), 2));
  ASSERT_TRUE(w);
  store_word(w->identity(1).seq, 3);  // odd: a writer inside, for ever
  EXPECT_FALSE(w->attach_slot(1, 1, mask_of(std::vector<int>{0}), 0));
  EXPECT_TRUE(w->attach_slot(0, 0, mask_of(std::vector<int>{0}), 0));
  SeqlockWriter seq(w->identity(0).seq);
  EXPECT_TRUE(seq.try_begin());
  seq.end();
  store_word(w->identity(0).seq, 100);  // someone else's count
  EXPECT_FALSE(seq.try_begin()) << "a writer never waits for, nor overwrites, another's";
}

}  // namespace
}  // namespace symmer::segment
