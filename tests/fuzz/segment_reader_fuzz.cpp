// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: the node segment reader on a file of any content, as any user can write one.
// read_segment must return a snapshot or an error naming what is wrong: never crash, read out
// of bounds, allocate without bound or hang. The header's owner, job and node are made to
// agree with the file so the fuzzer gets past the first checks into the slots.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "symmer/segment/layout.hpp"
#include "symmer/segment/naming.hpp"
#include "symmer/segment/reader.hpp"

namespace {

const std::string& directory() {
  static const std::string dir = [] {
    std::string tmpl = "/tmp/symmer-fuzz-XXXXXX";
    return std::string(::mkdtemp(tmpl.data()));
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace symmer::segment;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  SegmentHeader h{};
  if (bytes.size() >= sizeof h) {
    std::memcpy(&h, bytes.data(), sizeof h);
    h.owner_uid = ::geteuid();
    std::memcpy(bytes.data(), &h, sizeof h);
  }
  const std::string path = directory() + "/" + segment_file_name(::geteuid(), h.job_id, h.node_id);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) std::abort();
  if (!bytes.empty() &&
      ::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
    std::abort();
  ::close(fd);
  ReadOptions options;
  options.max_tries = 4;  // an odd sequence word must not make every input slow
  const auto snapshot = read_segment(path, options);
  if (snapshot) (void)job_liveness(*snapshot);
  ::unlink(path.c_str());
  return 0;
}
