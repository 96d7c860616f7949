// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Process-wide and per-thread state of the shim (no mpi.h here).
//
// Each thread that calls MPI owns a ThreadState with cumulative counters. Only that thread
// writes them (relaxed load + store, so plain adds on x86), any thread may read them: a
// publisher sums all threads into the rank's slot of the node segment. No update is ever lost
// and the per-call path takes no lock, makes no syscall and allocates nothing.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clock.hpp"
#include "config.hpp"
#include "symmer/embedded_analyzer.hpp"
#include "symmer/segment/layout.hpp"
#include "symmer/segment/shared_words.hpp"
#include "symmer/segment/writer.hpp"

namespace symmer::shim {

using segment::CallClass;
using segment::kCallClassCount;

/// Forces inlining on the per-call path.
#define SYMMER_INLINE inline __attribute__((always_inline))

/// One counter written by a single thread and read by others.
struct Counter {
  std::atomic<std::uint64_t> value{0};
  SYMMER_INLINE void add(std::uint64_t d) noexcept {
#if defined(__x86_64__)
    // One unlocked add to memory: an aligned 8-byte store, so a reader sees the old or the new
    // value (what relaxed load + store give, in one instruction instead of three).
    asm("addq %1, %0" : "+m"(value) : "er"(d));
#else
    value.store(value.load(std::memory_order_relaxed) + d, std::memory_order_relaxed);
#endif
  }
  std::uint64_t get() const noexcept { return value.load(std::memory_order_relaxed); }
};

/// Traffic of one thread with one peer (a local rank, or a remote node bucket). Times in ticks.
/// Cache-line aligned, like ThreadState: one thread's counters never share a line with
/// another's.
struct alignas(64) PeerCounter {
  Counter bytes_sent, bytes_recv, msgs_sent, msgs_recv, late_sender, send_wait;
};

/// Cumulative figures of one thread. Times in ticks.
struct ThreadCounters {
  Counter idle, compute, other, out_of_sync, pending_compute, send_wait, late_sender, shim;
  Counter bytes_sent, bytes_recv, msgs_sent, msgs_recv, untracked;
  Counter calls[kCallClassCount];
};

struct Scratch;  // typed per-thread scratch buffers (hooks.cpp)

/// Words a wrapper keeps across the real call for its after-hook (Call::keep).
inline constexpr int kKeptWords = 6;

/// The last blocking or nonblocking send's arguments and what they translate to
/// (hooks::send_cached). Filled only for MPI_COMM_WORLD and predefined datatypes, whose
/// translations never change: a hit is always right, and a ping-pong's sends all hit.
struct SendCache {
  std::uint64_t comm = 0, datatype = 0;  ///< handle_bits
  long long count = -1;                  ///< never a cached one: those are > 0
  std::int32_t dest = -1;
  std::int32_t peer = -1;   ///< peer entry, -1 unknown
  bool rendezvous = false;  ///< standard and ready modes: above the eager limit
  std::uint64_t bytes = 0;
  PeerCounter* counter = nullptr;  ///< peers[peer], or unknown_peer
};

/// One kind of call timed by sampling (call.hpp): polls, or sends that hit the send cache and
/// surely do not wait for their receiver.
struct SampledKind {
  std::uint64_t mean_ticks = 0;  ///< running mean duration of one (BasicCall::stop_sampled)
  std::uint64_t samples = 0;     ///< clocked ones
  std::uint32_t countdown = 1;   ///< calls until the next clocked one (BasicCall::sample)
};

/// State of one thread that calls MPI. What every call reads and writes comes first: the first
/// cache line, then the kept words (the counters follow on lines of their own).
struct alignas(64) ThreadState {
  ThreadState() = default;
  /// unregistered_thread's: marked as inside a call.
  explicit constexpr ThreadState(bool in_call) noexcept : in_mpi(in_call) {}

