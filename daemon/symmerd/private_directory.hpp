// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Directories symmerd creates files in (its control socket's, the decision logs'): only the
// daemon's user and root may change them, checked as OpenSSH's StrictModes checks a user's
// files, or symmerd refuses to use them. Files in them are then created relative to the
// checked directory's descriptor, never through a path someone else could redirect.

#include <sys/types.h>

#include <string>
#include <utility>

#include "symmer/expected.hpp"

namespace symmer::daemon {

/// An open directory (O_DIRECTORY). Move-only; closes on destruction.
class DirectoryFd {
 public:
  DirectoryFd() = default;
  DirectoryFd(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  DirectoryFd(DirectoryFd&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}
  DirectoryFd& operator=(DirectoryFd&& other) noexcept;
  DirectoryFd(const DirectoryFd&) = delete;
  DirectoryFd& operator=(const DirectoryFd&) = delete;
  ~DirectoryFd();

  int get() const { return fd_; }
  const std::string& path() const { return path_; }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
  std::string path_;
};

/// Opens the directory `path` after checking it: owned by `owner` (or root) and writable by
/// nobody else; every directory above it owned by root or `owner` and not writable by others
/// unless sticky (as /tmp: nobody else may rename what is in it). The path is resolved first,
/// then opened component by component without following a symlink, each checked on its
/// descriptor. With `create`, a missing last component is created (mode 0755). Errors
/// (kInvalidArgument) name the directory and what is wrong with it, with the fix.
Expected<DirectoryFd> open_private_directory(const std::string& path, uid_t owner,
                                             bool create = false);

}  // namespace symmer::daemon
