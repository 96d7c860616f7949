// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A node segment file opened for pread/pwrite only: how everyone who does not own a segment's
// memory touches it (symmerd, the embedded analyzer, symmerctl, the shim's clean-up of dead
// jobs' segments). Nothing is mapped, so a file that shrinks, grows, is unlinked or replaced
// can make a call fail but never fault the caller (no SIGBUS), and every copy lands in memory
// the caller owns and bounds.
//
// Opening checks what a segment must be before anything is read: a regular file (checked
// before it is opened, so a FIFO or a device is never opened), reached without following a
// symlink, with exactly one link (a hard link may be someone else's file).

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "symmer/expected.hpp"

namespace symmer::segment {

class SegmentFile {
 public:
  enum class Access { kRead, kReadWrite };

  /// Opens the file `name` (no '/') of the directory open at `dir_fd`; `path` names it in
  /// messages. Errors: kNotFound (no such file), kIo (cannot open or stat, permission),
  /// kParse (a symlink, not a regular file, more than one link, a bad name).
  static Expected<SegmentFile> open_at(int dir_fd, const std::string& name, Access access,
                                       std::string path);
  /// Opens `path`: its directory, then the file in it as open_at does.
  static Expected<SegmentFile> open(const std::string& path, Access access);

  SegmentFile(SegmentFile&& other) noexcept;
  SegmentFile& operator=(SegmentFile&& other) noexcept;
  SegmentFile(const SegmentFile&) = delete;
  SegmentFile& operator=(const SegmentFile&) = delete;
  ~SegmentFile();

  const std::string& path() const { return path_; }
  /// The file's status when it was opened (owner, size, device and inode).
  const struct stat& status() const { return status_; }
  /// Its size now; 0 when it cannot be told.
  std::uint64_t current_size() const;

  /// Copies `bytes` at `offset` into `dst`; false when the file is shorter (it shrank) or the
  /// read fails.
  bool read(std::uint64_t offset, void* dst, std::size_t bytes) const;
  /// Copies `out.size()` bytes at `offset` that a seqlock guards, its sequence word being the
  /// first of them (a slot's identity.seq, the summary area's seq): accepted when that word
  /// was even and unchanged before, in and after the copy (layout.hpp). False when the file
  /// is shorter or `max_tries` copies all raced with a writer (or the word stays odd).
  bool read_consistent(std::uint64_t offset, std::span<std::byte> out, int max_tries) const;
  /// Reads the 64-bit word at `offset` (8-byte aligned); false when it cannot.
  bool read_word(std::uint64_t offset, std::uint64_t& value) const;
  /// Reads the 64-bit word at `offset` until two reads agree: a word another process stores
  /// atomically through a mapping is then never taken half-copied (a copy races with at most
  /// one store). False when it cannot be read or does not settle.
  bool read_word_stable(std::uint64_t offset, std::uint64_t& value) const;
  /// Writes `bytes` at `offset` with pwrite; false when the file is shorter than offset +
  /// bytes (a write never grows it) or was not opened for writing. A reader that maps the
  /// file may see the bytes land one by one.
  bool write(std::uint64_t offset, const void* src, std::size_t bytes) const;
  /// write() of one 64-bit word (8-byte aligned).
  bool write_word(std::uint64_t offset, std::uint64_t value) const;
  /// Stores the 64-bit word at `offset` (8-byte aligned) with one atomic store (release),
  /// through a one-page shared mapping made for it and undone at once, under the SIGBUS guard
  /// (guarded_mapping.hpp): a reader that maps the file sees the old word or the new one,
  /// never a mix. False when the file is shorter than offset + 8, was not opened for writing,
  /// or shrank during the store.
  bool store_word(std::uint64_t offset, std::uint64_t value) const;

  /// Removes the file from its directory when its name still leads to this very file (not to
  /// one put in its place since); true when it did.
  bool remove() const;

  /// Takes an open-file-description write lock on [offset, offset + length) without waiting:
  /// true when taken. Every analyzer of a job takes the same one around changes of the claim
  /// words (claim.hpp), so two never change them at once.
  bool try_lock(std::uint64_t offset, std::uint64_t length) const;
  void unlock(std::uint64_t offset, std::uint64_t length) const;

 private:
  SegmentFile(int fd, std::string path, const struct stat& status)
      : fd_(fd), path_(std::move(path)), status_(status) {}
  int fd_ = -1;
  std::string path_;
  struct stat status_ {};
};

}  // namespace symmer::segment
