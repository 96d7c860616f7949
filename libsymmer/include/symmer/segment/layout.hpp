// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The node segment: one shared-memory file per job per node, written by the job's ranks (the
// PMPI shim) and read by the analyzer (embedded in local rank 0, or symmerd) and symmerctl.
//
// File: <dir>/symmer-<uid>-<job id, 16 hex>-<node id>, dir = $SYMMER_SHM_DIR or /dev/shm,
// mode 0600, created by local rank 0 after MPI_Init, removed at MPI_Finalize (or by any later
// reader that finds every process of the job dead).
//
//   offset 0                 SegmentHeader        immutable once `magic` is published, except
//                                                 the two daemon words (symmerd's claim)
//   header.summaries_offset  SummaryArea          seqlock; NodeSummary[node_buckets] (inter-node)
//   header.slots_offset      Slot 0 .. Slot local_ranks-1, each header.slot_size bytes:
//        +0    SlotIdentity   64 B  seq (seqlock) + who the rank is and where it runs
//        +64   SlotControl    64 B  command word (analyzer -> rank) and ack (rank -> analyzer)
//        +128  SlotCounters         cumulative, monotonic figures of the rank
//        +...  PeerCounters[local_ranks]    traffic with each local rank (index = local rank)
//        +...  PeerCounters[node_buckets]   traffic with remote nodes (index = node index %
//                                           node_buckets)
//
// Every field is a 64-bit integer at an 8-byte aligned offset, so both sides copy words with
// relaxed atomics (no torn values, no data races); every counter is cumulative since the rank
// attached and never decreases: readers compute window deltas themselves.
//
// Seqlock protocol (identity except `seq`, counters, peers): the writer makes `seq` odd, writes,
// then makes it even again (release). A reader copies the slot and accepts the copy only when
// `seq` was even and unchanged before and after; otherwise it retries.
//
// The segment is untrusted input: readers validate every field (segment/reader.hpp).
// Any change to this layout bumps kSegmentVersion.

#include <cstddef>
#include <cstdint>

