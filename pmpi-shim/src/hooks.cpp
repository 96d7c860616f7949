// SPDX-License-Identifier: BSD-3-Clause
// The accounting hooks: bytes and messages per peer, late-sender and send-wait times, and the
// pending sends that make compute "out of sync" (typed: built against the MPI's mpi.h).
#include "hooks.hpp"

#include <algorithm>
#include <new>

#include "call.hpp"
#include "comm_map.hpp"
#include "handles.hpp"
#include "message_size.hpp"
#include "mpi.hpp"
#include "request_table.hpp"
#include "runtime.hpp"
#include "scratch.hpp"

namespace symmer::shim {

namespace {

RequestTable requests;
constexpr std::int64_t kLookUpLater = -2;  // CompletionEntry::index: key saved, not looked up

// Fills `e` from the table for its key; false when the request is not tracked (or an inactive
// persistent one, which completes at once).
bool look_up(CompletionEntry& e) noexcept {
  e.index = requests.find(e.key);
  if (e.index < 0) return false;
  e.info = requests.info(e.index);
  e.serial = requests.serial(e.index);
  if (e.info.persistent && !e.info.active) e.index = -1;
  return e.index >= 0;
}

Scratch& scratch_of(CallInfo call) noexcept { return *call.thread().scratch; }

std::uint64_t eager_limit(int peer) noexcept {
  return peer >= 0 && static_cast<std::uint64_t>(peer) < g.local_ranks ? g.eager_local
                                                                       : g.eager_remote;
}

bool is_rendezvous(SendMode mode, std::uint64_t bytes, int peer) noexcept {
  if (mode == SendMode::kSync) return true;
  if (mode == SendMode::kBuffered) return false;  // copied into the attached buffer
  return bytes > eager_limit(peer);
}

// Peer entry and bytes of a message to `rank` of `comm` when both come without a call
// (MPI_COMM_WORLD, a predefined datatype, count > 0): the hooks' fast paths then call nothing,
// so they save no registers; false sends them to their out-of-line path.
SYMMER_INLINE bool message_fast(MPI_Comm comm, int rank, MPI_Datatype datatype, long long count,
                                int& peer, std::uint64_t& bytes) noexcept {
  std::uint64_t size;
  if (comm != comm_world || !predefined_size(datatype, size) || count <= 0) return false;
  peer = peer_of_world(rank);
  bytes = static_cast<std::uint64_t>(count) * size;
  return true;
}

// The counters of peer entry `peer` (-1: unknown, counted where nothing reads it).
SYMMER_INLINE PeerCounter& counter_of(ThreadState& ts, int peer) noexcept {
  return peer >= 0 ? ts.peers[peer] : ts.unknown_peer;
}

SYMMER_INLINE void count_sent(ThreadState& ts, int peer, std::uint64_t bytes) noexcept {
  ts.counters.bytes_sent.add(bytes);
  ts.counters.msgs_sent.add(1);
  if (peer >= 0) {
    PeerCounter& p = ts.peers[peer];
    p.bytes_sent.add(bytes);
    p.msgs_sent.add(1);
  }
}

// Fills the thread's send cache (hooks::send_cached) from a send message_fast translated.
SYMMER_INLINE void remember_send(ThreadState& ts, long long count, symmer_handle datatype, int dest,
                                 symmer_handle comm, int peer, std::uint64_t bytes) noexcept {
  SendCache& c = ts.send;
  c.comm = handle_bits(comm);
  c.datatype = handle_bits(datatype);
  c.count = count;
  c.dest = dest;
  c.peer = peer;
  c.rendezvous = is_rendezvous(SendMode::kStandard, bytes, peer);
  c.bytes = bytes;
  c.counter = &counter_of(ts, peer);
}

SYMMER_INLINE void count_received(ThreadState& ts, int peer, std::uint64_t bytes) noexcept {
  ts.counters.bytes_recv.add(bytes);
  ts.counters.msgs_recv.add(1);
  if (peer >= 0) {
    PeerCounter& p = ts.peers[peer];
    p.bytes_recv.add(bytes);
    p.msgs_recv.add(1);
  }
}

// wait_peers holds receive peers as they are (>= -1) and send peers encoded below -1.
constexpr std::int32_t encode_send_peer(std::int32_t peer) noexcept { return -peer - 3; }
constexpr std::int32_t decode_send_peer(std::int32_t v) noexcept { return -v - 3; }
constexpr bool is_send_peer(std::int32_t v) noexcept { return v <= -2; }

// Below MPI_THREAD_MULTIPLE one thread at a time is inside MPI (the application orders them),
// so a plain add does, without a locked instruction.
SYMMER_INLINE void add_rank_wide(std::atomic<std::int64_t>& count, int delta) noexcept {
  if (__builtin_expect(g.thread_level == MPI_THREAD_MULTIPLE, 0))
    count.fetch_add(delta, std::memory_order_relaxed);
  else
    count.store(count.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
}

SYMMER_INLINE void add_pending(const RequestInfo& info, int delta) noexcept {
  add_rank_wide(g.pending_sends, delta);
  if (info.rendezvous) add_rank_wide(g.pending_rendezvous, delta);
}

// Cold: a request MPI did not create, or a full bucket.
[[gnu::noinline, gnu::cold]] void not_tracked(ThreadState& ts, MPI_Request request,
                                              void* comm) noexcept {
  if (comm) comm_release(static_cast<CommInfo*>(comm));
  if (request != MPI_REQUEST_NULL) ts.counters.untracked.add(1);
}

SYMMER_INLINE void track(ThreadState& ts, MPI_Request request, const RequestInfo& info) noexcept {
  if (__builtin_expect(request == MPI_REQUEST_NULL || !requests.insert(handle_key(request), info),
                       0))
    return not_tracked(ts, request, info.comm);
  if (info.kind == RequestInfo::kSend && info.active) add_pending(info, +1);
}

// Peer of a completed receive: known at post, or MPI_SOURCE through its communicator.
int receive_peer(const RequestInfo& info, const MPI_Status* status) noexcept {
  if (info.peer >= 0) return info.peer;
  if (status == nullptr || status->MPI_SOURCE < 0) return -1;
  return comm_info_peer(static_cast<const CommInfo*>(info.comm), status->MPI_SOURCE);
}

// Accounts the completion of the call's request `i` with its status (null: none).
void complete_one(CallInfo call, int i, const MPI_Status* status) noexcept {
  Scratch& s = scratch_of(call);
  if (i < 0 || i >= s.completing_count) return;
  CompletionEntry& e = s.completing[i];
  if (e.index == kLookUpLater && !look_up(e)) return;
  if (e.index < 0) return;
  ThreadState& ts = call.thread();
  if (e.info.kind == RequestInfo::kSend) {
    add_pending(e.info, -1);
    if (e.info.rendezvous) s.wait_peers.push_back(encode_send_peer(e.info.peer));
  } else {
    // A receive from MPI_PROC_NULL completes with MPI_SOURCE == MPI_PROC_NULL and no data.
    if (status == nullptr || status->MPI_SOURCE != MPI_PROC_NULL) {
      const int peer = receive_peer(e.info, status);
      count_received(ts, peer, status ? received_bytes(status) : 0);
      s.wait_peers.push_back(peer);
    }
  }
  if (e.info.persistent) {
    requests.set_active(e.index, false);
  } else {
    requests.erase(e.index, e.key, e.serial);
    if (e.info.comm) comm_release(static_cast<CommInfo*>(e.info.comm));
  }
  e.index = -1;  // accounted once even if a call reports it twice
}

// Accounts the completion of a single request (MPI_Wait, MPI_Test) found at `index`: what
// complete_one and charge_completion do for one request, without the scratch lists. `kSimple`:
// the caller saw a nonblocking request on MPI_COMM_WORLD, whose accounting calls nothing.
// The entry's fields are read once, up front: the counters' adds may alias nothing of it.
template <bool kSimple>
SYMMER_INLINE void complete_single(CallInfo call, std::int64_t index, const RequestInfo& entry,
                                   const MPI_Status* status) noexcept {
  const bool send = entry.kind == RequestInfo::kSend;
  const bool rendezvous = entry.rendezvous;
  const bool persistent = !kSimple && entry.persistent;
  const int posted_peer = entry.peer;
  auto* const comm = kSimple ? nullptr : static_cast<CommInfo*>(entry.comm);
  ThreadState& ts = call.thread();
  const std::uint64_t d = call.duration();
  if (send) {
    add_rank_wide(g.pending_sends, -1);
    if (rendezvous) {  // waited for its receiver
      add_rank_wide(g.pending_rendezvous, -1);
      ts.counters.send_wait.add(d);
      if (posted_peer >= 0) ts.peers[posted_peer].send_wait.add(d);
    }
  } else if (status->MPI_SOURCE != MPI_PROC_NULL) {  // a receive from MPI_PROC_NULL: no data
    int peer = posted_peer;
    if (peer < 0)  // MPI_ANY_SOURCE
      peer = comm == nullptr ? peer_of_world(status->MPI_SOURCE)
                             : comm_info_peer(comm, status->MPI_SOURCE);
    count_received(ts, peer, received_bytes(status));
    ts.counters.late_sender.add(d);
    if (peer >= 0) ts.peers[peer].late_sender.add(d);
  }
  if (persistent) {
    requests.set_active(index, false);
  } else {
    requests.erase_found(index);
    if (comm) comm_release(comm);
  }
}

// complete_single for what needs calls: persistent requests, receives through another
// communicator than MPI_COMM_WORLD.
[[gnu::noinline]] void complete_single_slow(CallInfo call, std::int64_t index,
                                            const MPI_Status* status) noexcept {
  const RequestInfo info = requests.info(index);
  if (info.persistent && !info.active) return;  // inactive: completes at once
  complete_single<false>(call, index, info, status);
}

// Splits the completion call's time: receives waited for their senders (late sender);
// rendezvous sends alone waited for their receivers. No allocation: two passes.
void charge_completion(CallInfo call) noexcept {
  Scratch& s = scratch_of(call);
  ThreadState& ts = call.thread();
  std::uint64_t receives = 0, sends = 0;
  for (std::int32_t p : s.wait_peers) ++(is_send_peer(p) ? sends : receives);
  const std::uint64_t d = call.duration();
  if (receives > 0) {
    ts.counters.late_sender.add(d);
    for (std::int32_t p : s.wait_peers)
      if (!is_send_peer(p) && p >= 0) ts.peers[p].late_sender.add(d / receives);
  } else if (sends > 0) {
    ts.counters.send_wait.add(d);
    for (std::int32_t p : s.wait_peers)
      if (is_send_peer(p) && decode_send_peer(p) >= 0)
        ts.peers[decode_send_peer(p)].send_wait.add(d / sends);
  }
  s.wait_peers.clear();
}

// after_wait for a request before_complete looked up (MPI_THREAD_MULTIPLE).
[[gnu::noinline]] void after_wait_looked_up(CallInfo call, const MPI_Status* status) noexcept {
  complete_one(call, 0, status);
  charge_completion(call);
}

const MPI_Status* status_at(void* statuses, int i) noexcept {
  if (statuses == nullptr || statuses == MPI_STATUSES_IGNORE) return nullptr;
  return static_cast<const MPI_Status*>(statuses) + i;
}

// A blocking send's bytes, and its time as waiting for the receiver when it had to.
SYMMER_INLINE void account_send(CallInfo call, int peer, std::uint64_t bytes,
                                SendMode mode) noexcept {
  ThreadState& ts = call.thread();
  count_sent(ts, peer, bytes);
  if (is_rendezvous(mode, bytes, peer)) {
    ts.counters.send_wait.add(call.duration());
    if (peer >= 0) ts.peers[peer].send_wait.add(call.duration());
  }
}

[[gnu::noinline]] void after_send_slow(CallInfo call, long long count, symmer_handle datatype,
                                       int dest, symmer_handle comm, SendMode mode) noexcept {
  account_send(call, comm_peer(call.thread(), from_handle<MPI_Comm>(comm), dest),
               datatype_bytes(from_handle<MPI_Datatype>(datatype), count), mode);
}

// A nonblocking send's bytes, and its request followed until it completes.
SYMMER_INLINE void post_send(CallInfo call, int peer, std::uint64_t bytes, void* request,
                             SendMode mode) noexcept {
  ThreadState& ts = call.thread();
  RequestInfo info;
  info.kind = RequestInfo::kSend;
  info.peer = peer;
  info.rendezvous = is_rendezvous(mode, bytes, peer);
  count_sent(ts, peer, bytes);
  track(ts, *static_cast<MPI_Request*>(request), info);
}

[[gnu::noinline]] void after_isend_slow(CallInfo call, long long count, symmer_handle datatype,
                                        int dest, symmer_handle comm, void* request,
                                        SendMode mode) noexcept {
  post_send(call, comm_peer(call.thread(), from_handle<MPI_Comm>(comm), dest),
            datatype_bytes(from_handle<MPI_Datatype>(datatype), count), request, mode);
}

// A receive's request, followed until it completes: its peer known now (`peer`), or later
// from MPI_SOURCE through `comm` (MPI_ANY_SOURCE; null: MPI_COMM_WORLD).
SYMMER_INLINE void post_receive(ThreadState& ts, int peer, CommInfo* comm, void* request,
                                bool persistent) noexcept {
  RequestInfo info;
  info.kind = RequestInfo::kRecv;
  info.peer = peer;
  info.comm = comm;
  info.persistent = persistent;
  info.active = !persistent;
  track(ts, *static_cast<MPI_Request*>(request), info);
}

[[gnu::noinline]] void post_receive_slow(ThreadState& ts, int source, MPI_Comm comm, void* request,
                                         bool persistent) noexcept {
  if (source >= 0)
    post_receive(ts, comm_peer(ts, comm, source), nullptr, request, persistent);
  else  // MPI_ANY_SOURCE: translate MPI_SOURCE at completion
    post_receive(ts, -1, comm_acquire(ts, comm), request, persistent);
}

// after_recv past the thread's last source on MPI_COMM_WORLD: refills that cache.
[[gnu::noinline]] void after_recv_slow(CallInfo call, MPI_Comm comm,
                                       const MPI_Status* st) noexcept {
  ThreadState& ts = call.thread();
  const int peer = comm_peer(ts, comm, st->MPI_SOURCE);
  if (comm == comm_world) {
    ts.recv_source = st->MPI_SOURCE;
    ts.recv_counter = &counter_of(ts, peer);
  }
  count_received(ts, peer, received_bytes(st));
  ts.counters.late_sender.add(call.duration());
  if (peer >= 0) ts.peers[peer].late_sender.add(call.duration());
}

}  // namespace

Scratch* make_scratch(void** status) noexcept {
  auto* s = new (std::nothrow) Scratch;
  if (s) {
    s->mprobe_comm = MPI_COMM_NULL;
    *status = &s->status;
  }
  return s;
}

void release_scratch(Scratch* scratch) noexcept { delete scratch; }

namespace hooks {

void prepare(int thread_level) noexcept {
  requests.set_concurrent(thread_level == MPI_THREAD_MULTIPLE);
  g.look_up_after_completion = thread_level != MPI_THREAD_MULTIPLE;
  g.request_null = handle_key(MPI_REQUEST_NULL);
}

template <SendMode kMode>
void after_send(CallInfo call, long long count, symmer_handle datatype, int dest,
                symmer_handle comm) noexcept {
  if (dest < 0) return;  // MPI_PROC_NULL
  int peer;
  std::uint64_t bytes;
  if (__builtin_expect(!message_fast(from_handle<MPI_Comm>(comm), dest,
                                     from_handle<MPI_Datatype>(datatype), count, peer, bytes),
                       0))
    return after_send_slow(call, count, datatype, dest, comm, kMode);
  remember_send(call.thread(), count, datatype, dest, comm, peer, bytes);
  account_send(call, peer, bytes, kMode);
}

void after_recv(CallInfo call, symmer_handle comm, void* status) noexcept {
  const auto* st = static_cast<const MPI_Status*>(status);
  const int source = st->MPI_SOURCE;
  if (source < 0) return;  // MPI_PROC_NULL
  ThreadState& ts = call.thread();
  if (__builtin_expect(source != ts.recv_source || from_handle<MPI_Comm>(comm) != comm_world, 0))
    return after_recv_slow(call, from_handle<MPI_Comm>(comm), st);
  PeerCounter& p = *ts.recv_counter;
  const std::uint64_t bytes = received_bytes(st);
  ts.counters.bytes_recv.add(bytes);
  ts.counters.msgs_recv.add(1);
  ts.counters.late_sender.add(call.duration());
  p.bytes_recv.add(bytes);
  p.msgs_recv.add(1);
  p.late_sender.add(call.duration());
}

void after_mrecv(CallInfo call, void* status) noexcept {
  Scratch& s = scratch_of(call);
  if (!s.have_mprobe_comm) return;
  after_recv(call, handle_key(s.mprobe_comm), status);
}

void after_sendrecv(CallInfo call, long long sendcount, symmer_handle sendtype, int dest,
                    symmer_handle comm, void* status) noexcept {
  if (dest >= 0) {
    ThreadState& ts = call.thread();
    count_sent(ts, comm_peer(ts, from_handle<MPI_Comm>(comm), dest),
               datatype_bytes(from_handle<MPI_Datatype>(sendtype), sendcount));
  }
  after_recv(call, comm, status);
}

template <SendMode kMode>
void after_isend(CallInfo call, long long count, symmer_handle datatype, int dest,
                 symmer_handle comm, void* request) noexcept {
  if (dest < 0) return;
  int peer;
  std::uint64_t bytes;
  if (__builtin_expect(!message_fast(from_handle<MPI_Comm>(comm), dest,
                                     from_handle<MPI_Datatype>(datatype), count, peer, bytes),
                       0))
    return after_isend_slow(call, count, datatype, dest, comm, request, kMode);
  remember_send(call.thread(), count, datatype, dest, comm, peer, bytes);
  post_send(call, peer, bytes, request, kMode);
}

template <SendMode kMode>
void after_isend_cached(CallInfo call, void* request) noexcept {
  ThreadState& ts = call.thread();
  const SendCache& c = ts.send;
  ts.counters.bytes_sent.add(c.bytes);
  ts.counters.msgs_sent.add(1);
  c.counter->bytes_sent.add(c.bytes);
  c.counter->msgs_sent.add(1);
  RequestInfo info;
  info.kind = RequestInfo::kSend;
  info.peer = c.peer;
  info.rendezvous = kMode == SendMode::kSync || (kMode != SendMode::kBuffered && c.rendezvous);
  track(ts, *static_cast<MPI_Request*>(request), info);
}

#define SYMMER_SEND_HOOKS(mode)                                                                    \
  template void after_send<mode>(CallInfo, long long, symmer_handle, int, symmer_handle) noexcept; \
  template void after_isend<mode>(CallInfo, long long, symmer_handle, int, symmer_handle,          \
                                  void*) noexcept;                                                 \
  template void after_isend_cached<mode>(CallInfo, void*) noexcept;
SYMMER_SEND_HOOKS(SendMode::kStandard)
SYMMER_SEND_HOOKS(SendMode::kBuffered)
SYMMER_SEND_HOOKS(SendMode::kReady)
SYMMER_SEND_HOOKS(SendMode::kSync)
#undef SYMMER_SEND_HOOKS

void after_irecv(CallInfo call, int source, symmer_handle comm, void* request) noexcept {
  if (source == MPI_PROC_NULL) return;
  if (__builtin_expect(source < 0 || from_handle<MPI_Comm>(comm) != comm_world, 0))
    return post_receive_slow(call.thread(), source, from_handle<MPI_Comm>(comm), request, false);
  post_receive(call.thread(), peer_of_world(source), nullptr, request, false);
}

void after_imrecv(CallInfo call, void* request) noexcept {
  Scratch& s = scratch_of(call);
  RequestInfo info;
  info.kind = RequestInfo::kRecv;
  if (s.have_mprobe_comm) info.comm = comm_acquire(call.thread(), s.mprobe_comm);
  track(call.thread(), *static_cast<MPI_Request*>(request), info);
}

void after_send_init(CallInfo call, long long count, symmer_handle datatype, int dest,
                     symmer_handle comm, void* request, SendMode mode) noexcept {
  if (dest < 0) return;
  ThreadState& ts = call.thread();
  RequestInfo info;
  info.kind = RequestInfo::kSend;
  info.persistent = true;
  info.active = false;
  info.peer = comm_peer(ts, from_handle<MPI_Comm>(comm), dest);
  info.bytes = datatype_bytes(from_handle<MPI_Datatype>(datatype), count);
  info.rendezvous = is_rendezvous(mode, info.bytes, info.peer);
  track(ts, *static_cast<MPI_Request*>(request), info);
}

void after_recv_init(CallInfo call, int source, symmer_handle comm, void* request) noexcept {
  if (source == MPI_PROC_NULL) return;
  post_receive_slow(call.thread(), source, from_handle<MPI_Comm>(comm), request, true);
}

void after_start(CallInfo call, int count, void* reqs) noexcept {
  const auto* r = static_cast<const MPI_Request*>(reqs);
  for (int i = 0; i < count; ++i) {
    const std::int64_t idx = requests.find(handle_key(r[i]));
    if (idx < 0) continue;
    const RequestInfo info = requests.info(idx);
    if (!info.persistent || info.active) continue;
    requests.set_active(idx, true);
    if (info.kind == RequestInfo::kSend) {
      count_sent(call.thread(), info.peer, info.bytes);
      add_pending(info, +1);
    }
  }
}

void before_request_free(CallInfo /*call*/, void* request) noexcept {
  const MPI_Request r = *static_cast<const MPI_Request*>(request);
  const std::uint64_t key = handle_key(r);
  const std::int64_t idx = requests.find(key);
  if (idx < 0) return;
  const RequestInfo info = requests.info(idx);
  // A freed send still completes inside MPI, but nobody will wait for it any more.
  if (info.kind == RequestInfo::kSend && info.active) add_pending(info, -1);
  requests.erase(idx, key, requests.serial(idx));
  if (info.comm) comm_release(static_cast<CommInfo*>(info.comm));
}

bool before_complete(CallInfo call, int count, void* reqs) noexcept {
  Scratch& s = scratch_of(call);
  s.completing_count = 0;
  s.completing_recv = false;
  if (count <= 0 || (count == 1 && *static_cast<const MPI_Request*>(reqs) == MPI_REQUEST_NULL))
    return false;
  if (s.completing.size() < static_cast<std::size_t>(count)) s.completing.resize(count);
  const auto* r = static_cast<const MPI_Request*>(reqs);
  if (count == 1 && g.look_up_after_completion) {
    s.completing[0].key = handle_key(r[0]);
    s.completing[0].index = kLookUpLater;
    s.completing_count = 1;
    s.completing_recv = true;  // it may be a receive: its status is wanted (statuses_arg)
    return true;
  }
  bool tracked = false;
  for (int i = 0; i < count; ++i) {
    CompletionEntry& e = s.completing[i];
    e.index = -1;
    if (r[i] == MPI_REQUEST_NULL) continue;
    e.key = handle_key(r[i]);
    if (!look_up(e)) continue;
    s.completing_recv = s.completing_recv || e.info.kind == RequestInfo::kRecv;
    tracked = true;
  }
  s.completing_count = count;
  return tracked;
}

void* statuses_arg(CallInfo call, int count, void* statuses) noexcept {
  Scratch& s = scratch_of(call);
  if (statuses != MPI_STATUSES_IGNORE || !s.completing_recv || count <= 0) return statuses;
  if (s.statuses.size() < static_cast<std::size_t>(count)) s.statuses.resize(count);
  return s.statuses.data();
}

std::uint64_t before_wait_looked_up(CallInfo call, void* request) noexcept {
  return before_complete(call, 1, request) ? kLookedUp : 0;
}

void after_wait(CallInfo call, std::uint64_t request, void* status) noexcept {
  const auto* st = static_cast<const MPI_Status*>(status);
  if (__builtin_expect(request == kLookedUp, 0)) return after_wait_looked_up(call, st);
  const std::int64_t index = requests.find(request);
  if (index < 0) return;
  const RequestInfo& info = requests.at(index);
  if (__builtin_expect(info.persistent || info.comm != nullptr, 0))
    return complete_single_slow(call, index, st);
  complete_single<true>(call, index, info, st);
}

void after_waitall(CallInfo call, int /*rc*/, void* statuses) noexcept {
  const int n = scratch_of(call).completing_count;
  for (int i = 0; i < n; ++i) complete_one(call, i, status_at(statuses, i));
  charge_completion(call);
}

void after_waitany(CallInfo call, int /*rc*/, int* index, void* status) noexcept {
  if (*index != MPI_UNDEFINED) complete_one(call, *index, static_cast<const MPI_Status*>(status));
  charge_completion(call);
}

void after_waitsome(CallInfo call, int /*rc*/, int* outcount, int* indices,
                    void* statuses) noexcept {
  if (*outcount != MPI_UNDEFINED)
    for (int k = 0; k < *outcount; ++k) complete_one(call, indices[k], status_at(statuses, k));
  charge_completion(call);
}

void after_testall(CallInfo call, int rc, int* flag, void* statuses) noexcept {
  if (*flag) after_waitall(call, rc, statuses);
}

void after_testany(CallInfo call, int rc, int* index, int* flag, void* status) noexcept {
  if (*flag) after_waitany(call, rc, index, status);
}

void after_probe(CallInfo call, int /*source*/, symmer_handle comm, int* flag,
                 void* status) noexcept {
  if (flag && !*flag) return;
  const auto* st = static_cast<const MPI_Status*>(status);
  if (st->MPI_SOURCE < 0) return;
  ThreadState& ts = call.thread();
  const int peer = comm_peer(ts, from_handle<MPI_Comm>(comm), st->MPI_SOURCE);
  ts.counters.late_sender.add(call.duration());
  if (peer >= 0) ts.peers[peer].late_sender.add(call.duration());
}

void after_mprobe(CallInfo call, int source, symmer_handle comm, int* flag, void* status) noexcept {
  if (flag && !*flag) return;
  Scratch& s = scratch_of(call);
  s.mprobe_comm = from_handle<MPI_Comm>(comm);
  s.have_mprobe_comm = true;
  after_probe(call, source, comm, flag, status);
}

}  // namespace hooks
}  // namespace symmer::shim
