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
//                                                 the claim words (who analyses the job)
//   header.summaries_offset  SummaryArea          seqlock; NodeSummary[node_buckets] (inter-node)
//   header.slots_offset      Slot 0 .. Slot local_ranks-1, each header.slot_size bytes:
//        +0    SlotIdentity   64 B  seq (seqlock) + who the rank is and where it runs
//        +64   SlotControl    64 B  command word (analyzer -> rank) and ack (rank -> analyzer)
//        +128  SlotTarget    128 B  the CPU set a command names (written with the command word)
//        +256  SlotPlacement 576 B  the rank's CPU sets: as launched, now, TSAR's workers and
//                                   GPU control cores in it
//        +832  SlotCounters         cumulative, monotonic figures of the rank
//        +...  PeerCounters[local_ranks]    traffic with each local rank (index = local rank)
//        +...  PeerCounters[node_buckets]   traffic with remote nodes (index = node index %
//                                           node_buckets)
//
// Every field is a 64-bit integer at an 8-byte aligned offset, so both sides copy words with
// relaxed atomics (no torn values, no data races); every counter is cumulative since the rank
// attached and never decreases: readers compute window deltas themselves.
//
// A rank is the set of CPUs it was launched on (its affinity mask at MPI_Init, widened by the
// OpenMP places of its runtime), not one core: commands name a whole set, and the rank maps
// each of its threads to the same relative place in it (pmpi-shim/README.md).
// CPU sets are CpuMask bitmaps of Linux CPU numbers 0..kMaxSegmentCpus-1.
//
// Seqlock protocol (identity except `seq`, placement, counters, peers): the writer makes `seq` odd,
// writes, then makes it even again (release). A reader copies the slot and accepts the copy only
// when `seq` was even and unchanged before and after; otherwise it retries.
//
// The segment is untrusted input: readers validate every field (segment/reader.hpp).
// Any change to this layout bumps kSegmentVersion.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace symmer::segment {

inline constexpr std::uint64_t kSegmentMagic = 0x31474553'4d4d5953ull;  // "SYMMSEG1"
inline constexpr std::uint64_t kSegmentVersion = 2;
inline constexpr std::size_t kCacheLine = 64;
/// Bounds a reader accepts; a header beyond them is corrupt.
inline constexpr std::uint64_t kMaxLocalRanks = 4096;
inline constexpr std::uint64_t kMaxNodeBuckets = 1024;
inline constexpr std::uint64_t kMaxWorldSize = 1ull << 24;
/// CPU masks of the segment: Linux CPUs 0..kMaxSegmentCpus-1 (as many as a cpu_set_t).
inline constexpr std::size_t kCpuMaskWords = 16;
inline constexpr int kMaxSegmentCpus = static_cast<int>(64 * kCpuMaskWords);

/// A set of Linux CPUs: bit c % 64 of word c / 64 is CPU c.
struct CpuMask {
  std::uint64_t words[kCpuMaskWords];
};
static_assert(sizeof(CpuMask) == 2 * 64);

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
  /// The claim: who analyses this job (claim.hpp). Written by analyzers only (the embedded
  /// one, symmerd), under a lock on these words, never by the ranks; zero in a new segment.
  std::uint64_t claim_pid;              ///< holder's pid in its pid namespace, 0: nobody
  std::uint64_t claim_lease_ns;         ///< CLOCK_MONOTONIC until which the claim holds
  std::uint64_t claim_start_ticks;      ///< holder's start time (a dead holder is told by it)
  std::uint64_t claim_pid_namespace;    ///< inode of the holder's pid namespace
  std::uint64_t claim_kind;             ///< ClaimKind of the holder
  std::uint64_t claim_wanted_until_ns;  ///< a symmerd waits for the job until then
  std::uint64_t reserved[1];            ///< zero
  char hostname[64];                    ///< NUL-terminated
  char app_name[64];                    ///< basename of the application, NUL-terminated
  char mpi_library[128];                ///< first line of MPI_Get_library_version
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
  std::int64_t cpu;           ///< Linux CPU its MPI_Init thread last published from, -1 before
  std::uint64_t threads;      ///< threads of the rank that have called MPI
};
static_assert(sizeof(SlotIdentity) == kCacheLine);

/// The control words of a slot: written by the analyzer (command) and the rank (ack).
/// Each is one atomic 64-bit word; see encode_command / encode_ack.
struct SlotControl {
  std::uint64_t command;         ///< analyzer -> rank: {generation, kind}; the set is SlotTarget
  std::uint64_t ack;             ///< rank -> analyzer: {generation, status, lowest CPU}
  std::uint64_t rebinds_ok;      ///< commands the rank applied
  std::uint64_t rebinds_failed;  ///< commands the rank could not apply
  std::uint64_t reserved[4];
};
static_assert(sizeof(SlotControl) == kCacheLine);

