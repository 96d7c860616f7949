// SPDX-License-Identifier: BSD-3-Clause
// Inter-node node-summary exchange (see exchange.hpp).
#include "exchange.hpp"

#include <algorithm>
#include <atomic>
#include <optional>
#include <vector>

#include "mpi.hpp"
#include "runtime.hpp"
#include "symmer/segment/shared_words.hpp"

namespace symmer::shim {
namespace {

using segment::load_word;
using segment::NodeSummary;
using segment::store_word;

struct Exchange {
  bool enabled = false;
  MPI_Comm comm;         ///< Iallgather of summaries
  MPI_Comm finish_comm;  ///< agreement at MPI_Finalize (never mixed with `comm`'s collectives)
  int leaders = 0;
  MPI_Request request;
  bool in_flight = false;
  std::uint64_t started = 0;
  std::uint64_t next_ticks = 0;
  std::uint64_t period_ticks = 0;
  NodeSummary mine{};
  std::vector<NodeSummary> all;
  std::atomic<bool> busy{false};  ///< one thread progresses at a time (MPI_THREAD_MULTIPLE)
  std::optional<segment::SeqlockWriter> seq;  ///< the summary area's (this node's leader's)
};
Exchange x;

NodeSummary summarize_node() noexcept {
  const segment::SegmentWriter& seg = *g.segment;
  NodeSummary s{};
  s.valid = 1;
  s.node_id = g.node_id;
  s.node_index = g.node_index;
  s.local_ranks = g.local_ranks;
  for (std::uint64_t r = 0; r < g.local_ranks; ++r) {
    const segment::SlotCounters& k = seg.counters(r);
    const std::uint64_t rank = load_word(seg.identity(r).global_rank);
    s.idle_ns += load_word(k.idle_ns);
    s.compute_ns += load_word(k.compute_ns);
    const std::uint64_t oos = load_word(k.out_of_sync_ns), late = load_word(k.late_sender_ns);
    s.out_of_sync_ns += oos;
    s.late_sender_ns += late;
    s.send_wait_ns += load_word(k.send_wait_ns);
    if (oos >= s.worst_out_of_sync_ns)
      s.worst_out_of_sync_ns = oos, s.worst_out_of_sync_rank = rank;
    if (late >= s.worst_late_sender_ns)
      s.worst_late_sender_ns = late, s.worst_late_sender_rank = rank;
    const segment::PeerCounters* peers = seg.peers(r);
    for (std::uint64_t b = 0; b < g.node_buckets; ++b) {
      s.bytes_sent_remote += load_word(peers[g.local_ranks + b].bytes_sent);
      s.bytes_recv_remote += load_word(peers[g.local_ranks + b].bytes_recv);
    }
  }
  return s;
}

void store_summaries() noexcept {
  if (!g.publishing.load(std::memory_order_relaxed)) return;
  segment::SummaryArea& area = g.segment->summary_area();
  NodeSummary* out = g.segment->summaries();
  if (!x.seq->try_begin()) {
    stop_publishing("the node summaries were written by someone else", true);
    return;
  }
  for (const NodeSummary& s : x.all) {
    if (s.valid != 1 || s.node_index >= g.node_count) continue;
    NodeSummary copy = s;
    copy.exchange = x.started;
    segment::copy_to_shared(&out[s.node_index % g.node_buckets], &copy, sizeof copy);
  }
  store_word(area.exchanges, load_word(area.exchanges) + 1);
  store_word(area.last_exchange_ns, monotonic_now_ns());
  x.seq->end();
}

void start_exchange() noexcept {
  x.mine = summarize_node();
  if (mpi.PMPI_Iallgather(&x.mine, sizeof(NodeSummary), MPI_BYTE, x.all.data(), sizeof(NodeSummary),
                          MPI_BYTE, x.comm, &x.request) == MPI_SUCCESS) {
    x.in_flight = true;
    ++x.started;
  }
}

// May this thread call MPI now? The shim runs inside one of the application's own calls, so
// with SERIALIZED/MULTIPLE any thread may; with SINGLE/FUNNELED only the main thread.
bool may_call_mpi(const ThreadState& ts) noexcept {
  return g.thread_level >= MPI_THREAD_SERIALIZED || ts.main_thread;
}

}  // namespace

bool exchange_init(MPI_Comm leaders) noexcept {
  if (mpi.PMPI_Comm_dup(leaders, &x.comm) != MPI_SUCCESS) return false;
  if (mpi.PMPI_Comm_dup(leaders, &x.finish_comm) != MPI_SUCCESS) {
    mpi.PMPI_Comm_free(&x.comm);
    return false;
  }
  mpi.PMPI_Comm_set_errhandler(x.comm, MPI_ERRORS_RETURN);
  mpi.PMPI_Comm_set_errhandler(x.finish_comm, MPI_ERRORS_RETURN);
  mpi.PMPI_Comm_size(x.comm, &x.leaders);
  x.all.assign(static_cast<std::size_t>(x.leaders), NodeSummary{});
  x.seq.emplace(g.segment->summary_area().seq);
  x.period_ticks = g.ticks.to_ticks(g.config.exchange_ms * 1'000'000ull);
  x.next_ticks = now_ticks() + x.period_ticks;
  x.enabled = true;
  return true;
}

void exchange_progress(ThreadState& ts, std::uint64_t now) noexcept {
  if (!x.enabled || !may_call_mpi(ts) || x.busy.exchange(true, std::memory_order_acquire)) return;
  if (x.in_flight) {
    int done = 0;
    if (mpi.PMPI_Test(&x.request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      x.enabled = false;  // the exchange is best effort; the job must not suffer from it
    } else if (done) {
      x.in_flight = false;
      store_summaries();
    }
  }
  if (x.enabled && !x.in_flight && now >= x.next_ticks) {
    start_exchange();
    x.next_ticks = now + x.period_ticks;
  }
  x.busy.store(false, std::memory_order_release);
}

void exchange_finish() noexcept {
  if (!x.enabled) return;
  while (x.busy.exchange(true, std::memory_order_acquire)) {
  }
  // Every leader must take part in the same number of Iallgathers: catch up to the maximum,
  // plus one last exchange so the summaries hold every node's final figures.
  std::uint64_t started = x.started, most = x.started;
  mpi.PMPI_Allreduce(&started, &most, 1, MPI_UINT64_T, MPI_MAX, x.finish_comm);
  ++most;
  for (;;) {
    if (x.in_flight) {
      mpi.PMPI_Wait(&x.request, MPI_STATUS_IGNORE);
      x.in_flight = false;
      store_summaries();
    }
    if (x.started >= most) break;
    start_exchange();
    if (!x.in_flight) break;  // could not start: give up rather than hang
  }
  mpi.PMPI_Comm_free(&x.comm);
  mpi.PMPI_Comm_free(&x.finish_comm);
  x.enabled = false;
  x.busy.store(false, std::memory_order_release);
}

}  // namespace symmer::shim
