// SPDX-License-Identifier: BSD-3-Clause
// StrictModes-style directory checks (see private_directory.hpp).
#include "private_directory.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace symmer::daemon {
namespace {

std::string mode_text(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// What is wrong with directory `path` (status `st`) for a daemon run by `owner`; "" when fine.
std::string problem(const std::string& path, const struct stat& st, uid_t owner, bool last) {
  if (!S_ISDIR(st.st_mode)) return path + " is not a directory";
  if (st.st_uid != owner && st.st_uid != 0)
    return path + " belongs to uid " + std::to_string(st.st_uid) + ", neither root nor uid " +
           std::to_string(owner) + " (the daemon's)";
  const bool others_write = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  if (others_write && (last || (st.st_mode & S_ISVTX) == 0))
    return path + " is writable by others (mode " + mode_text(st.st_mode) +
           "): anyone could replace what symmerd puts there (chmod go-w " + path + ")";
  return "";
}

}  // namespace

DirectoryFd& DirectoryFd::operator=(DirectoryFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

DirectoryFd::~DirectoryFd() {
  if (fd_ >= 0) ::close(fd_);
}

Expected<DirectoryFd> open_private_directory(const std::string& path, uid_t owner, bool create) {
  if (path.empty() || path.front() != '/')
    return Error(Errc::kInvalidArgument, path + ": expected an absolute path");
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) {
    if (errno != ENOENT || !create)
      return Error(Errc::kInvalidArgument, path + ": " + std::strerror(errno));
    // Only the last component may be missing: resolve its parent and add it.
    const auto slash = path.find_last_of('/');
    const std::string parent = slash == 0 ? "/" : path.substr(0, slash);
    if (::realpath(parent.c_str(), resolved) == nullptr)
      return Error(Errc::kInvalidArgument, parent + ": " + std::strerror(errno));
    std::string full = resolved;
    full += (full == "/" ? "" : "/") + path.substr(slash + 1);
    if (full.size() >= PATH_MAX) return Error(Errc::kInvalidArgument, path + ": path too long");
    std::strcpy(resolved, full.c_str());
  }
  std::vector<std::string> parts;
  for (const char* p = resolved; *p != '\0';) {
    while (*p == '/') ++p;
    const char* end = p;
    while (*end != '\0' && *end != '/') ++end;
    if (end != p) parts.emplace_back(p, end);
    p = end;
  }
  DirectoryFd dir(::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), "/");
  std::string at = "";
  for (std::size_t i = 0; i <= parts.size(); ++i) {
    if (!dir) return Error(Errc::kInvalidArgument, (at.empty() ? "/" : at) + ": cannot open");
    struct stat st {};
    if (::fstat(dir.get(), &st) != 0)
      return Error(Errc::kInvalidArgument, dir.path() + ": " + std::strerror(errno));
    const bool last = i == parts.size();
    if (auto why = problem(dir.path(), st, owner, last); !why.empty())
      return Error(Errc::kInvalidArgument, why);
    if (last) break;
    at += "/" + parts[i];
    int fd = ::openat(dir.get(), parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create && i + 1 == parts.size()) {
      if (::mkdirat(dir.get(), parts[i].c_str(), 0755) != 0 && errno != EEXIST)
        return Error(Errc::kInvalidArgument, "cannot create " + at + ": " + std::strerror(errno));
      fd = ::openat(dir.get(), parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      // Others must reach the socket in it whatever the umask: on the descriptor, not the path.
      if (fd >= 0) ::fchmod(fd, 0755);
    }
    if (fd < 0)
      return Error(Errc::kInvalidArgument,
                   at + ": " +
                       (errno == ELOOP || errno == ENOTDIR ? "not a directory (a symlink?)"
                                                           : std::strerror(errno)));
    dir = DirectoryFd(fd, at);
  }
  return dir;
}

}  // namespace symmer::daemon