/// The CPU set of the current command. Written by the analyzer between the command word's
/// kWriting and kBind states (a seqlock whose sequence is the command word).
struct SlotTarget {
  CpuMask cpus;
};
static_assert(sizeof(SlotTarget) == 2 * kCacheLine);

/// Where the rank runs, as CPU sets. Written by the rank under the slot's seqlock.
struct SlotPlacement {
  /// Threads the rank computes with: its OpenMP runtime's omp_get_max_threads(), else the first
  /// level of OMP_NUM_THREADS; 0 when neither says (the analysis then takes one per core of
  /// the set).
  std::uint64_t compute_threads;
  /// Sets the rank has been bound to by commands since launch (0: still its launch set).
  std::uint64_t set_generation;
  /// Times a runtime inside the rank (TSAR) published its CPUs; 0: none did.
  std::uint64_t runtime_updates;
  std::uint64_t reserved[5];
  CpuMask launch;   ///< CPUs as launched (affinity at MPI_Init, with its OpenMP places)
  CpuMask current;  ///< CPUs the rank is bound to now (its launch set until a command)
  /// CPUs the worker threads of a runtime inside the rank (TSAR) are bound to; empty: none.
  CpuMask runtime_workers;
  /// GPU control cores that runtime reserves (its GPU-driving threads run there): other
  /// ranks are kept off them.
  CpuMask runtime_control;
};
static_assert(sizeof(SlotPlacement) == 9 * kCacheLine);

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
inline constexpr std::size_t kSlotTargetOffset = kSlotControlOffset + sizeof(SlotControl);
inline constexpr std::size_t kSlotPlacementOffset = kSlotTargetOffset + sizeof(SlotTarget);
inline constexpr std::size_t kSlotCountersOffset = kSlotPlacementOffset + sizeof(SlotPlacement);
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

// ---- CPU masks --------------------------------------------------------------------------

/// True when Linux CPU `cpu` is in `mask` (false for a CPU outside 0..kMaxSegmentCpus-1).
constexpr bool mask_has(const CpuMask& mask, int cpu) {
  return cpu >= 0 && cpu < kMaxSegmentCpus &&
         ((mask.words[static_cast<std::size_t>(cpu) / 64] >> (cpu % 64)) & 1u) != 0;
}
/// Adds `cpu` to `mask`; false (nothing changed) when it is outside 0..kMaxSegmentCpus-1.
constexpr bool mask_add(CpuMask& mask, int cpu) {
  if (cpu < 0 || cpu >= kMaxSegmentCpus) return false;
  mask.words[static_cast<std::size_t>(cpu) / 64] |= std::uint64_t{1} << (cpu % 64);
  return true;
}
/// The CPUs of `mask`, ascending.
std::vector<int> mask_cpus(const CpuMask& mask);
/// `cpus` as a mask; CPUs outside 0..kMaxSegmentCpus-1 are left out.
CpuMask mask_of(std::span<const int> cpus);
/// Number of CPUs in `mask`.
int mask_count(const CpuMask& mask);

// ---- command and ack words ------------------------------------------------------------------

/// What a command word asks.
enum class CommandKind : std::uint32_t {
  kNone = 0,     ///< nothing (the rank's launch state)
  kWriting = 1,  ///< a new target set is being written: not to be acted on yet
  kBind = 2,     ///< bind the rank to the set in SlotTarget
};

/// A re-bind order: the rank moves to the CPU set in SlotTarget, each thread to the same
/// relative place. A new `generation` (never 0, incremented by each new order) makes the rank
/// act on it.
struct Command {
  std::uint32_t generation = 0;
  CommandKind kind = CommandKind::kNone;
};

/// Outcome of a command, as the rank reports it.
enum class AckStatus : std::uint32_t {
  kNone = 0,        ///< nothing acknowledged yet
  kOk = 1,          ///< every thread now runs inside the target set
  kNotAllowed = 2,  ///< the set is outside the rank's allowed cpuset (cgroup): nothing moved
  kInvalidCpu = 3,  ///< an empty set, or a CPU this node does not have: nothing moved
  kFailed = 4,      ///< a thread would not move: every thread went back to its previous set
};

/// The rank's answer to the command of `generation`.
struct Ack {
  std::uint32_t generation = 0;
  AckStatus status = AckStatus::kNone;
  std::int32_t cpu = -1;  ///< lowest CPU of the rank's set after applying, -1 unknown
};

/// Name of an ack status ("ok", "not-allowed", ...).
const char* ack_status_name(AckStatus s) noexcept;

/// Name of a command kind ("none", "writing", "bind").
const char* command_kind_name(CommandKind k) noexcept;

constexpr std::uint64_t encode_command(Command c) {
  return (std::uint64_t{c.generation} << 32) | static_cast<std::uint32_t>(c.kind);
}
constexpr Command decode_command(std::uint64_t w) {
  return {std::uint32_t(w >> 32), CommandKind(std::uint32_t(w))};
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
