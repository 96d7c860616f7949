// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Helpers of the node segment tests: a private segment directory and raw field patching.

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "symmer/segment/writer.hpp"

namespace symmer::segment::testing {

/// A fresh directory for segments, removed with everything in it at the end of the test.
class TempSegmentDir {
 public:
  TempSegmentDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "symmer-seg-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempSegmentDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Parameters of a small valid segment in `dir`.
inline SegmentParams small_params(const std::string& dir, std::uint64_t local_ranks = 2) {
  SegmentParams p;
  p.directory = dir;
  p.job_id = 0x1234abcd5678ef01ull;
  p.node_id = 3;
  p.node_index = 0;
  p.node_count = 2;
  p.local_ranks = local_ranks;
  p.world_size = local_ranks * 2;
  p.mpi_family = MpiFamily::kMpich;
  p.thread_level = 3;
  p.eager_limit_local = 65536;
  p.eager_limit_remote = 8192;
  p.publish_period_ns = 10'000'000;
  p.app_name = "unit-test";
  p.mpi_library = "MPICH Version: test";
  return p;
}

/// Overwrites the 8 bytes at `offset` of the file at `path`.
inline void poke(const std::string& path, std::uint64_t offset, std::uint64_t value) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  if (fd < 0) std::abort();
  if (::pwrite(fd, &value, sizeof value, static_cast<off_t>(offset)) != sizeof value) std::abort();
  ::close(fd);
}

}  // namespace symmer::segment::testing
