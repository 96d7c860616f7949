// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Validating reader of node segments (layout.hpp): used by the analyzer, symmerd and symmerctl.
//
// The segment is untrusted input (any process of the owner can write it): the reader copies
// it with pread (a truncated or shrinking file cannot fault the reader), takes consistent
// slot copies through the seqlock, and rejects a segment whose magic, version, sizes, names or
// values are impossible, saying which field was wrong.

#include <cstdint>
#include <string>
#include <vector>

#include "symmer/expected.hpp"
#include "symmer/segment/layout.hpp"
#include "symmer/segment/process_identity.hpp"

namespace symmer::segment {

/// A consistent, validated copy of one slot.
struct SlotSnapshot {
  SlotIdentity identity{};
  SlotControl control{};  ///< command/ack words at the time of the copy
  SlotTarget target{};    ///< the set of the command (meaningful while it is kBind)
  SlotPlacement placement{};
  SlotCounters counters{};
  std::vector<PeerCounters> local_peers;   ///< index = local rank of the peer
  std::vector<PeerCounters> remote_nodes;  ///< index = node index % node_buckets

  SlotState state() const { return static_cast<SlotState>(identity.state); }
};

/// A consistent, validated copy of a whole segment.
struct SegmentSnapshot {
  std::string path;
  SegmentHeader header{};
  SummaryArea summary_area{};
  std::vector<NodeSummary> summaries;   ///< node_buckets entries (multi-node jobs)
  std::vector<SlotSnapshot> slots;      ///< local_ranks entries
  std::uint64_t file_uid = 0;           ///< owner of the file
  std::uint64_t read_monotonic_ns = 0;  ///< CLOCK_MONOTONIC when the copy was taken

  /// Identity of local rank 0, the segment's creator.
  ProcessIdentity creator() const;
};

/// How strict a reader is about who owns a segment.
struct ReadOptions {
  /// Accept segments of other users (a root daemon does); otherwise only the caller's own,
  /// and root's reader accepts everything whose owner matches its header.
  bool other_users = true;
  /// Attempts per slot before a seqlock copy gives up (a writer that died while publishing);
  /// after the first few, attempts yield and then sleep 50 us: about 50 ms at most.
  int max_tries = 1000;
};

/// Reads and validates the segment at `path`. Errors: kNotFound (no file), kIo (cannot open
/// or read, permission), kParse (corrupt, truncated, impossible values, owner mismatch).
Expected<SegmentSnapshot> read_segment(const std::string& path, const ReadOptions& options = {});

/// Whether the job that wrote a segment still runs: alive while its creator or any attached
/// rank is alive; unknown when it ran in another pid namespace.
Liveness job_liveness(const SegmentSnapshot& snapshot);

/// One file found by scan_segments.
struct ScanEntry {
  std::string path;
  Expected<SegmentSnapshot> snapshot = Error(Errc::kInternal, "not read");
  bool removed_stale = false;  ///< it belonged to a dead job and was removed
};

/// Reads every segment file in `directory` (default segment_directory()); removes the ones
/// whose job is dead (when the caller may). Live and unreadable ones are returned.
std::vector<ScanEntry> scan_segments(const std::string& directory = {},
                                     const ReadOptions& options = {});

/// CLOCK_MONOTONIC in nanoseconds (the clock every *_ns time field of the segment uses).
std::uint64_t monotonic_ns();

}  // namespace symmer::segment
