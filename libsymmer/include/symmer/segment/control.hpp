// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Decision side of the slot control words (layout.hpp SlotControl): the analyzer (embedded, or
// symmerd) orders a rank onto a CPU set and reads the rank's acknowledgement. The rank side
// lives in the PMPI shim (it re-binds all its threads at its next MPI call). Only the holder
// of the job's claim (claim.hpp) posts commands: its caller checks JobClaim::acting().
//
// Nothing here keeps a mapping of the file, whose owner may truncate it at any time: words are
// read with pread (read until two copies agree, so a copy that raced with the rank's one store
// is never taken), the target set is written with pwrite, and each command word with one
// atomic store through a one-page mapping made for it and undone at once, under the SIGBUS
// guard (segment_file.hpp). A file changed under it makes a call fail; it never faults.

#include <cstdint>
#include <span>
#include <string>

#include "symmer/expected.hpp"
#include "symmer/segment/layout.hpp"
#include "symmer/segment/reader.hpp"
#include "symmer/segment/segment_file.hpp"

namespace symmer::segment {

/// The control words of one validated segment. Move-only.
class SegmentControl {
 public:
  /// Opens the segment at `path` read-write and validates it (read_segment with `options`).
  /// The caller must own the file, or be root.
  static Expected<SegmentControl> open(const std::string& path, const ReadOptions& options = {});

  const SegmentFile& file() const { return file_; }
  std::uint64_t local_ranks() const { return local_ranks_; }

  /// Orders local rank `local_rank` onto the Linux CPUs `cpus` (its whole set: each thread
  /// keeps its relative place in it) with a new generation, which it returns. Errors:
  /// kInvalidArgument (a rank out of range, no CPU, a CPU this node does not have), kIo (the
  /// file changed under it).
  Expected<std::uint32_t> post_command(std::uint64_t local_rank, std::span<const int> cpus) const;

  /// The command currently posted for `local_rank` ({} when it cannot be read).
  Command command(std::uint64_t local_rank) const;
  /// The rank's latest acknowledgement ({} when it cannot be read).
  Ack ack(std::uint64_t local_rank) const;

 private:
  SegmentControl(SegmentFile file, const SegmentHeader& h)
      : file_(std::move(file)),
        slots_offset_(h.slots_offset),
        slot_size_(h.slot_size),
        local_ranks_(h.local_ranks) {}
  std::uint64_t offset(std::uint64_t local_rank, std::size_t in_slot) const {
    return slots_offset_ + local_rank * slot_size_ + in_slot;
  }

  SegmentFile file_;
  std::uint64_t slots_offset_ = 0;
  std::uint64_t slot_size_ = 0;
  std::uint64_t local_ranks_ = 0;
};

}  // namespace symmer::segment
