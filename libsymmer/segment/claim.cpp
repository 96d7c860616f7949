// SPDX-License-Identifier: BSD-3-Clause
// The claim words and the rules that make a claim exclusive (see claim.hpp).
#include "symmer/segment/claim.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "symmer/segment/reader.hpp"

namespace symmer::segment {
namespace {

constexpr std::uint64_t kFirst = offsetof(SegmentHeader, claim_pid);
constexpr std::uint64_t kBytes = offsetof(SegmentHeader, claim_wanted_until_ns) + 8 - kFirst;

bool same_process(const ProcessIdentity& a, const ProcessIdentity& b) {
  return a.pid == b.pid && a.start_ticks == b.start_ticks && a.pid_namespace == b.pid_namespace;
}

// Writes the whole claim; false when a write failed (the file shrank).
bool write_claim(const SegmentFile& file, const Claim& c) {
  return file.write_word(offsetof(SegmentHeader, claim_lease_ns), c.lease_until_ns) &&
         file.write_word(offsetof(SegmentHeader, claim_start_ticks), c.holder.start_ticks) &&
         file.write_word(offsetof(SegmentHeader, claim_pid_namespace), c.holder.pid_namespace) &&
         file.write_word(offsetof(SegmentHeader, claim_kind), static_cast<std::uint64_t>(c.kind)) &&
         file.write_word(offsetof(SegmentHeader, claim_wanted_until_ns), c.wanted_until_ns) &&
         file.write_word(offsetof(SegmentHeader, claim_pid),
                         static_cast<std::uint64_t>(c.holder.pid));
}

// Holds the lock on the claim words while it lives.
class ClaimLock {
 public:
  explicit ClaimLock(const SegmentFile& file) : file_(file), held_(file.try_lock(kFirst, kBytes)) {}
  ~ClaimLock() {
    if (held_) file_.unlock(kFirst, kBytes);
  }
  ClaimLock(const ClaimLock&) = delete;
  ClaimLock& operator=(const ClaimLock&) = delete;
  bool held() const { return held_; }

 private:
  const SegmentFile& file_;
  bool held_;
};

}  // namespace

const char* claim_kind_name(ClaimKind kind) noexcept {
  switch (kind) {
    case ClaimKind::kEmbedded:
      return "embedded";
    case ClaimKind::kDaemon:
      return "symmerd";
    case ClaimKind::kNone:
      break;
  }
  return "none";
}

Claim read_claim(const SegmentFile& file) {
  std::uint64_t w[kBytes / 8] = {};
  if (!file.read(kFirst, w, sizeof w)) return {};
  SegmentHeader h{};
  std::memcpy(reinterpret_cast<char*>(&h) + kFirst, w, sizeof w);
  Claim c;
  c.holder.pid = static_cast<pid_t>(h.claim_pid);
  c.holder.start_ticks = h.claim_start_ticks;
  c.holder.pid_namespace = h.claim_pid_namespace;
  c.kind = h.claim_kind <= static_cast<std::uint64_t>(ClaimKind::kDaemon)
               ? static_cast<ClaimKind>(h.claim_kind)
               : ClaimKind::kNone;
  c.lease_until_ns = h.claim_lease_ns;
  c.wanted_until_ns = h.claim_wanted_until_ns;
  if (h.claim_pid > static_cast<std::uint64_t>(INT32_MAX)) c.holder.pid = 0;  // not a pid
  return c;
}

ClaimOutcome try_claim(const SegmentFile& file, const ProcessIdentity& me, ClaimKind kind,
                       std::uint64_t now_ns, std::uint64_t lease_until_ns, Claim* found) {
  const ClaimLock lock(file);
  if (!lock.held()) return ClaimOutcome::kBusy;
  const Claim c = read_claim(file);
  if (found != nullptr) *found = c;
  const bool mine = c.holder.pid != 0 && same_process(c.holder, me) && c.kind == kind;
  // A dead holder cannot act any more; "unknown" (another or no recorded pid namespace, /proc
  // unreadable) waits for the lease to lapse.
  const bool dead = c.holder.pid_namespace != 0 && liveness(c.holder) == Liveness::kDead;
  const bool free = !mine && (!c.held(now_ns) || dead);
  const bool daemon_waits = c.wanted_until_ns > now_ns;
  if (kind == ClaimKind::kEmbedded && daemon_waits) {
    if (mine) {  // let go: the daemon takes the free claim at its next period
      Claim cleared;
      cleared.wanted_until_ns = c.wanted_until_ns;
      return write_claim(file, cleared) ? ClaimOutcome::kYielded : ClaimOutcome::kBusy;
    }
    if (free) return ClaimOutcome::kTaken;  // left for the daemon
  }
  if (mine || free) {
    Claim next;
    next.holder = me;
    next.kind = kind;
    next.lease_until_ns = lease_until_ns;
    next.wanted_until_ns = kind == ClaimKind::kDaemon ? 0 : c.wanted_until_ns;
    return write_claim(file, next) ? ClaimOutcome::kHeld : ClaimOutcome::kBusy;
  }
  if (kind == ClaimKind::kDaemon && c.kind == ClaimKind::kEmbedded &&
      !file.write_word(offsetof(SegmentHeader, claim_wanted_until_ns), lease_until_ns))
    return ClaimOutcome::kBusy;
  return ClaimOutcome::kTaken;
}

void release_claim(const SegmentFile& file, const ProcessIdentity& me) {
  const ClaimLock lock(file);
  if (!lock.held()) return;
  const Claim c = read_claim(file);
  if (c.holder.pid == 0 || !same_process(c.holder, me)) return;
  Claim cleared;
  cleared.wanted_until_ns = c.wanted_until_ns;
  write_claim(file, cleared);
}

Expected<JobClaim> JobClaim::open(const std::string& path, ClaimKind kind) {
  auto file = SegmentFile::open(path, SegmentFile::Access::kReadWrite);
  if (!file) return file.error();
  return JobClaim(std::move(*file), kind);
}

JobClaim::JobClaim(SegmentFile file, ClaimKind kind)
    : file_(std::move(file)), kind_(kind), me_(this_process()) {}

ClaimOutcome JobClaim::renew(std::uint64_t lease_ns, Claim* found) {
  const std::uint64_t now = monotonic_ns();
  const ClaimOutcome outcome = try_claim(file_, me_, kind_, now, now + lease_ns, found);
  // A claim that could not be looked at (locked, the file changed) is kept while its lease
  // lasts: acting() ends the actions in time.
  if (outcome == ClaimOutcome::kHeld) {
    held_ = true;
    lease_until_ns_ = now + lease_ns;
  } else if (outcome != ClaimOutcome::kBusy) {
    held_ = false;
  }
  return outcome;
}

void JobClaim::release() {
  if (held_) release_claim(file_, me_);
  held_ = false;
}

bool JobClaim::acting() const { return held_ && monotonic_ns() + kActMargin < lease_until_ns_; }

}  // namespace symmer::segment
