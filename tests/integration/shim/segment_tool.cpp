// SPDX-License-Identifier: BSD-3-Clause
// Test helper: makes node segment files the shim and symmerctl must cope with.
//   shim_segment_tool stale <dir> <job id hex> <node id> <local ranks>
//     a valid segment whose creator and ranks are dead processes (a job that crashed)
//   shim_segment_tool foreign <dir> <job id hex> <node id> <local ranks>
//     the same, but its header records another user as owner (what a reader sees of another
//     user's segment where the test cannot chown files)
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "symmer/segment/shared_words.hpp"
#include "symmer/segment/writer.hpp"

namespace {

pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace symmer::segment;
  const std::string mode = argc == 6 ? argv[1] : "";
  if (mode != "stale" && mode != "foreign") {
    std::fprintf(stderr, "usage: %s stale|foreign <dir> <job id hex> <node id> <local ranks>\n",
                 argv[0]);
    return 2;
  }
  SegmentParams p;
  p.directory = argv[2];
  p.job_id = std::strtoull(argv[3], nullptr, 16);
  p.node_id = std::strtoull(argv[4], nullptr, 10);
  p.local_ranks = std::strtoull(argv[5], nullptr, 10);
  p.world_size = p.local_ranks;
  p.mpi_family = MpiFamily::kMpich;
  p.app_name = "crashed";
  auto seg = SegmentWriter::create(p);
  if (!seg) {
    std::fprintf(stderr, "%s\n", seg.error().to_string().c_str());
    return 1;
  }
  // Every rank, and the creator (local rank 0), a distinct process that has exited.
  for (std::uint64_t r = 0; r < p.local_ranks; ++r) {
    seg->attach_slot(r, r, mask_of(std::vector<int>{0}), 0);
    store_word(seg->identity(r).pid, static_cast<std::uint64_t>(dead_pid()));
  }
  auto& header = const_cast<SegmentHeader&>(seg->header());
  store_word(header.creator_pid, load_word(seg->identity(0).pid));
  if (mode == "foreign") store_word(header.owner_uid, load_word(header.owner_uid) + 1000);
  std::printf("%s\n", seg->path().c_str());
  return 0;
}
