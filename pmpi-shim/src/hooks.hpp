// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Accounting hooks the generated wrappers call around the real MPI call (ABI-neutral
// declarations; hooks.cpp implements them with the MPI library's types).
//
// Hooks get the call's CallInfo by value (call.hpp): the wrapper's Call never leaves its
// registers. `after_*` run after call.stop(), so call.duration() is the time spent in the
// real call.
// Status arguments reaching the hooks are never MPI_STATUS_IGNORE: Call::status_arg and
// statuses_arg substitute per-thread scratch first, because the shim needs MPI_SOURCE and the
// byte count.

#include "abi.hpp"
#include "call.hpp"

namespace symmer::shim {

struct CallInfo;

/// Send modes (MPI_Send, MPI_Bsend, MPI_Rsend, MPI_Ssend and their nonblocking forms).
enum class SendMode { kStandard, kBuffered, kReady, kSync };

namespace hooks {

// MPI_Init*, MPI_Finalize: set-up and tear-down of monitoring (init.cpp).
void init_begin() noexcept;
/// `required`: the thread level asked for, -1 for MPI_Init; `provided` may be null.
void init_end(int rc, int required, int* provided) noexcept;
void finalize_begin() noexcept;
/// Readies the accounting for a monitored job at MPI thread level `thread_level` (called in
/// MPI_Init before monitoring goes active): below MPI_THREAD_MULTIPLE it needs no atomics.
void prepare(int thread_level) noexcept;

// Point-to-point.
// The send hooks take the mode as a template argument: all their arguments fit registers.
template <SendMode kMode>
void after_send(CallInfo call, long long count, symmer_handle datatype, int dest,
                symmer_handle comm) noexcept;

/// Whether the thread's last send had these arguments (ThreadState::send): the wrapper then
/// takes its cached path, which accounts the send from the cache without a call.
SYMMER_INLINE bool send_cached(const ThreadState& ts, long long count, symmer_handle datatype,
                               int dest, symmer_handle comm) noexcept {
  const SendCache& c = ts.send;
  return count == c.count && dest == c.dest && handle_bits(datatype) == c.datatype &&
         handle_bits(comm) == c.comm;
}
/// Whether a blocking send send_cached held for surely does not wait for its receiver: such
/// sends are timed by sampling (call.hpp), as ts.eager_sends.
template <SendMode kMode>
SYMMER_INLINE bool send_eager(const ThreadState& ts) noexcept {
  return kMode == SendMode::kBuffered || (kMode != SendMode::kSync && !ts.send.rendezvous);
}
/// after_send for a send send_cached held for.
template <SendMode kMode>
SYMMER_INLINE void after_send_cached(CallInfo call) noexcept {
  ThreadState& ts = call.thread();
  const SendCache& c = ts.send;
  PeerCounter& p = *c.counter;
  ts.counters.bytes_sent.add(c.bytes);
  ts.counters.msgs_sent.add(1);
  p.bytes_sent.add(c.bytes);
  p.msgs_sent.add(1);
  if (kMode == SendMode::kSync || (kMode != SendMode::kBuffered && c.rendezvous)) {
    ts.counters.send_wait.add(call.duration());
    p.send_wait.add(call.duration());
  }
}
/// after_isend for a send send_cached held for.
template <SendMode kMode>
void after_isend_cached(CallInfo call, void* request) noexcept;
void after_recv(CallInfo call, symmer_handle comm, void* status) noexcept;
void after_mrecv(CallInfo call, void* status) noexcept;
void after_sendrecv(CallInfo call, long long sendcount, symmer_handle sendtype, int dest,
                    symmer_handle comm, void* status) noexcept;
template <SendMode kMode>
void after_isend(CallInfo call, long long count, symmer_handle datatype, int dest,
                 symmer_handle comm, void* request) noexcept;
void after_irecv(CallInfo call, int source, symmer_handle comm, void* request) noexcept;
void after_imrecv(CallInfo call, void* request) noexcept;
void after_send_init(CallInfo call, long long count, symmer_handle datatype, int dest,
                     symmer_handle comm, void* request, SendMode mode) noexcept;
void after_recv_init(CallInfo call, int source, symmer_handle comm, void* request) noexcept;
void after_start(CallInfo call, int count, void* requests) noexcept;
void before_request_free(CallInfo call, void* request) noexcept;

// Completion: before_complete remembers what the requests were (the real call overwrites them)
// and says whether any is one the shim follows; the after_* hooks are needed only then.
bool before_complete(CallInfo call, int count, void* requests) noexcept;
void* statuses_arg(CallInfo call, int count, void* statuses) noexcept;
// A single request (MPI_Wait, MPI_Test): before_wait's answer, 0 when the shim follows none,
// goes to after_wait once the request completed. Inline: most polls end there.
inline constexpr std::uint64_t kLookedUp = ~std::uint64_t{0};  ///< no handle's key
/// before_wait under MPI_THREAD_MULTIPLE: looks the request up before the real call.
std::uint64_t before_wait_looked_up(CallInfo call, void* request) noexcept;
SYMMER_INLINE std::uint64_t before_wait(CallInfo call, void* request) noexcept {
  const std::uint64_t key = request_key(request);
  if (key == g.request_null) return 0;
  if (__builtin_expect(g.look_up_after_completion, 1)) return key;
  return before_wait_looked_up(call, request);
}
void after_wait(CallInfo call, std::uint64_t request, void* status) noexcept;
void after_waitall(CallInfo call, int rc, void* statuses) noexcept;
void after_waitany(CallInfo call, int rc, int* index, void* status) noexcept;
void after_waitsome(CallInfo call, int rc, int* outcount, int* indices, void* statuses) noexcept;
void after_testall(CallInfo call, int rc, int* flag, void* statuses) noexcept;
void after_testany(CallInfo call, int rc, int* index, int* flag, void* status) noexcept;

// Probes; `flag` is null for the blocking forms.
void after_probe(CallInfo call, int source, symmer_handle comm, int* flag, void* status) noexcept;
void after_mprobe(CallInfo call, int source, symmer_handle comm, int* flag, void* status) noexcept;

}  // namespace hooks
}  // namespace symmer::shim
