// SPDX-License-Identifier: BSD-3-Clause
// Process identity from /proc: start time (field 22 of /proc/<pid>/stat) and pid namespace.
#include "symmer/segment/process_identity.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>

namespace symmer::segment {
namespace {

std::uint64_t namespace_inode(const std::string& proc_dir) {
  struct stat st {};
  if (::stat((proc_dir + "/ns/pid").c_str(), &st) != 0) return 0;
  return static_cast<std::uint64_t>(st.st_ino);
}

}  // namespace

Expected<std::uint64_t> read_start_ticks(pid_t pid, const std::string& proc_root) {
  const std::string who = "pid " + std::to_string(pid);
  if (pid <= 0) return Error(Errc::kNotFound, who + ": not a process id");
  const std::string path = proc_root + "/" + std::to_string(pid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT || e == ESRCH) return Error(Errc::kNotFound, who + ": no such process");
    return Error(Errc::kIo, who + ": cannot read " + path + " (" + std::strerror(e) + ")");
  }
  char buf[1024];  // the whole line: the command name is at most 64 bytes
  ssize_t n = 0;
  do {
    n = ::read(fd, buf, sizeof buf);
  } while (n < 0 && errno == EINTR);
  const int e = errno;
  ::close(fd);
  if (n < 0 && e == ESRCH) return Error(Errc::kNotFound, who + ": no such process");
  if (n <= 0) return Error(Errc::kIo, who + ": cannot read " + path);
  std::string_view line(buf, static_cast<std::size_t>(n));
  // The command name (field 2) may hold spaces and ')': fields resume after the last ')'.
  const auto close = line.rfind(')');
  if (close == std::string_view::npos) return Error(Errc::kIo, who + ": unexpected " + path);
  std::size_t at = close + 1;
  for (int field = 3; field <= 22; ++field) {
    while (at < line.size() && line[at] == ' ') ++at;
    const std::size_t end = line.find(' ', at);
    if (field == 22) {
      std::uint64_t ticks = 0;
      const char* last = line.data() + (end == std::string_view::npos ? line.size() : end);
      if (std::from_chars(line.data() + at, last, ticks).ec != std::errc() || ticks == 0) break;
      return ticks;
    }
    if (end == std::string_view::npos) break;
    at = end;
  }
  return Error(Errc::kIo, who + ": unexpected " + path);
}

std::uint64_t process_start_ticks(pid_t pid) {
  const auto ticks = read_start_ticks(pid);
  return ticks ? *ticks : 0;
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
  const auto start = read_start_ticks(who.pid);
  if (!start) return start.error().code == Errc::kNotFound ? Liveness::kDead : Liveness::kUnknown;
  if (who.start_ticks != 0 && *start != who.start_ticks) return Liveness::kDead;  // pid reused
  return Liveness::kAlive;
}

}  // namespace symmer::segment
