// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Writer side of the node segment (layout.hpp): local rank 0 creates it, every local rank
// attaches to it and publishes into its own slot. Used by the PMPI shim; no MPI in here.

#include <cstdint>
#include <string>

#include "symmer/expected.hpp"
#include "symmer/segment/guarded_mapping.hpp"
#include "symmer/segment/layout.hpp"

namespace symmer::segment {

/// What local rank 0 knows about the job when it creates the segment.
struct SegmentParams {
  std::string directory;  ///< empty: segment_directory()
  std::uint64_t job_id = 0;
  std::uint64_t node_id = 0;
  std::uint64_t node_index = 0;
  std::uint64_t node_count = 1;
  std::uint64_t local_ranks = 1;
  std::uint64_t world_size = 1;
  MpiFamily mpi_family = MpiFamily::kUnknown;
  std::uint64_t thread_level = 0;
  std::uint64_t eager_limit_local = 0;
  std::uint64_t eager_limit_remote = 0;
  std::uint64_t publish_period_ns = 10'000'000;
  std::string app_name;
  std::string mpi_library;
};

/// A mapped node segment. Move-only; unmaps (but does not remove) on destruction.
///
/// Its owner (the job's user) can change the file under the job: the slots' places and sizes
/// are fixed when the writer creates or attaches it (never taken again from the header), the
/// mapping is under the SIGBUS guard (guarded_mapping.hpp: a truncated file faults nobody),
/// and intact() tells when the file is no longer what it was, so the ranks stop publishing.
class SegmentWriter {
 public:
  /// Creates the segment file (mode 0600, exclusive) and publishes its header. First removes
  /// the caller's segments of jobs that ended (remove_stale_segments). An existing file of the
  /// same name is replaced only when it is the caller's and nobody needs it; otherwise this
  /// fails with a message naming the owner or the live job.
  static Expected<SegmentWriter> create(const SegmentParams& params);

  /// Maps a segment another rank created; checks that it is a complete segment of `job_id`
  /// on `node_id` with `local_ranks` slots, owned by the caller.
  static Expected<SegmentWriter> attach(const std::string& path, std::uint64_t job_id,
                                        std::uint64_t node_id, std::uint64_t local_ranks);

  SegmentWriter(SegmentWriter&& other) noexcept;
  SegmentWriter& operator=(SegmentWriter&& other) noexcept;
  SegmentWriter(const SegmentWriter&) = delete;
  SegmentWriter& operator=(const SegmentWriter&) = delete;
  ~SegmentWriter();

  const std::string& path() const { return path_; }
  /// The header as it is now in memory. Read it at set-up only: its owner can change it later.
  const SegmentHeader& header() const { return *static_cast<const SegmentHeader*>(map_.data()); }
  std::uint64_t local_ranks() const { return local_ranks_; }
  std::uint64_t node_buckets() const { return node_buckets_; }

  /// Start of slot `local_rank` (< local_ranks(); SlotIdentity at +0, see layout.hpp).
  std::byte* slot(std::uint64_t local_rank) const;
  SlotIdentity& identity(std::uint64_t local_rank) const;
  SlotControl& control(std::uint64_t local_rank) const;
  SlotTarget& target(std::uint64_t local_rank) const;
  SlotPlacement& placement(std::uint64_t local_rank) const;
  SlotCounters& counters(std::uint64_t local_rank) const;
  /// local_ranks local peers followed by node_buckets remote nodes.
  PeerCounters* peers(std::uint64_t local_rank) const;
  SummaryArea& summary_area() const;
  NodeSummary* summaries() const;

  /// Marks slot `local_rank` active for the calling process (pid, start time, ranks), launched
  /// on the CPUs of `launch` (also its current set) with `compute_threads` (0: unknown). False,
  /// writing nothing, when the slot's sequence word is odd (someone else writes there).
  bool attach_slot(std::uint64_t local_rank, std::uint64_t global_rank, const CpuMask& launch,
                   std::uint64_t compute_threads) const;

  /// Ok while the file is the one this writer made or attached: same size, still linked,
  /// and the mapping still reaches it. Else what happened to it ("truncated to N bytes",
  /// "removed", ...): the job must stop publishing.
  Status intact() const;

  /// Removes the file, when its name still leads to this very file (the mapping stays valid
  /// until destruction).
  Status remove() const;

 private:
  SegmentWriter(std::string path, int fd, GuardedMapping map, const SegmentHeader& h);
  std::string path_;
  int fd_ = -1;  // kept to tell what became of the file
  GuardedMapping map_;
  std::uint64_t total_ = 0, slots_offset_ = 0, slot_size_ = 0, summaries_offset_ = 0;
  std::uint64_t local_ranks_ = 0, node_buckets_ = 0;
};

}  // namespace symmer::segment
