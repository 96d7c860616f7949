// SPDX-License-Identifier: BSD-3-Clause
// Writes valid node segments as seeds for the segment reader's fuzz target:
//   fuzz_segment_seeds DIR      (one file per shape: ranks, nodes, a published slot)
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "symmer/segment/shared_words.hpp"
#include "symmer/segment/writer.hpp"

int main(int argc, char** argv) {
  using namespace symmer::segment;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  std::filesystem::create_directories(out);
  const std::string work = std::filesystem::temp_directory_path() / "symmer-fuzz-seeds";
  std::filesystem::create_directories(work);
  struct Shape {
    const char* name;
    std::uint64_t ranks, nodes;
  };
  for (const Shape& s : {Shape{"one-rank", 1, 1}, Shape{"two-ranks", 2, 1},
                         Shape{"two-nodes", 2, 2}, Shape{"four-ranks-three-nodes", 4, 3}}) {
    SegmentParams p;
    p.directory = work;
    p.job_id = 0x5eed000000000001ull;
    p.local_ranks = s.ranks;
    p.node_count = s.nodes;
    p.world_size = s.ranks * s.nodes;
    p.app_name = "seed";
    p.mpi_library = "MPICH Version: seed";
    auto w = SegmentWriter::create(p);
    if (!w) {
      std::fprintf(stderr, "%s: %s\n", s.name, w.error().message.c_str());
      return 1;
    }
    for (std::uint64_t r = 0; r < s.ranks; r += 2)
      w->attach_slot(r, r, mask_of(std::vector<int>{static_cast<int>(r)}), 1);
    std::filesystem::copy_file(w->path(), out + "/" + s.name,
                               std::filesystem::copy_options::overwrite_existing);
    (void)w->remove();
  }
  std::filesystem::remove_all(work);
  return 0;
}
