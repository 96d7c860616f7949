// SPDX-License-Identifier: BSD-3-Clause
// The checks before acting on a job's process (see job_process.hpp).
#include "job_process.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <charconv>
#include <fstream>
#include <sstream>

#include "symmer/segment/process_identity.hpp"

namespace symmer::daemon {
namespace {

// "Uid:\treal\teffective\tsaved\tfs" of /proc/<pid>/status.
bool read_uids(const std::string& status_path, std::uint64_t& real, std::uint64_t& effective) {
  std::ifstream in(status_path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Uid:", 0) != 0) continue;
    std::istringstream s(line.substr(4));
    return static_cast<bool>(s >> real >> effective);
  }
  return false;
}

// Whether /proc/<pid>/maps has a mapping of the file with device `dev` and inode `ino`.
bool maps_file(const std::string& maps_path, dev_t dev, ino_t ino) {
  std::ifstream in(maps_path);
  for (std::string line; std::getline(in, line);) {
    // address perms offset dev(major:minor, hex) inode path
    std::istringstream s(line);
    std::string address, perms, offset, device;
    unsigned long long inode = 0;
    if (!(s >> address >> perms >> offset >> device >> inode) || inode == 0) continue;
    const auto colon = device.find(':');
    if (colon == std::string::npos) continue;
    try {
      const unsigned long major_id = std::stoul(device.substr(0, colon), nullptr, 16);
      const unsigned long minor_id = std::stoul(device.substr(colon + 1), nullptr, 16);
      if (inode == ino && major_id == major(dev) && minor_id == minor(dev)) return true;
    } catch (const std::exception&) {
      continue;
    }
  }
  return false;
}

}  // namespace

Status check_job_process(const JobProcessClaim& claim, const std::string& proc_root) {
  const std::string who = "pid " + std::to_string(claim.pid);
  if (claim.pid <= 0) return Error(Errc::kInvalidArgument, who + ": not a process id");
  const std::string dir = proc_root + "/" + std::to_string(claim.pid);
  std::uint64_t ticks = 0;
  {
    std::ifstream in(dir + "/stat");
    std::string text;
    if (!in || !std::getline(in, text)) return Error(Errc::kNotFound, who + ": no such process");
    const auto close = text.rfind(')');
    std::istringstream fields(close == std::string::npos ? "" : text.substr(close + 2));
    std::string field;
    for (int i = 3; i <= 22 && fields >> field; ++i)
      if (i == 22) std::from_chars(field.data(), field.data() + field.size(), ticks);
  }
  if (ticks == 0 || ticks != claim.start_ticks)
    return Error(Errc::kNotFound, who + ": not the process the segment recorded (started at " +
                                      std::to_string(ticks) + ", recorded " +
                                      std::to_string(claim.start_ticks) + ")");
  std::uint64_t real = 0, effective = 0;
  if (!read_uids(dir + "/status", real, effective))
    return Error(Errc::kIo, who + ": cannot read its uids");
  if (real != claim.owner_uid || effective != claim.owner_uid)
    return Error(Errc::kInvalidArgument,
                 who + " runs as uid " + std::to_string(real) + "/" + std::to_string(effective) +
                     ", not as the job's owner uid " + std::to_string(claim.owner_uid));
  struct stat st {};
  if (::stat(claim.segment_path.c_str(), &st) != 0)
    return Error(Errc::kNotFound, claim.segment_path + ": the segment is gone");
  if (!maps_file(dir + "/maps", st.st_dev, st.st_ino))
    return Error(Errc::kInvalidArgument,
                 who + " does not map " + claim.segment_path + ": not a process of this job");
  return {};
}

}  // namespace symmer::daemon
