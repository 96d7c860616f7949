// SPDX-License-Identifier: BSD-3-Clause
// Writer -> reader round trip, and the reader's rejection of every kind of bad segment.
#include "symmer/segment/reader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "segment_test_util.hpp"
#include "symmer/segment/control.hpp"
#include "symmer/segment/naming.hpp"
#include "symmer/segment/report.hpp"
#include "symmer/segment/segment_file.hpp"
#include "symmer/segment/shared_words.hpp"
#include "symmer/segment/writer.hpp"

namespace symmer::segment {
namespace {

using ::testing::HasSubstr;
using testing::poke;
using testing::small_params;
using testing::TempSegmentDir;

// Offset of a field of slot `i` in the file of `w`.
std::uint64_t slot_field(const SegmentWriter& w, std::uint64_t i, std::size_t field_offset) {
  return w.header().slots_offset + i * w.header().slot_size + field_offset;
}

// Publishes some recognisable figures into slot `i` the way the shim does.
void publish(const SegmentWriter& w, std::uint64_t i, std::uint64_t base) {
  SeqlockWriter seq(w.identity(i).seq);
  ASSERT_TRUE(seq.try_begin());
  SlotCounters& k = w.counters(i);
  store_word(k.publish_count, 1);
  store_word(k.last_publish_ns, monotonic_ns());
  store_word(k.idle_ns, base + 1);
  store_word(k.compute_ns, base + 2);
  store_word(k.out_of_sync_ns, base + 1);
  store_word(k.bytes_sent, base + 3);
  store_word(k.calls[static_cast<std::size_t>(CallClass::kWait)], 5);
  store_word(w.peers(i)[1].bytes_sent, base + 4);
  store_word(w.peers(i)[w.header().local_ranks].late_sender_ns, base + 5);
  seq.end();
}

TEST(SegmentReader, ReadsWhatTheWriterPublished) {
  TempSegmentDir dir;
  auto w = SegmentWriter::create(small_params(dir.path()));
  ASSERT_TRUE(w) << w.error().to_string();
  w->attach_slot(0, 3, mask_of(std::vector<int>{0}), 2);
  publish(*w, 0, 100);

  auto snap = read_segment(w->path());
  ASSERT_TRUE(snap) << snap.error().to_string();
  EXPECT_EQ(snap->header.job_id, 0x1234abcd5678ef01ull);
  EXPECT_EQ(snap->header.local_ranks, 2u);
  EXPECT_EQ(snap->header.node_buckets, 2u);
  EXPECT_EQ(snap->header.owner_uid, ::geteuid());
  EXPECT_EQ(snap->header.creator_pid, static_cast<std::uint64_t>(::getpid()));
  EXPECT_STREQ(snap->header.app_name, "unit-test");
  ASSERT_EQ(snap->slots.size(), 2u);
  const SlotSnapshot& s = snap->slots[0];
  EXPECT_EQ(s.state(), SlotState::kActive);
  EXPECT_EQ(s.identity.global_rank, 3u);
  EXPECT_EQ(s.identity.pid, static_cast<std::uint64_t>(::getpid()));
  EXPECT_EQ(s.counters.idle_ns, 101u);
  EXPECT_EQ(s.counters.compute_ns, 102u);
  EXPECT_EQ(s.counters.bytes_sent, 103u);
  EXPECT_EQ(s.local_peers[1].bytes_sent, 104u);
  EXPECT_EQ(s.remote_nodes[0].late_sender_ns, 105u);
  EXPECT_EQ(mask_cpus(s.placement.launch), std::vector<int>{0});
  EXPECT_EQ(mask_cpus(s.placement.current), std::vector<int>{0});
  EXPECT_EQ(s.placement.compute_threads, 2u);
  EXPECT_EQ(mask_count(s.placement.runtime_workers), 0);
  EXPECT_EQ(snap->slots[1].state(), SlotState::kFree);
  EXPECT_EQ(job_liveness(*snap), Liveness::kAlive);

  const auto j = to_json(*snap);
  EXPECT_EQ(j["ranks"][0]["idle_ns"], 101u);
  EXPECT_EQ(j["ranks"][0]["calls"]["wait"], 5u);
  EXPECT_EQ(j["ranks"][0]["local_peers"][0]["local_rank"], 1u);
  EXPECT_EQ(j["ranks"][0]["cache_misses"], nullptr);
  EXPECT_EQ(j["ranks"][0]["cpus"], "0");
  EXPECT_EQ(j["ranks"][0]["launch_cpus"], "0");
  EXPECT_EQ(j["ranks"][1]["state"], "free");
  EXPECT_THAT(to_table({&*snap}), HasSubstr("unit-test"));
}

TEST(SegmentReader, AttachChecksJobNodeAndSize) {
  TempSegmentDir dir;
  auto w = SegmentWriter::create(small_params(dir.path()));
  ASSERT_TRUE(w);
  EXPECT_TRUE(SegmentWriter::attach(w->path(), 0x1234abcd5678ef01ull, 3, 2));
  EXPECT_FALSE(SegmentWriter::attach(w->path(), 0x1234abcd5678ef02ull, 3, 2));
  EXPECT_FALSE(SegmentWriter::attach(w->path(), 0x1234abcd5678ef01ull, 4, 2));
  EXPECT_FALSE(SegmentWriter::attach(w->path(), 0x1234abcd5678ef01ull, 3, 3));
  EXPECT_FALSE(SegmentWriter::attach(dir.path() + "/missing", 1, 3, 2));
}

struct Corruption {
  const char* name;
  std::uint64_t (*offset)(const SegmentWriter&);
  std::uint64_t value;
  const char* message;
  int words = 1;  ///< consecutive words set to `value`
};

void PrintTo(const Corruption& c, std::ostream* os) { *os << c.name; }

const Corruption kCorruptions[] = {
    {"magic", [](const SegmentWriter&) { return std::uint64_t{offsetof(SegmentHeader, magic)}; },
     0xdeadbeef, "wrong magic"},
    {"version",
     [](const SegmentWriter&) { return std::uint64_t{offsetof(SegmentHeader, version)}; }, 99,
     "version = 99"},
    {"local_ranks_huge",
     [](const SegmentWriter&) { return std::uint64_t{offsetof(SegmentHeader, local_ranks)}; },
     1u << 20, "local_ranks"},
    {"local_ranks_other_size",
     [](const SegmentWriter&) { return std::uint64_t{offsetof(SegmentHeader, local_ranks)}; }, 3,
     "slot_size"},
    {"total_size",
     [](const SegmentWriter&) { return std::uint64_t{offsetof(SegmentHeader, total_size)}; }, 4096,
     "total_size"},
    {"node_index",
     [](const SegmentWriter&) { return std::uint64_t{offsetof(SegmentHeader, node_index)}; }, 2,
     "node_index"},
    {"job_id", [](const SegmentWriter&) { return std::uint64_t{offsetof(SegmentHeader, job_id)}; },
     0, "job_id"},
    {"creator_pid",
     [](const SegmentWriter&) { return std::uint64_t{offsetof(SegmentHeader, creator_pid)}; }, 0,
     "creator_pid"},
    {"thread_level",
     [](const SegmentWriter&) { return std::uint64_t{offsetof(SegmentHeader, thread_level)}; }, 7,
     "thread_level"},
    {"hostname_unterminated",
     [](const SegmentWriter&) { return std::uint64_t{offsetof(SegmentHeader, hostname)}; },
     0x4141414141414141ull, "hostname", 8},
    {"slot_state",
     [](const SegmentWriter& w) { return slot_field(w, 0, offsetof(SlotIdentity, state)); }, 9,
     "slot 0 state"},
    {"slot_pid_zero",
     [](const SegmentWriter& w) { return slot_field(w, 0, offsetof(SlotIdentity, pid)); }, 0,
     "slot 0 pid = 0"},
    {"slot_cpu_9999",
     [](const SegmentWriter& w) { return slot_field(w, 0, offsetof(SlotIdentity, cpu)); }, 9999,
     "slot 0 cpu = 9999"},
    {"slot_local_rank",
     [](const SegmentWriter& w) { return slot_field(w, 0, offsetof(SlotIdentity, local_rank)); }, 2,
     "slot 0 local_rank = 2"},
    {"slot_global_rank",
     [](const SegmentWriter& w) { return slot_field(w, 0, offsetof(SlotIdentity, global_rank)); },
     4, "global_rank = 4"},
    {"slot_idle_impossible",
     [](const SegmentWriter& w) {
       return slot_field(w, 0, kSlotCountersOffset + offsetof(SlotCounters, idle_ns));
     },
     std::uint64_t{1} << 62, "idle_ns"},
    {"slot_out_of_sync_above_compute",
     [](const SegmentWriter& w) {
       return slot_field(w, 0, kSlotCountersOffset + offsetof(SlotCounters, out_of_sync_ns));
     },
     1000, "out_of_sync_ns"},
    {"slot_ack_cpu",
     [](const SegmentWriter& w) {
       return slot_field(w, 0, kSlotControlOffset + offsetof(SlotControl, ack));
     },
     encode_ack({1, AckStatus::kOk, 100000}), "ack.cpu"},
    {"placement_launch_empty",
     [](const SegmentWriter& w) {
       return slot_field(w, 0, kSlotPlacementOffset + offsetof(SlotPlacement, launch));
     },
     0, "placement.launch is empty", static_cast<int>(kCpuMaskWords)},
    {"placement_cpu_this_node_lacks",
     [](const SegmentWriter& w) {
       return slot_field(w, 0,
                         kSlotPlacementOffset + offsetof(SlotPlacement, runtime_control) + 8 * 15);
     },
     std::uint64_t{1} << 63, "placement.runtime_control = 1023"},
    {"command_kind",
     [](const SegmentWriter& w) {
       return slot_field(w, 0, kSlotControlOffset + offsetof(SlotControl, command));
     },
     encode_command({1, static_cast<CommandKind>(7)}), "command.kind = 7"},
    {"free_slot_with_pid",
     [](const SegmentWriter& w) { return slot_field(w, 1, offsetof(SlotIdentity, pid)); }, 1234,
     "slot 1 pid"},
};

class SegmentReaderRejects : public ::testing::TestWithParam<Corruption> {};

TEST_P(SegmentReaderRejects, NamesTheBadField) {
  const Corruption& c = GetParam();
  TempSegmentDir dir;
  auto w = SegmentWriter::create(small_params(dir.path()));
  ASSERT_TRUE(w);
  w->attach_slot(0, 1, mask_of(std::vector<int>{0}), 0);
  ASSERT_TRUE(read_segment(w->path()));
  for (int i = 0; i < c.words; ++i) poke(w->path(), c.offset(*w) + 8 * i, c.value);
  auto snap = read_segment(w->path());
  ASSERT_FALSE(snap) << c.name;
  EXPECT_EQ(snap.error().code, Errc::kParse);
  EXPECT_THAT(snap.error().message, HasSubstr(c.message));
  EXPECT_THAT(snap.error().message, HasSubstr(w->path()));
}

INSTANTIATE_TEST_SUITE_P(Fields, SegmentReaderRejects, ::testing::ValuesIn(kCorruptions),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(SegmentReader, RejectsTruncatedFiles) {
  TempSegmentDir dir;
  auto w = SegmentWriter::create(small_params(dir.path()));
  ASSERT_TRUE(w);
  const std::uint64_t total = w->header().total_size;
  ASSERT_EQ(::truncate(w->path().c_str(), static_cast<off_t>(total - 64)), 0);
  auto snap = read_segment(w->path());
  ASSERT_FALSE(snap);
  EXPECT_THAT(snap.error().message, HasSubstr("truncated"));
  ASSERT_EQ(::truncate(w->path().c_str(), 100), 0);
  snap = read_segment(w->path());
  ASSERT_FALSE(snap);
  EXPECT_THAT(snap.error().message, HasSubstr("smaller than the 512-byte header"));
  ASSERT_EQ(::truncate(w->path().c_str(), 0), 0);
  EXPECT_FALSE(read_segment(w->path()));
}

TEST(SegmentReader, RejectsRenamedCopies) {
  TempSegmentDir dir;
  auto w = SegmentWriter::create(small_params(dir.path()));
  ASSERT_TRUE(w);
  const std::string other = dir.path() + "/" + segment_file_name(::geteuid(), 42, 3);
  std::filesystem::copy_file(w->path(), other);
  auto snap = read_segment(other);
  ASSERT_FALSE(snap);
  EXPECT_THAT(snap.error().message, HasSubstr("file name does not match"));
}

TEST(SegmentReader, RejectsMissingAndNonRegularFiles) {
  TempSegmentDir dir;
  auto missing = read_segment(dir.path() + "/symmer-0-0000000000000001-0");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, Errc::kNotFound);
  auto directory = read_segment(dir.path());
  ASSERT_FALSE(directory);
}

TEST(SegmentReader, RejectsSegmentsOwnedByAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown a file to another user";
  TempSegmentDir dir;
  auto w = SegmentWriter::create(small_params(dir.path()));
  ASSERT_TRUE(w);
  ASSERT_EQ(::chown(w->path().c_str(), 65534, 65534), 0);
  auto snap = read_segment(w->path());
  ASSERT_FALSE(snap);
  EXPECT_THAT(snap.error().message,
              HasSubstr("owner_uid = 0, expected the file's owner uid 65534"));
  ReadOptions mine;
  mine.other_users = false;
  snap = read_segment(w->path(), mine);
  ASSERT_FALSE(snap);
  EXPECT_THAT(snap.error().message, HasSubstr("owned by uid 65534, not by this user"));
}

// A pid that surely is dead: a child that exited and was reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

// A segment whose creator is dead, as a crashed job leaves it.
std::string stale_segment(const std::string& dir, std::uint64_t job_id) {
  auto params = small_params(dir);
  params.job_id = job_id;
  auto w = SegmentWriter::create(params);
  EXPECT_TRUE(w) << w.error().message;
  poke(w->path(), offsetof(SegmentHeader, creator_pid), static_cast<std::uint64_t>(dead_pid()));
  return w->path();
}

TEST(SegmentReader, StaleSegmentOfDeadJobIsRemovedByScan) {
  TempSegmentDir dir;
  auto params = small_params(dir.path());
  params.job_id = 77;
  auto live = SegmentWriter::create(params);
  ASSERT_TRUE(live);
  const std::string path = stale_segment(dir.path(), 78);
  auto snap = read_segment(path);
  ASSERT_TRUE(snap) << snap.error().to_string();
  EXPECT_EQ(job_liveness(*snap), Liveness::kDead);

  const auto entries = scan_segments(dir.path());
  ASSERT_EQ(entries.size(), 2u);
  int removed = 0;
  for (const auto& e : entries) removed += e.removed_stale;
  EXPECT_EQ(removed, 1);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::exists(live->path()));
}

TEST(SegmentReader, TheNextJobRemovesItsUsersStaleSegments) {
  TempSegmentDir dir;
  const std::string dead = stale_segment(dir.path(), 78);
  // Corrupt, and its creator field names no process of it: nobody needs it either (once it
  // has not changed for the grace period: 0 here).
  const std::string garbage = dir.path() + "/" + segment_file_name(::geteuid(), 79, 3);
  std::ofstream(garbage) << std::string(4096, 'x');
  auto file = SegmentFile::open(garbage, SegmentFile::Access::kRead);
  ASSERT_TRUE(file);
  EXPECT_EQ(segment_liveness(*file, read_segment(*file), 0), Liveness::kDead);
  EXPECT_EQ(segment_liveness(*file, read_segment(*file)), Liveness::kUnknown)
      << "just written: it could be a segment being made";
  auto params = small_params(dir.path());
  params.job_id = 80;
  auto next = SegmentWriter::create(params);
  ASSERT_TRUE(next);
  EXPECT_FALSE(std::filesystem::exists(dead)) << "the next job of the user removes it";
  EXPECT_EQ(remove_stale_segments(dir.path(), ::geteuid()), 0) << "only the live one is left, "
                                                                  "and the fresh garbage";
}

// A process of the segment's owner that does not map it keeps no job alive: a segment may
// name any pid (pid 1, another user's process, a process of the same user elsewhere).
TEST(SegmentReader, APidThatIsNotTheJobsKeepsNoJobAlive) {
  TempSegmentDir dir;
  std::string path;
  {
    auto w = SegmentWriter::create(small_params(dir.path()));
    ASSERT_TRUE(w);
    path = w->path();
  }  // unmapped: this process is no longer one of the job's
  auto snap = read_segment(path);
  ASSERT_TRUE(snap);
  EXPECT_EQ(job_liveness(*snap), Liveness::kDead);
  // Another live process of the same user that does not map it.
  const pid_t other = ::fork();
  if (other == 0) {
    ::pause();
    ::_exit(0);
  }
  std::uint64_t ticks = 0;
  for (int i = 0; i < 1000 && ticks == 0; ++i) ticks = process_start_ticks(other);
  poke(path, offsetof(SegmentHeader, creator_pid), static_cast<std::uint64_t>(other));
  poke(path, offsetof(SegmentHeader, creator_start_ticks), ticks);
  snap = read_segment(path);
  ASSERT_TRUE(snap);
  const Liveness l = job_liveness(*snap);
  ::kill(other, SIGKILL);
  ::waitpid(other, nullptr, 0);
  EXPECT_EQ(l, Liveness::kDead) << "a live process, but not one of the job's";
}

TEST(SegmentReader, ReusedPidWithOtherStartTimeIsDead) {
  ProcessIdentity me = this_process();
  ASSERT_GT(me.start_ticks, 0u);
  EXPECT_EQ(liveness(me), Liveness::kAlive);
  me.start_ticks += 1;
  EXPECT_EQ(liveness(me), Liveness::kDead);
  me = this_process();
  me.pid_namespace += 1;
  EXPECT_EQ(liveness(me), Liveness::kUnknown);
}

TEST(SegmentWriter, ReplacesOnlyOwnStaleSegments) {
  TempSegmentDir dir;
  auto first = SegmentWriter::create(small_params(dir.path()));
  ASSERT_TRUE(first);
  // Same name while the job (this process) lives: refused.
  auto again = SegmentWriter::create(small_params(dir.path()));
  ASSERT_FALSE(again);
  EXPECT_THAT(again.error().message, HasSubstr("running job"));
  // Once its job is dead it is replaced.
  poke(first->path(), offsetof(SegmentHeader, creator_pid), static_cast<std::uint64_t>(dead_pid()));
  again = SegmentWriter::create(small_params(dir.path()));
  ASSERT_TRUE(again) << again.error().to_string();
  EXPECT_EQ(read_segment(again->path())->header.creator_pid,
            static_cast<std::uint64_t>(::getpid()));
}

TEST(SegmentWriter, LeavesAnotherUsersFileAlone) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown a file to another user";
  TempSegmentDir dir;
  auto first = SegmentWriter::create(small_params(dir.path()));
  ASSERT_TRUE(first);
  ASSERT_EQ(::chown(first->path().c_str(), 65534, 65534), 0);
  auto again = SegmentWriter::create(small_params(dir.path()));
  ASSERT_FALSE(again);
  EXPECT_THAT(again.error().message, HasSubstr("belongs to uid 65534"));
  EXPECT_TRUE(std::filesystem::exists(first->path()));
}

