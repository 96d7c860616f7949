// SPDX-License-Identifier: BSD-3-Clause
// What a hostile user does to node segments, for the tests (run as that user):
//   segment_attack corrupt <case> <segment>   changes a running job's segment and exits; cases:
//       random         every byte random
//       header-fields  each header word in turn absurd for 100 ms, then put back
//       odd-seq        every slot's sequence word odd (a writer that never finishes)
//       odd-summary    the node summaries' sequence word odd
//       commands       every slot's command word and target set random
//       truncate-zero, truncate-half, grow, unlink, symlink (the name then leads elsewhere)
//   segment_attack forge <dir> <count> <ranks> <nodes>
//       <count> valid segments of <ranks> ranks on <nodes> nodes (sparse files: 4096 ranks on
//       1024 nodes is 1 GiB each), kept mapped by this process; prints each path
//   segment_attack forge-pids <dir> <creator pid> <creator ticks> <rank pid> <rank ticks>
//       a segment whose creator and slot 1 are the given processes (slot 0 is this one's);
//       prints its path
// forge and forge-pids then wait until stdin closes, so the segments have a live creator.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "symmer/segment/layout.hpp"
#include "symmer/segment/shared_words.hpp"
#include "symmer/segment/writer.hpp"

namespace {

using namespace symmer::segment;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "segment_attack: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

void put(int fd, std::uint64_t offset, std::uint64_t value) {
  if (::pwrite(fd, &value, sizeof value, static_cast<off_t>(offset)) != sizeof value)
    fail("pwrite");
}

std::uint64_t get(int fd, std::uint64_t offset) {
  std::uint64_t value = 0;
  if (::pread(fd, &value, sizeof value, static_cast<off_t>(offset)) != sizeof value) fail("pread");
  return value;
}

int corrupt(const std::string& what, const std::string& path) {
  if (what == "unlink" || what == "symlink") {
    if (::unlink(path.c_str()) != 0) fail("unlink");
    if (what == "symlink" && ::symlink("/etc/hostname", path.c_str()) != 0) fail("symlink");
    return 0;
  }
  const int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW);
  if (fd < 0) fail(path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail("fstat");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  SegmentHeader h{};
  if (::pread(fd, &h, sizeof h, 0) != sizeof h) fail("header");
  std::mt19937_64 random(0x5eed);
  const auto slot = [&](std::uint64_t r, std::size_t at) {
    return h.slots_offset + r * h.slot_size + at;
  };
  if (what == "random") {
    for (std::uint64_t at = 0; at + 8 <= size; at += 8) put(fd, at, random());
  } else if (what == "header-fields") {
    for (std::uint64_t at = 0; at + 8 <= sizeof h; at += 8) {
      const std::uint64_t old = get(fd, at);
      put(fd, at,
          at < offsetof(SegmentHeader, hostname) ? (std::uint64_t{1} << 62) + at
                                                 : 0x4141414141414141ull);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      put(fd, at, old);
    }
  } else if (what == "odd-seq") {
    for (std::uint64_t r = 0; r < h.local_ranks; ++r) put(fd, slot(r, 0), 0x1235);
  } else if (what == "odd-summary") {
    put(fd, h.summaries_offset, 0x777);
  } else if (what == "commands") {
    for (std::uint64_t r = 0; r < h.local_ranks; ++r) {
      for (std::size_t w = 0; w < sizeof(SlotTarget); w += 8)
        put(fd, slot(r, kSlotTargetOffset + w), random());
      put(fd, slot(r, kSlotControlOffset + offsetof(SlotControl, command)),
          random() | 2);  // a generation, and every kind of kind
    }
  } else if (what == "truncate-zero" || what == "truncate-half" || what == "grow") {
    const off_t to = what == "grow"            ? static_cast<off_t>(2 * size)
                     : what == "truncate-half" ? static_cast<off_t>(size / 2)
                                               : 0;
    if (::ftruncate(fd, to) != 0) fail("ftruncate");
  } else {
    std::fprintf(stderr, "segment_attack: unknown corruption %s\n", what.c_str());
    return 2;
  }
  ::close(fd);
  return 0;
}

SegmentParams params(const std::string& dir, std::uint64_t job, std::uint64_t ranks,
                     std::uint64_t nodes) {
  SegmentParams p;
  p.directory = dir;
  p.job_id = job;
  p.local_ranks = ranks;
  p.node_count = nodes;
  p.world_size = ranks * nodes;
  p.mpi_family = MpiFamily::kMpich;
  p.app_name = "forged";
  return p;
}

void wait_for_stdin_to_close() {
  char c;
  while (::read(STDIN_FILENO, &c, 1) > 0) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "corrupt" && argc == 4) return corrupt(argv[2], argv[3]);
  if (mode == "forge" && argc == 6) {
    std::vector<SegmentWriter> kept;
    for (int i = 0; i < std::atoi(argv[3]); ++i) {
      auto w = SegmentWriter::create(params(argv[2], 0xf0f0000000000001ull + i,
                                            std::strtoull(argv[4], nullptr, 10),
                                            std::strtoull(argv[5], nullptr, 10)));
      if (!w) {
        std::fprintf(stderr, "segment_attack: %s\n", w.error().message.c_str());
        return 1;
      }
      w->attach_slot(0, 0, mask_of(std::vector<int>{0}), 0);
      std::printf("%s\n", w->path().c_str());
      kept.push_back(std::move(*w));
    }
    std::fflush(stdout);
    wait_for_stdin_to_close();
    return 0;
  }
  if (mode == "forge-pids" && argc == 7) {
    auto w = SegmentWriter::create(params(argv[2], 0xf0f0f0f000000001ull, 2, 1));
    if (!w) {
      std::fprintf(stderr, "segment_attack: %s\n", w.error().message.c_str());
      return 1;
    }
    w->attach_slot(0, 0, mask_of(std::vector<int>{0}), 0);
    w->attach_slot(1, 1, mask_of(std::vector<int>{0}), 0);
    store_word(w->identity(1).pid, std::strtoull(argv[5], nullptr, 10));
    store_word(w->identity(1).start_ticks, std::strtoull(argv[6], nullptr, 10));
    auto& h = const_cast<SegmentHeader&>(w->header());
    store_word(h.creator_pid, std::strtoull(argv[3], nullptr, 10));
    store_word(h.creator_start_ticks, std::strtoull(argv[4], nullptr, 10));
    std::printf("%s\n", w->path().c_str());
    std::fflush(stdout);
    wait_for_stdin_to_close();
    return 0;
  }
  std::fprintf(stderr,
               "usage: %s corrupt <case> <segment> | forge <dir> <count> <ranks> <nodes> | "
               "forge-pids <dir> <creator pid> <creator ticks> <rank pid> <rank ticks>\n",
               argv[0]);
  return 2;
}
