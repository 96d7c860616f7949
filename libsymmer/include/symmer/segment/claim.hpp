// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Who analyses a job: at most one of its embedded analyzer, a user's symmerd and root's
// symmerd acts on it at a time. The claim words of the segment header (layout.hpp
// SegmentHeader::claim_*) say who holds the job and until when; they change only under an
// open-file-description lock on them (segment_file.hpp try_lock), so two analyzers never
// change them at once, and through pwrite, so no analyzer maps a file it does not own.
//
// The rules that make the claim exclusive:
//   - A claim is taken only when it is free, its lease has lapsed, or its holder is dead
//     (the recorded pid + start time no longer runs, judged in the holder's pid namespace;
//     "unknown" is never "dead").
//   - The holder acts (posts commands, binds, migrates pages) only while its own lease has
//     at least kActMargin left, and renews it well before then. So whoever takes a lapsed
//     claim knows the previous holder has stopped.
//   - A daemon outranks the embedded analyzer: it asks for the job (claim_wanted_until_ns),
//     the embedded analyzer lets go at its next window, and the daemon takes the free claim
//     at its next period. The request lapses by itself if that daemon goes away.
//   - Daemons do not take jobs from each other: the first keeps the job while it lives.

#include <cstdint>
#include <string>

#include "symmer/expected.hpp"
#include "symmer/segment/layout.hpp"
#include "symmer/segment/process_identity.hpp"
#include "symmer/segment/segment_file.hpp"

namespace symmer::segment {

/// Who holds a claim.
enum class ClaimKind : std::uint64_t {
  kNone = 0,
  kEmbedded = 1,  ///< the job's own embedded analyzer
  kDaemon = 2,    ///< a symmerd (a user's or root's)
};

/// "embedded", "symmerd", "none".
const char* claim_kind_name(ClaimKind kind) noexcept;

/// The claim words as recorded.
struct Claim {
  ProcessIdentity holder;  ///< pid 0: nobody
  ClaimKind kind = ClaimKind::kNone;
  std::uint64_t lease_until_ns = 0;   ///< CLOCK_MONOTONIC until which it holds
  std::uint64_t wanted_until_ns = 0;  ///< a daemon waits for the embedded analyzer until then

  /// Held by someone at CLOCK_MONOTONIC `now_ns` (the lease has not lapsed).
  bool held(std::uint64_t now_ns) const { return holder.pid != 0 && now_ns < lease_until_ns; }
};

/// A holder acts only while this much of its lease is left.
inline constexpr std::uint64_t kActMargin = 500'000'000;

/// The claim words of `file`; a Claim of nobody when they cannot be read.
Claim read_claim(const SegmentFile& file);

/// What try_claim found.
enum class ClaimOutcome {
  kHeld,     ///< the caller holds the claim until its new lease
  kTaken,    ///< someone else holds it (a daemon waiting for the embedded analyzer asked)
  kYielded,  ///< the caller (embedded) let go because a daemon asked for the job
  kBusy,     ///< the claim words were locked or could not be written: try again later
};

/// Takes or renews the claim of the job in `file` (opened read-write) for process `me` (the
/// caller: this_process()) as `kind`, until `lease_until_ns`. `now_ns` is CLOCK_MONOTONIC now.
/// `found` (may be null) receives the claim as it was.
ClaimOutcome try_claim(const SegmentFile& file, const ProcessIdentity& me, ClaimKind kind,
                       std::uint64_t now_ns, std::uint64_t lease_until_ns, Claim* found = nullptr);

/// Gives the claim up when `me` holds it (the next analyzer takes over at once).
void release_claim(const SegmentFile& file, const ProcessIdentity& me);

/// A job's claim as one analyzer (the calling process, as `kind`) holds it: its own read-write
/// descriptor of the segment file, and the lease it last wrote. Move-only.
class JobClaim {
 public:
  /// Opens the segment file at `path` read-write. The caller must own it, or be root.
  static Expected<JobClaim> open(const std::string& path, ClaimKind kind);

  /// Takes or renews the claim until `lease_ns` from now (try_claim); `found` (may be null)
  /// receives the claim as it was.
  ClaimOutcome renew(std::uint64_t lease_ns, Claim* found = nullptr);
  /// Gives it up when held.
  void release();
  /// The claim words as recorded now.
  Claim recorded() const { return read_claim(file_); }
  /// True while this analyzer holds the claim with at least kActMargin of its lease left:
  /// only then may it act on the job's ranks (commands, binding, page moves).
  bool acting() const;
  const SegmentFile& file() const { return file_; }

 private:
  JobClaim(SegmentFile file, ClaimKind kind);
  SegmentFile file_;
  ClaimKind kind_;
  ProcessIdentity me_;
  bool held_ = false;
  std::uint64_t lease_until_ns_ = 0;
};

}  // namespace symmer::segment
