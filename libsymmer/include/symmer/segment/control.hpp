// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Decision side of the slot control words (layout.hpp SlotControl): the analyzer or symmerd
// orders a rank onto a CPU set and reads the rank's acknowledgement. The rank side lives in
// the PMPI shim (it re-binds all its threads at its next MPI call).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "symmer/expected.hpp"
#include "symmer/segment/layout.hpp"

namespace symmer::segment {

/// A symmerd's claim on the analysis of a job (SegmentHeader::daemon_pid, daemon_lease_ns).
struct DaemonClaim {
  std::uint64_t pid = 0;             ///< the daemon's pid (in its own pid namespace), 0: none
  std::uint64_t lease_until_ns = 0;  ///< CLOCK_MONOTONIC until which the claim holds

  /// True while a daemon holds the claim at CLOCK_MONOTONIC time `now_ns`.
  bool held(std::uint64_t now_ns) const { return pid != 0 && now_ns < lease_until_ns; }
};

/// A read-write mapping of a validated segment, for its control words only.
/// The segment must belong to the caller (or the caller be root). Move-only.
class SegmentControl {
 public:
  /// Validates the segment (read_segment) and maps it.
  static Expected<SegmentControl> open(const std::string& path);

  SegmentControl(SegmentControl&& other) noexcept;
  SegmentControl& operator=(SegmentControl&& other) noexcept;
  SegmentControl(const SegmentControl&) = delete;
  SegmentControl& operator=(const SegmentControl&) = delete;
  ~SegmentControl();

  std::uint64_t local_ranks() const { return local_ranks_; }

  /// Orders local rank `local_rank` onto the Linux CPUs `cpus` (its whole set: each thread
  /// keeps its relative place in it) with a new generation, which it returns.
  /// kInvalidArgument for a rank out of range, no CPU, or a CPU this node does not have.
  Expected<std::uint32_t> post_command(std::uint64_t local_rank, std::span<const int> cpus) const;

  /// The command currently posted for `local_rank`.
  Command command(std::uint64_t local_rank) const;
  /// The CPUs of the command currently posted for `local_rank` (empty when none is).
  std::vector<int> command_cpus(std::uint64_t local_rank) const;

  /// The rank's latest acknowledgement.
  Ack ack(std::uint64_t local_rank) const;

  /// The current daemon claim.
  DaemonClaim daemon_claim() const;
  /// Claims the job's analysis for daemon `pid` until `lease_until_ns`, or renews its claim.
  /// False, changing nothing, while another pid holds an unexpired claim, unless `take_over`
  /// (the caller found that daemon dead).
  bool claim_for_daemon(std::uint64_t pid, std::uint64_t lease_until_ns,
                        bool take_over = false) const;
  /// Drops the claim of daemon `pid` (a claim of another pid stays): the embedded analyzer
  /// takes over again at once.
  void release_daemon_claim(std::uint64_t pid) const;

 private:
  SegmentControl(void* base, std::size_t size, std::uint64_t slots_offset, std::uint64_t slot_size,
                 std::uint64_t local_ranks)
      : base_(base),
        size_(size),
        slots_offset_(slots_offset),
        slot_size_(slot_size),
        local_ranks_(local_ranks) {}
  SlotControl& control(std::uint64_t local_rank) const;
  SlotTarget& target(std::uint64_t local_rank) const;
  SegmentHeader& header() const { return *static_cast<SegmentHeader*>(base_); }

  void* base_ = nullptr;
  std::size_t size_ = 0;
  std::uint64_t slots_offset_ = 0;
  std::uint64_t slot_size_ = 0;
  std::uint64_t local_ranks_ = 0;
};

}  // namespace symmer::segment
