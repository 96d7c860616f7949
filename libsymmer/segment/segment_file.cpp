// SPDX-License-Identifier: BSD-3-Clause
// Segment files through pread/pwrite only (see segment_file.hpp).
#include "symmer/segment/segment_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

#include "symmer/segment/guarded_mapping.hpp"

namespace symmer::segment {
namespace {

std::string errno_text(int e) { return std::strerror(e); }

// Between failed seqlock attempts: spin briefly, then let the writer run.
void back_off(int attempt) {
  if (attempt < 8) return;
  if (attempt < 64)
    std::this_thread::yield();
  else
    std::this_thread::sleep_for(std::chrono::microseconds(50));
}

bool lock_range(int fd, short type, std::uint64_t offset, std::uint64_t length) {
  struct flock lock {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  lock.l_start = static_cast<off_t>(offset);
  lock.l_len = static_cast<off_t>(length);
  return ::fcntl(fd, F_OFD_SETLK, &lock) == 0;
}

// Moves `bytes` between `buffer` and the file at `offset` with `io` (pread or pwrite) until
// all moved; false at an error or the end of the file.
template <typename Buffer, typename Io>
bool transfer(int fd, Buffer* buffer, std::size_t bytes, std::uint64_t offset, Io io) {
  while (bytes > 0) {
    const ssize_t n = io(fd, buffer, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer += n;
    bytes -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

}  // namespace

Expected<SegmentFile> SegmentFile::open_at(int dir_fd, const std::string& name, Access access,
                                           std::string path) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    return Error(Errc::kParse, path + ": not a file name");
  struct stat before {};
  if (::fstatat(dir_fd, name.c_str(), &before, AT_SYMLINK_NOFOLLOW) != 0) {
    const int e = errno;
    return Error(e == ENOENT ? Errc::kNotFound : Errc::kIo, path + ": " + errno_text(e));
  }
  if (S_ISLNK(before.st_mode)) return Error(Errc::kParse, path + ": a symlink, not a segment");
  if (!S_ISREG(before.st_mode)) return Error(Errc::kParse, path + ": not a regular file");
  const int flags = (access == Access::kReadWrite ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK |
                    O_NOCTTY | O_CLOEXEC;
  const int fd = ::openat(dir_fd, name.c_str(), flags);
  if (fd < 0) {
    const int e = errno;
    if (e == ELOOP) return Error(Errc::kParse, path + ": a symlink, not a segment");
    return Error(e == ENOENT ? Errc::kNotFound : Errc::kIo, path + ": " + errno_text(e));
  }
  SegmentFile file(fd, std::move(path), {});
  if (::fstat(fd, &file.status_) != 0)
    return Error(Errc::kIo, file.path_ + ": " + errno_text(errno));
  if (!S_ISREG(file.status_.st_mode) || file.status_.st_dev != before.st_dev ||
      file.status_.st_ino != before.st_ino)
    return Error(Errc::kParse, file.path_ + ": replaced while it was being opened");
  if (file.status_.st_nlink != 1)
    return Error(Errc::kParse, file.path_ + ": has " + std::to_string(file.status_.st_nlink) +
                                   " links; a segment has one");
  return file;
}

Expected<SegmentFile> SegmentFile::open(const std::string& path, Access access) {
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) {
    const int e = errno;
    return Error(e == ENOENT ? Errc::kNotFound : Errc::kIo, dir + ": " + errno_text(e));
  }
  auto file = open_at(dir_fd, name, access, path);
  ::close(dir_fd);
  return file;
}

SegmentFile::SegmentFile(SegmentFile&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)), status_(o.status_) {}

SegmentFile& SegmentFile::operator=(SegmentFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    path_ = std::move(o.path_);
    status_ = o.status_;
  }
  return *this;
}

SegmentFile::~SegmentFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::uint64_t SegmentFile::current_size() const {
  struct stat st {};
  return ::fstat(fd_, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

bool SegmentFile::read(std::uint64_t offset, void* dst, std::size_t bytes) const {
  return transfer(fd_, static_cast<char*>(dst), bytes, offset, ::pread);
}

bool SegmentFile::read_consistent(std::uint64_t offset, std::span<std::byte> out,
                                  int max_tries) const {
  for (int attempt = 0; attempt < max_tries; back_off(attempt++)) {
    std::uint64_t before = 0, after = 0, copied = 0;
    if (!read_word(offset, before)) return false;
    if (before & 1) continue;
    if (!read(offset, out.data(), out.size())) return false;
    if (!read_word(offset, after)) return false;
    std::memcpy(&copied, out.data(), sizeof copied);
    if (before == after && copied == before) return true;
  }
  return false;
}

bool SegmentFile::read_word(std::uint64_t offset, std::uint64_t& value) const {
  return read(offset, &value, sizeof value);
}

bool SegmentFile::read_word_stable(std::uint64_t offset, std::uint64_t& value) const {
  std::uint64_t previous = 0;
  if (!read_word(offset, previous)) return false;
  for (int attempt = 0; attempt < 64; ++attempt) {
    if (!read_word(offset, value)) return false;
    if (value == previous) return true;
    previous = value;
  }
  return false;
}

bool SegmentFile::write(std::uint64_t offset, const void* src, std::size_t bytes) const {
  // pwrite past the end would grow the file: a segment never changes size.
  return offset + bytes <= current_size() &&
         transfer(fd_, static_cast<const char*>(src), bytes, offset, ::pwrite);
}

bool SegmentFile::write_word(std::uint64_t offset, std::uint64_t value) const {
  return write(offset, &value, sizeof value);
}

bool SegmentFile::store_word(std::uint64_t offset, std::uint64_t value) const {
  if (offset % 8 != 0 || offset + sizeof value > current_size()) return false;
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  auto mapping = GuardedMapping::map(fd_, page, offset / page * page);
  if (!mapping) return false;
  auto* word =
      reinterpret_cast<std::uint64_t*>(static_cast<char*>(mapping->data()) + offset % page);
  std::atomic_ref<std::uint64_t>(*word).store(value, std::memory_order_release);
  return !mapping->lost();
}

bool SegmentFile::remove() const {
  const auto slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path_.substr(0, slash);
  const std::string name = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return false;
  struct stat now {};
  const bool same = ::fstatat(dir_fd, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 &&
                    now.st_dev == status_.st_dev && now.st_ino == status_.st_ino;
  const bool removed = same && ::unlinkat(dir_fd, name.c_str(), 0) == 0;
  ::close(dir_fd);
  return removed;
}

bool SegmentFile::try_lock(std::uint64_t offset, std::uint64_t length) const {
  return lock_range(fd_, F_WRLCK, offset, length);
}

void SegmentFile::unlock(std::uint64_t offset, std::uint64_t length) const {
  lock_range(fd_, F_UNLCK, offset, length);
}

}  // namespace symmer::segment
