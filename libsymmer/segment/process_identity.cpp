// SPDX-License-Identifier: BSD-3-Clause
// Process identity from /proc: start time (field 22 of /proc/<pid>/stat) and pid namespace.
#include "symmer/segment/process_identity.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace symmer::segment {
namespace {

std::uint64_t namespace_inode(const std::string& proc_dir) {
  struct stat st {};
  if (::stat((proc_dir + "/ns/pid").c_str(), &st) != 0) return 0;
  return static_cast<std::uint64_t>(st.st_ino);
}

}  // namespace

std::uint64_t process_start_ticks(pid_t pid) {
  if (pid <= 0) return 0;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return 0;
  // The command name (field 2) may hold spaces and ')': fields resume after the last ')'.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(line.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22; ++i) {
    if (!(rest >> field)) return 0;
  }
  try {
    return std::stoull(field);
  } catch (...) {
    return 0;
  }
}

ProcessIdentity this_process() {
  ProcessIdentity me;
  me.pid = ::getpid();
  me.start_ticks = process_start_ticks(me.pid);
  me.pid_namespace = namespace_inode("/proc/self");
  return me;
}

Liveness liveness(const ProcessIdentity& who) {
  if (who.pid <= 0) return Liveness::kDead;
  const std::uint64_t my_ns = namespace_inode("/proc/self");
  if (who.pid_namespace != 0 && my_ns != 0 && who.pid_namespace != my_ns) return Liveness::kUnknown;
  const std::uint64_t start = process_start_ticks(who.pid);
  if (start == 0) return Liveness::kDead;
  if (who.start_ticks != 0 && start != who.start_ticks) return Liveness::kDead;  // pid reused
  return Liveness::kAlive;
}

}  // namespace symmer::segment
