// SPDX-License-Identifier: BSD-3-Clause
// The checks that a pid a segment names is one of the job's processes (see job_process.hpp).
#include "symmer/segment/job_process.hpp"

#include <sys/sysmacros.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>

#include "symmer/segment/process_identity.hpp"

namespace symmer::segment {
namespace {

using File = std::unique_ptr<FILE, int (*)(FILE*)>;

// Opens a /proc file: kNotFound when the process is gone, kIo when it cannot be read.
Expected<File> open_proc(const std::string& path, const std::string& who) {
  FILE* f = std::fopen(path.c_str(), "re");
  if (f != nullptr) return File(f, &std::fclose);
  const int e = errno;
  if (e == ENOENT || e == ESRCH) return Error(Errc::kNotFound, who + ": no such process");
  return Error(Errc::kIo, who + ": cannot read " + path + " (" + std::strerror(e) + ")");
}

}  // namespace

Status check_job_process(const JobProcessClaim& claim, const std::string& proc_root) {
  const std::string who = "pid " + std::to_string(claim.pid);
  if (claim.pid <= 0) return Error(Errc::kInvalidArgument, who + ": not a process id");
  const std::string dir = proc_root + "/" + std::to_string(claim.pid);
  auto ticks = read_start_ticks(claim.pid, proc_root);
  if (!ticks) return ticks.error();
  if (*ticks != claim.start_ticks)
    return Error(Errc::kNotFound, who + ": not the process the segment recorded (started at " +
                                      std::to_string(*ticks) + ", recorded " +
                                      std::to_string(claim.start_ticks) + ")");
  {
    auto status = open_proc(dir + "/status", who);
    if (!status) return status.error();
    char line[256];
    unsigned long long real = 0, effective = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof line, status->get()) != nullptr)
      found = std::sscanf(line, "Uid: %llu %llu", &real, &effective) == 2;
    if (!found) return Error(Errc::kIo, who + ": cannot read its uids");
    if (real != claim.owner_uid || effective != claim.owner_uid)
      return Error(Errc::kInvalidArgument,
                   who + " runs as uid " + std::to_string(real) + "/" + std::to_string(effective) +
                       ", not as the job's owner uid " + std::to_string(claim.owner_uid));
  }
  auto maps = open_proc(dir + "/maps", who);
  if (!maps) return maps.error();
  // address perms offset dev(major:minor, hex) inode path
  char* line = nullptr;
  std::size_t capacity = 0;
  bool mapped = false;
  while (!mapped && ::getline(&line, &capacity, maps->get()) > 0) {
    unsigned major_id = 0, minor_id = 0;
    unsigned long long inode = 0;
    if (std::sscanf(line, "%*s %*s %*s %x:%x %llu", &major_id, &minor_id, &inode) == 3)
      mapped = inode == claim.inode && makedev(major_id, minor_id) == claim.device;
  }
  std::free(line);
  if (!mapped)
    return Error(Errc::kInvalidArgument,
                 who + " does not map " + claim.segment_path + ": not a process of this job");
  return {};
}

}  // namespace symmer::segment