  /// Inside an intercepted call: nested calls (a Fortran binding's C call, MPI calling
  /// itself) pass through. At offset 0: the wrappers keep no register for its address.
  std::atomic<bool> in_mpi{false};
  std::uint64_t last_exit = 0;  ///< ticks when its last MPI call returned
  /// Estimated ticks inside calls not clocked since the last clocked exit: their kinds' means.
  std::uint64_t unclocked_ticks = 0;
  SampledKind polls;
  std::uint64_t sample_rng = 0x9E3779B97F4A7C15ull;  ///< xorshift state choosing clocked calls
  std::unique_ptr<PeerCounter[]> peers;              ///< Runtime::peer_entries entries
  void* scratch_status = nullptr;                    ///< an MPI_Status in `scratch`
  /// The real call's arguments its after-hook needs, stored before the call: memory the
  /// thread owns instead of callee-saved registers the wrapper would save and restore.
  std::uint64_t kept[kKeptWords] = {};
  SendCache send;
  SampledKind eager_sends;  ///< blocking sends that hit `send` and do not wait (call.hpp)
  /// MPI_SOURCE of the last receive on MPI_COMM_WORLD and its counters (hooks::after_recv).
  std::int32_t recv_source = -1;
  PeerCounter* recv_counter = nullptr;
  Scratch* scratch = nullptr;  ///< owned; see hooks.cpp
  int registry_index = -1;
  bool main_thread = false;  ///< the thread that called MPI_Init
  alignas(64) ThreadCounters counters;
  /// Where traffic with an unknown peer is counted (never published): the cached paths add
  /// to a peer's counters without testing for one.
  PeerCounter unknown_peer;
};

/// What t_state points to before a thread's first tracked call: in_mpi is set, so the wrappers'
/// nesting test sends that call to Call's slow path without a null test of its own.
extern ThreadState unregistered_thread __attribute__((visibility("hidden")));

inline constexpr int kMaxThreads = 1024;

/// Command word read while no segment is mapped.
inline constexpr std::uint64_t kNoCommand = 0;

/// Process-wide state. Written during MPI_Init (before `active`) and MPI_Finalize.
struct Runtime {
  // Read by every call, written rarely: a cache line of their own, so that threads calling
  // MPI at the same time only ever share it read-only.
  alignas(64) std::atomic<bool> active{false};  ///< monitoring on: wrappers account calls
  /// active, with TSC ticks: the wrappers take their FastCall path (call.hpp).
  std::atomic<bool> fast{false};
  std::atomic<std::uint64_t> next_publish{0};  ///< ticks at which the next publish is due
  void* status_ignore = nullptr;               ///< MPI_STATUS_IGNORE of the MPI in use
  std::uint64_t request_null = 0;              ///< MPI_REQUEST_NULL's key (handle_key)
  /// Below MPI_THREAD_MULTIPLE no other thread can post a request between a completion and
  /// the shim's look at it, so a single request (MPI_Test, MPI_Wait) is looked up in the
  /// request table only once it completed: most polls do not complete, and then cost no
  /// lookup at all.
  bool look_up_after_completion = false;
  std::uint64_t publish_period_ticks = 0;

  // Read at each publish (publish_slow), never on a call's path.
  /// This rank's SlotControl::command; kNoCommand while no segment is mapped or once the
  /// rank stopped publishing (stop_publishing).
  alignas(64) std::atomic<const std::uint64_t*> command_word{&kNoCommand};
  std::atomic<std::uint64_t> seen_command{0};  ///< last command word acted upon
  /// The rank still writes into the segment (false once stop_publishing gave it up; the
  /// job's calls are still accounted, so every rank keeps the same collective path).
  std::atomic<bool> publishing{false};

  // Written at every nonblocking send post and completion (hooks.cpp add_pending).
  alignas(64) std::atomic<std::int64_t> pending_sends{0};  ///< nonblocking sends not completed
  std::atomic<std::int64_t> pending_rendezvous{0};         ///< ... of them above the eager limit

  alignas(64) Config config;
  TickConverter ticks;
  std::optional<segment::SegmentWriter> segment;
  std::optional<segment::SeqlockWriter> slot_seq;  ///< this rank's slot (publish lock)
  std::uint64_t local_rank = 0, local_ranks = 1, world_rank = 0, world_size = 1;
  std::uint64_t node_index = 0, node_count = 1, node_buckets = 1, node_id = 0, job_id = 0;
  std::uint64_t peer_entries = 1;           ///< local_ranks + node_buckets
  std::vector<std::int32_t> peer_of_world;  ///< world rank -> peer entry, -1 unknown
  std::uint64_t eager_local = 65536, eager_remote = 65536;
  int thread_level = 0;  ///< MPI_THREAD_* provided, 0..3

  std::atomic<ThreadState*> threads[kMaxThreads] = {};
  std::atomic<int> thread_high_water{0};
  ThreadCounters retired;  ///< threads that exited (under the publish lock)
  std::unique_ptr<PeerCounter[]> retired_peers;
  std::unique_ptr<PeerCounter[]> sum_peers;  ///< publishing's work area (publish lock)

