// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Validating reader of node segments (layout.hpp): used by the analyzer, symmerd and symmerctl.
//
// The segment is untrusted input (any process of the owner can write it): the reader copies
// it with pread (a truncated or shrinking file cannot fault the reader), takes consistent
// slot copies through the seqlock, and rejects a segment whose magic, version, sizes, names or
// values are impossible, saying which field was wrong.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "symmer/expected.hpp"
#include "symmer/segment/layout.hpp"
#include "symmer/segment/process_identity.hpp"
#include "symmer/segment/segment_file.hpp"

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
  std::vector<NodeSummary> summaries;  ///< node_buckets entries (multi-node jobs)
  std::vector<SlotSnapshot> slots;     ///< local_ranks entries
  std::uint64_t file_uid = 0;          ///< owner of the file
  std::uint64_t file_device = 0;       ///< the file's st_dev and st_ino: which file it is
  std::uint64_t file_inode = 0;
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
  /// Largest segment read, in bytes: a header announcing more is refused before anything
  /// past it is read or allocated (0: no bound). symmerd bounds what one user costs it.
  std::uint64_t max_bytes = 0;
  /// Called with the validated header before the rest is read; an error stops the read and
  /// is returned (symmerd's per-user budget of bytes per period).
  std::function<Status(const SegmentHeader&)> admit;
};

/// Reads and validates the segment at `path`. Errors: kNotFound (no file), kIo (cannot open
/// or read, permission), kParse (corrupt, truncated, impossible values, owner mismatch, over
/// max_bytes), or admit's.
Expected<SegmentSnapshot> read_segment(const std::string& path, const ReadOptions& options = {});
/// The same, of a file already open.
Expected<SegmentSnapshot> read_segment(const SegmentFile& file, const ReadOptions& options = {});

/// Whether the job that wrote a segment still runs: alive while its creator or an attached
/// rank is one of its processes (segment/job_process.hpp: the recorded process, running as
/// the segment's owner, mapping the segment); unknown when they ran in another pid namespace
/// or /proc could not be read. A pid of someone else's (pid 1, say) keeps no job alive.
Liveness job_liveness(const SegmentSnapshot& snapshot, const std::string& proc_root = "/proc");

/// Whether the segment file `file` (read as `snapshot`) is needed by nobody: its job is dead,
/// or it is corrupt and the creator its header names is not one of its processes (dead, or
/// absent: the header is garbage) and the file has not changed for `grace_ns`. kUnknown when
/// that cannot be told (another pid namespace, /proc unreadable).
Liveness segment_liveness(const SegmentFile& file, const Expected<SegmentSnapshot>& snapshot,
                          std::uint64_t grace_ns = 10'000'000'000ull);

/// One file found by scan_segments.
struct ScanEntry {
  std::string path;
  Expected<SegmentSnapshot> snapshot = Error(Errc::kInternal, "not read");
  bool removed_stale = false;  ///< nobody needed it (segment_liveness) and it was removed
};

/// Reads every segment file in `directory` (default segment_directory()); removes the ones
/// nobody needs (when the caller may: its own, or any as root). Live and unreadable ones are
/// returned.
std::vector<ScanEntry> scan_segments(const std::string& directory = {},
                                     const ReadOptions& options = {});

/// Largest segment remove_stale_segments reads in full.
inline constexpr std::uint64_t kStaleScanBytes = std::uint64_t{64} << 20;

/// Removes the segment files of user `uid` in `directory` (default segment_directory()) that
/// nobody needs, looking at no more than `limit` of them (a new job does this for its user).
/// Returns how many it removed.
int remove_stale_segments(const std::string& directory, std::uint64_t uid, int limit = 64);

/// CLOCK_MONOTONIC in nanoseconds (the clock every *_ns time field of the segment uses).
std::uint64_t monotonic_ns();

}  // namespace symmer::segment