namespace symmer::segment {

inline constexpr std::uint64_t kSegmentMagic = 0x31474553'4d4d5953ull;  // "SYMMSEG1"
inline constexpr std::uint64_t kSegmentVersion = 1;
inline constexpr std::size_t kCacheLine = 64;
/// Bounds a reader accepts; a header beyond them is corrupt.
inline constexpr std::uint64_t kMaxLocalRanks = 4096;
inline constexpr std::uint64_t kMaxNodeBuckets = 1024;
inline constexpr std::uint64_t kMaxWorldSize = 1ull << 24;

/// Which MPI library the writing shim was built for.
enum class MpiFamily : std::uint64_t { kUnknown = 0, kMpich = 1, kOpenMpi = 2 };

/// Classes of intercepted MPI calls, counted per rank (SlotCounters::calls).
enum class CallClass : std::uint64_t {
  kSend,         ///< blocking sends (MPI_Send, Ssend, Bsend, Rsend)             idle
  kRecv,         ///< blocking receives (MPI_Recv, Mrecv)                        idle
  kSendrecv,     ///< MPI_Sendrecv, Sendrecv_replace                              idle
  kIsend,        ///< nonblocking send posts (Isend, Issend, Ibsend, Irsend)     other
  kIrecv,        ///< nonblocking receive posts (Irecv, Imrecv)                  other
  kPersistent,   ///< persistent request set-up and start (*_init, Start*)       other
  kWait,         ///< Wait, Waitall, Waitany, Waitsome                           idle
  kTest,         ///< Test, Testall, Testany, Testsome, Request_get_status       idle
  kProbe,        ///< blocking probes (Probe, Mprobe)                            idle
  kIprobe,       ///< nonblocking probes (Iprobe, Improbe)                       idle
  kCollective,   ///< blocking collectives (Barrier, Bcast, Allreduce, ...)      idle
  kIcollective,  ///< nonblocking collective posts (Ibarrier, Iallreduce, ...)   other
  kRmaSync,      ///< one-sided synchronisation (Win_fence, lock/unlock, ...)    idle
  kCount
};
inline constexpr std::size_t kCallClassCount = static_cast<std::size_t>(CallClass::kCount);

/// Name of a call class ("send", "wait", ...), for reports.
const char* call_class_name(CallClass c) noexcept;

/// SlotIdentity::state.
enum class SlotState : std::uint64_t {
  kFree = 0,      ///< no rank attached yet
  kActive = 1,    ///< the rank is running and publishing
  kFinished = 2,  ///< the rank passed MPI_Finalize; its figures are final
};

/// SlotCounters::counters_status: can this rank count cache misses (PAPI)?
enum class CountersStatus : std::uint64_t {
  kUnknown = 0,      ///< not yet decided (before the first publish)
  kAvailable = 1,    ///< cache_misses counts `counters_event` of the thread that called MPI_Init
  kUnavailable = 2,  ///< PAPI has no usable counter here (VMs, perf_event_paranoid...)
  kDisabled = 3,     ///< SYMMER_PAPI=off
};

/// SlotCounters::counters_event: which PAPI preset cache_misses counts.
enum class CacheEvent : std::uint64_t { kNone = 0, kL1Dcm = 1, kL2Tcm = 2, kL3Tcm = 3 };

/// The segment header. Written once by local rank 0 before it publishes `magic` (release).
struct SegmentHeader {
  std::uint64_t magic;                 ///< kSegmentMagic once complete; 0 while being built
  std::uint64_t version;               ///< kSegmentVersion
  std::uint64_t header_size;           ///< sizeof(SegmentHeader)
  std::uint64_t total_size;            ///< size of the whole file in bytes
  std::uint64_t slot_size;             ///< bytes per slot (slot_bytes(local_ranks, node_buckets))
  std::uint64_t slots_offset;          ///< offset of slot 0
  std::uint64_t summaries_offset;      ///< offset of the SummaryArea
  std::uint64_t local_ranks;           ///< slots (ranks of the job on this node), 1..kMaxLocalRanks
  std::uint64_t node_buckets;          ///< remote-node peer entries per slot and node summaries
  std::uint64_t node_count;            ///< nodes the job runs on
  std::uint64_t node_index;            ///< this node's index among them, 0..node_count-1
  std::uint64_t node_id;               ///< node identity (SYMMER_NODE_ID or node_index)
  std::uint64_t world_size;            ///< ranks of MPI_COMM_WORLD
  std::uint64_t job_id;                ///< same on every node of the job, never 0
  std::uint64_t owner_uid;             ///< uid of the job; must equal the file's owner
  std::uint64_t creator_pid;           ///< local rank 0
  std::uint64_t creator_start_ticks;   ///< its start time (/proc/<pid>/stat field 22)
  std::uint64_t pid_namespace;         ///< inode of /proc/self/ns/pid of the job's processes
  std::uint64_t created_realtime_ns;   ///< CLOCK_REALTIME at creation
  std::uint64_t created_monotonic_ns;  ///< CLOCK_MONOTONIC at creation
  std::uint64_t mpi_family;            ///< MpiFamily
  std::uint64_t thread_level;          ///< MPI thread level provided: 0 single .. 3 multiple
  std::uint64_t eager_limit_local;     ///< bytes; larger sends to local peers are rendezvous
  std::uint64_t eager_limit_remote;    ///< bytes; larger sends to remote peers are rendezvous
  std::uint64_t publish_period_ns;     ///< how often ranks publish at most (SYMMER_PERIOD_MS)
  /// symmerd that analyses this job (0: none): while its claim holds, the embedded analyzer
  /// stands by. Written only by symmerd (control.hpp claim_for_daemon), never by the ranks.
  std::uint64_t daemon_pid;
  std::uint64_t daemon_lease_ns;  ///< CLOCK_MONOTONIC until which that claim holds
  std::uint64_t reserved[5];      ///< zero
  char hostname[64];                   ///< NUL-terminated
  char app_name[64];                   ///< basename of the application, NUL-terminated
  char mpi_library[128];               ///< first line of MPI_Get_library_version
};
static_assert(sizeof(SegmentHeader) == 512);

/// Summary of one node of the job, exchanged by the local rank 0s (multi-node jobs only).
/// All figures are cumulative sums over the node's ranks.
struct NodeSummary {
  std::uint64_t valid;  ///< 1 once received
  std::uint64_t node_id;
  std::uint64_t node_index;
  std::uint64_t local_ranks;
  std::uint64_t idle_ns;
  std::uint64_t compute_ns;
  std::uint64_t out_of_sync_ns;
  std::uint64_t late_sender_ns;
  std::uint64_t send_wait_ns;
  std::uint64_t bytes_sent_remote;  ///< to ranks on other nodes
  std::uint64_t bytes_recv_remote;
  std::uint64_t worst_out_of_sync_rank;  ///< global rank with the most out_of_sync_ns
  std::uint64_t worst_out_of_sync_ns;
  std::uint64_t worst_late_sender_rank;  ///< global rank with the most late_sender_ns
  std::uint64_t worst_late_sender_ns;
  std::uint64_t exchange;  ///< number of the exchange this summary came from
};
static_assert(sizeof(NodeSummary) == 128);

/// Inter-node area, written only by local rank 0 after each completed exchange.
struct SummaryArea {
  std::uint64_t seq;               ///< seqlock over this area
  std::uint64_t exchanges;         ///< completed exchanges
  std::uint64_t last_exchange_ns;  ///< CLOCK_MONOTONIC of the last one
  std::uint64_t reserved[5];
  // NodeSummary summaries[node_buckets] follows.
};
static_assert(sizeof(SummaryArea) == kCacheLine);

/// Who a rank is and where it runs. Cache line 0 of a slot.
struct SlotIdentity {
  std::uint64_t seq;          ///< seqlock sequence, odd while the rank writes
  std::uint64_t state;        ///< SlotState
  std::uint64_t local_rank;   ///< equals the slot index
  std::uint64_t global_rank;  ///< rank in MPI_COMM_WORLD
  std::uint64_t pid;
  std::uint64_t start_ticks;  ///< process start time (/proc/<pid>/stat field 22)
  std::int64_t cpu;           ///< Linux CPU the rank last published from, -1 before that
  std::uint64_t threads;      ///< threads of the rank that have called MPI
};
static_assert(sizeof(SlotIdentity) == kCacheLine);

/// The control words of a slot: written by the analyzer (command) and the rank (ack).
/// Each is one atomic 64-bit word; see encode_command / encode_ack.
struct SlotControl {
  std::uint64_t command;         ///< analyzer -> rank: {generation, target Linux CPU}
  std::uint64_t ack;             ///< rank -> analyzer: {generation, status, cpu}
  std::uint64_t rebinds_ok;      ///< commands the rank applied
  std::uint64_t rebinds_failed;  ///< commands the rank could not apply
  std::uint64_t reserved[4];
};
static_assert(sizeof(SlotControl) == kCacheLine);

/// Cumulative figures of one rank (summed over its threads that call MPI).
struct SlotCounters {
  std::uint64_t publish_count;
  std::uint64_t last_publish_ns;          ///< CLOCK_MONOTONIC of the last publish
  std::uint64_t idle_ns;                  ///< inside blocking/completing MPI calls
  std::uint64_t compute_ns;               ///< between MPI calls
  std::uint64_t other_mpi_ns;             ///< inside nonblocking posts (neither idle nor compute)
  std::uint64_t out_of_sync_ns;           ///< compute while holding a rendezvous send incomplete
  std::uint64_t pending_send_compute_ns;  ///< compute while holding any nonblocking send incomplete
  std::uint64_t send_wait_ns;             ///< blocking sends waiting for the receiver
  std::uint64_t late_sender_ns;           ///< receives/probes/waits blocked for a sender
  std::uint64_t shim_ns;                  ///< the shim's own slow paths (publish, exchange)
  std::uint64_t bytes_sent;               ///< point-to-point payload
  std::uint64_t bytes_recv;
  std::uint64_t msgs_sent;
  std::uint64_t msgs_recv;
  std::uint64_t calls[kCallClassCount];  ///< per CallClass
  std::uint64_t cache_misses;            ///< valid when counters_status == kAvailable
  std::uint64_t counters_status;         ///< CountersStatus
  std::uint64_t counters_event;          ///< CacheEvent
  std::uint64_t untracked_requests;      ///< requests the shim could not follow (table full)
  std::uint64_t in_mpi_threads;          ///< threads inside MPI at the last publish
  std::uint64_t reserved[8];
};
static_assert(sizeof(SlotCounters) % kCacheLine == 0);

/// Traffic between a rank and one peer (a local rank, or a remote node).
struct PeerCounters {
  std::uint64_t bytes_sent;
  std::uint64_t bytes_recv;
  std::uint64_t msgs_sent;
  std::uint64_t msgs_recv;
  std::uint64_t late_sender_ns;  ///< this rank waited for a message from the peer
  std::uint64_t send_wait_ns;    ///< this rank's blocking sends waited for the peer to receive
};
static_assert(sizeof(PeerCounters) == 48);

inline constexpr std::size_t kSlotControlOffset = sizeof(SlotIdentity);
inline constexpr std::size_t kSlotCountersOffset = kSlotControlOffset + sizeof(SlotControl);
inline constexpr std::size_t kSlotPeersOffset = kSlotCountersOffset + sizeof(SlotCounters);

/// Bytes of one slot for a job with `local_ranks` ranks on the node and `node_buckets` remote
/// node entries, rounded up to a cache line.
constexpr std::uint64_t slot_bytes(std::uint64_t local_ranks, std::uint64_t node_buckets) {
  const std::uint64_t raw = kSlotPeersOffset + (local_ranks + node_buckets) * sizeof(PeerCounters);
  return (raw + kCacheLine - 1) / kCacheLine * kCacheLine;
}

/// Offset of the SummaryArea.
inline constexpr std::uint64_t kSummariesOffset = sizeof(SegmentHeader);

/// Offset of slot 0 for `node_buckets` summaries.
constexpr std::uint64_t slots_offset(std::uint64_t node_buckets) {
  const std::uint64_t raw =
      kSummariesOffset + sizeof(SummaryArea) + node_buckets * sizeof(NodeSummary);
  return (raw + kCacheLine - 1) / kCacheLine * kCacheLine;
}

/// Size of the whole segment file.
constexpr std::uint64_t segment_bytes(std::uint64_t local_ranks, std::uint64_t node_buckets) {
  return slots_offset(node_buckets) + local_ranks * slot_bytes(local_ranks, node_buckets);
}

// ---- command and ack words ------------------------------------------------------------------

/// A re-bind order: the rank moves all its threads to Linux CPU `cpu`. A new `generation`
/// (never 0, incremented by the analyzer for each new order) makes the rank act on it.
struct Command {
  std::uint32_t generation = 0;
  std::int32_t cpu = -1;
};

/// Outcome of a command, as the rank reports it.
enum class AckStatus : std::uint32_t {
  kNone = 0,        ///< nothing acknowledged yet
  kOk = 1,          ///< every thread now runs on `cpu`
  kNotAllowed = 2,  ///< the CPU is outside the rank's allowed cpuset (cgroup/taskset)
  kInvalidCpu = 3,  ///< no such CPU on this node
  kFailed = 4,      ///< sched_setaffinity failed for another reason (partially applied)
};

/// The rank's answer to the command of `generation`.
struct Ack {
  std::uint32_t generation = 0;
  AckStatus status = AckStatus::kNone;
  std::int32_t cpu = -1;  ///< CPU the rank is bound to after applying (the target when ok)
};

/// Name of an ack status ("ok", "not-allowed", ...).
const char* ack_status_name(AckStatus s) noexcept;

constexpr std::uint64_t encode_command(Command c) {
  return (std::uint64_t{c.generation} << 32) | std::uint32_t(c.cpu);
}
constexpr Command decode_command(std::uint64_t w) {
  return {std::uint32_t(w >> 32), std::int32_t(std::uint32_t(w))};
}
/// Ack word: generation (32 bits) | status (8 bits) | cpu + 1 (24 bits, 0 = unknown).
constexpr std::uint64_t encode_ack(Ack a) {
  return (std::uint64_t{a.generation} << 32) | (std::uint64_t(a.status) & 0xff) << 24 |
         (std::uint64_t(std::uint32_t(a.cpu + 1)) & 0xffffff);
}
constexpr Ack decode_ack(std::uint64_t w) {
  return {std::uint32_t(w >> 32), AckStatus((w >> 24) & 0xff), std::int32_t(w & 0xffffff) - 1};
}

}  // namespace symmer::segment