TEST(SegmentWriter, CreatesMode0600) {
  TempSegmentDir dir;
  auto w = SegmentWriter::create(small_params(dir.path()));
  ASSERT_TRUE(w);
  struct stat st {};
  ASSERT_EQ(::stat(w->path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_TRUE(w->remove());
  EXPECT_FALSE(std::filesystem::exists(w->path()));
}

// Readers never see a half-written slot: the writer keeps every counter equal. It publishes
// every few microseconds (ranks publish every millisecond or more).
TEST(SegmentReader, SeqlockGivesConsistentCopiesUnderConcurrentPublishing) {
  TempSegmentDir dir;
  auto w = SegmentWriter::create(small_params(dir.path()));
  ASSERT_TRUE(w);
  w->attach_slot(0, 0, mask_of(std::vector<int>{0}), 0);
  std::atomic<bool> stop{false};
  std::jthread writer([&] {
    for (std::uint64_t v = 1; !stop.load(); ++v) {
      std::this_thread::sleep_for(std::chrono::microseconds(5));
      SeqlockWriter seq(w->identity(0).seq);
      if (!seq.try_begin()) continue;
      SlotCounters& k = w->counters(0);
      store_word(k.idle_ns, v);
      store_word(k.compute_ns, v);
      store_word(k.out_of_sync_ns, v);
      store_word(k.bytes_sent, v);
      store_word(w->peers(0)[1].bytes_recv, v);
      seq.end();
    }
  });
  struct StopWriter {
    std::atomic<bool>& stop;
    ~StopWriter() { stop = true; }
  } stop_writer{stop};
  for (int reads = 0; reads < 2000; ++reads) {
    auto snap = read_segment(w->path());
    ASSERT_TRUE(snap) << snap.error().to_string();
    const auto& k = snap->slots[0].counters;
    ASSERT_EQ(k.idle_ns, k.compute_ns);
    ASSERT_EQ(k.idle_ns, k.bytes_sent);
    ASSERT_EQ(k.idle_ns, snap->slots[0].local_peers[1].bytes_recv);
  }
}

TEST(SegmentControl, PostsCommandsWithIncreasingGenerations) {
  TempSegmentDir dir;
  auto w = SegmentWriter::create(small_params(dir.path()));
  ASSERT_TRUE(w);
  auto ctl = SegmentControl::open(w->path());
  ASSERT_TRUE(ctl) << ctl.error().to_string();
  EXPECT_EQ(ctl->command(1).generation, 0u);
  const std::vector<int> cpu0 = {0};
  auto g1 = ctl->post_command(1, cpu0);
  ASSERT_TRUE(g1);
  auto g2 = ctl->post_command(1, cpu0);
  ASSERT_TRUE(g2);
  EXPECT_EQ(*g2, *g1 + 1);
  EXPECT_EQ(ctl->command(1).kind, CommandKind::kBind);
  // The rank side sees it in its slot: the set first, then the word that publishes it.
  EXPECT_EQ(decode_command(load_word(w->control(1).command)).generation, *g2);
  EXPECT_EQ(mask_cpus(w->target(1).cpus), cpu0);
  EXPECT_FALSE(ctl->post_command(2, cpu0));
  EXPECT_FALSE(ctl->post_command(0, std::vector<int>{100000}));
  EXPECT_FALSE(ctl->post_command(0, std::vector<int>{-1}));
  EXPECT_FALSE(ctl->post_command(0, std::vector<int>{}));
  store_word(w->control(1).ack, encode_ack({*g2, AckStatus::kOk, 0}));
  EXPECT_EQ(ctl->ack(1).status, AckStatus::kOk);
  EXPECT_EQ(ctl->ack(1).generation, *g2);
}

}  // namespace
}  // namespace symmer::segment