  // The rank's CPU sets (placement.hpp), guarded by the publish lock (PublishLock).
  std::vector<int> launch_cpus;   ///< as launched
  std::vector<int> current_cpus;  ///< bound now
  std::uint64_t compute_threads = 0;
  std::atomic<std::uint64_t> set_generation{0};           ///< sets applied by commands
  segment::CpuMask runtime_workers{}, runtime_control{};  ///< published by TSAR
  std::uint64_t runtime_updates = 0;

  std::unique_ptr<EmbeddedAnalyzer> analyzer;
};

// Hidden: the wrappers reach it PC-relative, not through the GOT.
extern Runtime g __attribute__((visibility("hidden")));

/// This thread's state; &unregistered_thread until its first tracked call. initial-exec TLS:
/// one load.
extern constinit thread_local ThreadState* t_state
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

/// Per-thread scratch buffers of the typed hooks (hooks.cpp); null when out of memory.
/// `status` receives the address of its MPI_Status.
Scratch* make_scratch(void** status) noexcept;
void release_scratch(Scratch* scratch) noexcept;

/// Creates this thread's state (first MPI call of a thread); null when monitoring is off or
/// too many threads exist.
ThreadState* thread_state_slow() noexcept;

/// Creates and registers this thread's state whatever `active` says (MPI_Init's thread).
ThreadState* register_thread() noexcept;

/// Holds the publish lock, which serialises publishers, thread retirement and the rank's CPU
/// sets within the process (never taken on the per-call path).
class PublishLock {
 public:
  PublishLock() noexcept;
  ~PublishLock();
  PublishLock(const PublishLock&) = delete;
  PublishLock& operator=(const PublishLock&) = delete;
};

/// One line on stderr, "symmer: <text>", written at once (ranks' lines do not interleave).
void say(const std::string& text) noexcept;

/// Stops writing into the node segment for good, saying `problem` once: by local rank 0 when
/// `whole_segment` (every rank meets it), else by this rank. The job goes on unmonitored.
void stop_publishing(const std::string& problem, bool whole_segment) noexcept;

/// Acts on a new command of the analyzer (apply_command), publishes the rank's figures into
/// its slot when no other thread is, progresses the inter-node exchange. Called when a call
/// returns at or after next_publish.
void publish_slow(ThreadState& ts, std::uint64_t now) noexcept;

/// Publishes unconditionally (waits for a concurrent publisher), with the slot's state.
void publish_final(segment::SlotState state) noexcept;

/// Applies a new command word: moves all threads of the process to the commanded CPU set
/// (placement.hpp) and acknowledges.
void apply_command() noexcept;

/// The peer entry of world rank `w`: its local rank on this node, or local_ranks + its node
/// bucket; -1 when unknown.
inline int peer_of_world(int w) noexcept {
  // Negative ranks convert to sizes past any vector's.
  return static_cast<std::size_t>(w) < g.peer_of_world.size() ? g.peer_of_world[w] : -1;
}

/// Ticks from `from` to `to`; 0 when `to` lags, as it may by a few ticks after the thread moved
/// to a core whose TSC disagrees (a difference past 2^63 ticks would take a century).
SYMMER_INLINE std::uint64_t ticks_since(std::uint64_t from, std::uint64_t to) noexcept {
  const auto d = static_cast<std::int64_t>(to - from);
  return d > 0 ? static_cast<std::uint64_t>(d) : 0;
}

/// Accounts the time since the thread's last clocked MPI call: unclocked calls in between get
/// their estimated share as idle (see call.hpp), the rest is compute (and out of sync while
/// the rank holds incomplete sends). The caller moves last_exit on (Call::finish).
SYMMER_INLINE void account_compute(ThreadState& ts, std::uint64_t now) noexcept {
  std::uint64_t gap = ticks_since(ts.last_exit, now);
  if (ts.unclocked_ticks != 0) {  // after polls, and in a ping-pong after every send
    const std::uint64_t inside = std::min(gap, ts.unclocked_ticks);
    ts.counters.idle.add(inside);
    gap -= inside;
    ts.unclocked_ticks = 0;
  }
  ts.counters.compute.add(gap);
  if (__builtin_expect(g.pending_sends.load(std::memory_order_relaxed) > 0, 0)) {
    ts.counters.pending_compute.add(gap);
    if (g.pending_rendezvous.load(std::memory_order_relaxed) > 0) ts.counters.out_of_sync.add(gap);
  }
}

/// Whether time inside calls of this class counts as idle (else as "other MPI").
constexpr bool is_idle_class(CallClass c) noexcept {
  return c != CallClass::kIsend && c != CallClass::kIrecv && c != CallClass::kPersistent &&
         c != CallClass::kIcollective;
}

}  // namespace symmer::shim
