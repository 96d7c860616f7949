// SPDX-License-Identifier: BSD-3-Clause
// Thread registry, publishing into the node segment, and the rank side of re-binding.
#include "runtime.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exchange.hpp"
#include "papi_sampler.hpp"
#include "placement.hpp"
#include "symmer/segment/shared_words.hpp"

namespace symmer::shim {

Runtime g;
constinit ThreadState unregistered_thread(true);
constinit thread_local ThreadState* t_state __attribute__((tls_model("initial-exec"))) =
    &unregistered_thread;

namespace {

using segment::load_word;
using segment::store_word;

// Serialises publishers and thread retirement within the process (never held on the per-call
// path; publish_slow only tries it).
std::atomic<bool> publish_lock{false};

bool try_lock_publish() noexcept { return !publish_lock.exchange(true, std::memory_order_acquire); }
void lock_publish() noexcept {
  while (!try_lock_publish()) {
    while (publish_lock.load(std::memory_order_relaxed)) {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
    }
  }
}
void unlock_publish() noexcept { publish_lock.store(false, std::memory_order_release); }

void store_mask(segment::CpuMask& shared, const segment::CpuMask& mask) noexcept {
  segment::copy_to_shared(&shared, &mask, sizeof mask);
}

void add_counters(ThreadCounters& into, const ThreadCounters& from) noexcept {
  Counter ThreadCounters::*fields[] = {&ThreadCounters::idle,
                                       &ThreadCounters::compute,
                                       &ThreadCounters::other,
                                       &ThreadCounters::out_of_sync,
                                       &ThreadCounters::pending_compute,
                                       &ThreadCounters::send_wait,
                                       &ThreadCounters::late_sender,
                                       &ThreadCounters::shim,
                                       &ThreadCounters::bytes_sent,
                                       &ThreadCounters::bytes_recv,
                                       &ThreadCounters::msgs_sent,
                                       &ThreadCounters::msgs_recv,
                                       &ThreadCounters::untracked};
  for (auto f : fields) (into.*f).add((from.*f).get());
  for (std::size_t c = 0; c < kCallClassCount; ++c) into.calls[c].add(from.calls[c].get());
}

void add_peers(PeerCounter* into, const PeerCounter* from, std::uint64_t n) noexcept {
  for (std::uint64_t p = 0; p < n; ++p) {
    into[p].bytes_sent.add(from[p].bytes_sent.get());
    into[p].bytes_recv.add(from[p].bytes_recv.get());
    into[p].msgs_sent.add(from[p].msgs_sent.get());
    into[p].msgs_recv.add(from[p].msgs_recv.get());
    into[p].late_sender.add(from[p].late_sender.get());
    into[p].send_wait.add(from[p].send_wait.get());
  }
}

// Retires a thread's counters into g.retired when it exits, so none of its figures are lost.
struct ThreadReaper {
  ThreadState* ts = nullptr;
  ~ThreadReaper() {
    if (ts == nullptr) return;
    lock_publish();
    add_counters(g.retired, ts->counters);
    if (g.retired_peers) add_peers(g.retired_peers.get(), ts->peers.get(), g.peer_entries);
    g.threads[ts->registry_index].store(nullptr, std::memory_order_release);
    unlock_publish();
    t_state = &unregistered_thread;
    release_scratch(ts->scratch);
    delete ts;
  }
};

// Writes the rank's figures into its slot. Caller holds the publish lock. Never waits: a
// segment changed under the job, or a slot someone else writes, ends the publishing.
void write_slot(segment::SlotState state) noexcept {
  if (!g.publishing.load(std::memory_order_relaxed)) return;
  const segment::SegmentWriter& seg = *g.segment;
  if (const auto intact = seg.intact(); !intact) {
    stop_publishing(intact.error().message, true);
    return;
  }
  const std::uint64_t me = g.local_rank;
  ThreadCounters sum;
  PeerCounter* peers = g.sum_peers.get();  // preallocated: publishing never allocates
  for (std::uint64_t p = 0; p < g.peer_entries; ++p)
    for (Counter* c : {&peers[p].bytes_sent, &peers[p].bytes_recv, &peers[p].msgs_sent,
                       &peers[p].msgs_recv, &peers[p].late_sender, &peers[p].send_wait})
      c->value.store(0, std::memory_order_relaxed);
  add_counters(sum, g.retired);
  add_peers(peers, g.retired_peers.get(), g.peer_entries);
  std::uint64_t threads = 0, in_mpi = 0;
  const int high = g.thread_high_water.load(std::memory_order_acquire);
  for (int i = 0; i < high; ++i) {
    const ThreadState* ts = g.threads[i].load(std::memory_order_acquire);
    if (ts == nullptr) continue;
    ++threads;
    in_mpi += ts->in_mpi.load(std::memory_order_relaxed);
    add_counters(sum, ts->counters);
    add_peers(peers, ts->peers.get(), g.peer_entries);
  }
  const TickConverter& t = g.ticks;
  const std::uint64_t compute = t.to_ns(sum.compute.get());

  segment::SlotIdentity& id = seg.identity(me);
  segment::SlotPlacement& pl = seg.placement(me);
  segment::SlotCounters& k = seg.counters(me);
  segment::PeerCounters* out = seg.peers(me);
  if (!g.slot_seq->try_begin()) {
    stop_publishing("slot " + std::to_string(me) + " was written by someone else", false);
    return;
  }
  store_word(id.state, static_cast<std::uint64_t>(state));
  store_word(reinterpret_cast<std::uint64_t&>(id.cpu), static_cast<std::uint64_t>(sched_getcpu()));
  store_word(id.threads, threads);
  store_word(pl.set_generation, g.set_generation.load(std::memory_order_relaxed));
  store_mask(pl.current, segment::mask_of(g.current_cpus));
  store_word(pl.runtime_updates, g.runtime_updates);
  store_mask(pl.runtime_workers, g.runtime_workers);
  store_mask(pl.runtime_control, g.runtime_control);
  store_word(k.publish_count, load_word(k.publish_count) + 1);
  store_word(k.last_publish_ns, monotonic_now_ns());
  store_word(k.idle_ns, t.to_ns(sum.idle.get()));
  store_word(k.compute_ns, compute);
  store_word(k.other_mpi_ns, t.to_ns(sum.other.get()));
  // Another thread's interval may be counted in one and not yet the other: keep the invariant.
  store_word(k.out_of_sync_ns, std::min(compute, t.to_ns(sum.out_of_sync.get())));
  store_word(k.pending_send_compute_ns, std::min(compute, t.to_ns(sum.pending_compute.get())));
  store_word(k.send_wait_ns, t.to_ns(sum.send_wait.get()));
  store_word(k.late_sender_ns, t.to_ns(sum.late_sender.get()));
  store_word(k.shim_ns, t.to_ns(sum.shim.get()));
  store_word(k.bytes_sent, sum.bytes_sent.get());
  store_word(k.bytes_recv, sum.bytes_recv.get());
  store_word(k.msgs_sent, sum.msgs_sent.get());
  store_word(k.msgs_recv, sum.msgs_recv.get());
  for (std::size_t c = 0; c < kCallClassCount; ++c) store_word(k.calls[c], sum.calls[c].get());
  const PapiReading papi = papi_latest();
  store_word(k.counters_status, static_cast<std::uint64_t>(papi.status));
  store_word(k.counters_event, static_cast<std::uint64_t>(papi.event));
  store_word(k.cache_misses, papi.value);
  store_word(k.untracked_requests, sum.untracked.get());
  store_word(k.in_mpi_threads, in_mpi);
  for (std::uint64_t p = 0; p < g.peer_entries; ++p) {
    store_word(out[p].bytes_sent, peers[p].bytes_sent.get());
    store_word(out[p].bytes_recv, peers[p].bytes_recv.get());
    store_word(out[p].msgs_sent, peers[p].msgs_sent.get());
    store_word(out[p].msgs_recv, peers[p].msgs_recv.get());
    store_word(out[p].late_sender_ns, t.to_ns(peers[p].late_sender.get()));
    store_word(out[p].send_wait_ns, t.to_ns(peers[p].send_wait.get()));
  }
  g.slot_seq->end();
}

}  // namespace

ThreadState* thread_state_slow() noexcept {
  if (!g.active.load(std::memory_order_acquire)) return nullptr;
  return register_thread();
}

ThreadState* register_thread() noexcept {
  static thread_local ThreadReaper reaper;
  auto* ts = new (std::nothrow) ThreadState;
  if (ts == nullptr) return nullptr;
  ts->peers.reset(new (std::nothrow) PeerCounter[g.peer_entries]);
  ts->scratch = make_scratch(&ts->scratch_status);
  if (!ts->peers || ts->scratch == nullptr) {
    release_scratch(ts->scratch);
    delete ts;
    return nullptr;
  }
  for (int i = 0; i < kMaxThreads; ++i) {
    ThreadState* expected = nullptr;
    if (g.threads[i].compare_exchange_strong(expected, ts, std::memory_order_release)) {
      ts->registry_index = i;
      int high = g.thread_high_water.load(std::memory_order_relaxed);
      while (high < i + 1 &&
             !g.thread_high_water.compare_exchange_weak(high, i + 1, std::memory_order_release)) {
      }
      break;
    }
  }
  if (ts->registry_index < 0) {  // more threads than kMaxThreads call MPI: leave this one out
    release_scratch(ts->scratch);
    delete ts;
    return nullptr;
  }
  ts->last_exit = now_ticks();
  reaper.ts = ts;
  t_state = ts;
  return ts;
}

void publish_slow(ThreadState& ts, std::uint64_t now) noexcept {
  if (!g.active.load(std::memory_order_relaxed)) return;
  // A new command from the analyzer is acted on here, at most a publish period after it.
  if (segment::load_word(*g.command_word.load(std::memory_order_relaxed)) !=
      g.seen_command.load(std::memory_order_relaxed))
    apply_command();
  if (try_lock_publish()) {
    g.next_publish.store(now + g.publish_period_ticks, std::memory_order_relaxed);
    if (ts.main_thread) papi_sample();
    write_slot(segment::SlotState::kActive);
    unlock_publish();
  }
  exchange_progress(ts, now);
  const std::uint64_t done = now_ticks();
  ts.counters.shim.add(done - now);
  ts.last_exit = done;  // the shim's own time is neither the application's compute nor idle
}

void publish_final(segment::SlotState state) noexcept {
  if (!g.segment || !g.publishing.load()) return;
  lock_publish();
  papi_sample();
  write_slot(state);
  unlock_publish();
}

void say(const std::string& text) noexcept {
  try {
    const std::string line = "symmer: " + text + "\n";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, line.data(), line.size());
  } catch (...) {  // out of memory: nothing to say it with
  }
}

void stop_publishing(const std::string& problem, bool whole_segment) noexcept {
  if (!g.publishing.exchange(false)) return;  // said already
  g.command_word.store(&kNoCommand);
  if (!whole_segment || g.local_rank == 0)
    say("the node segment " + (g.segment ? g.segment->path() : std::string()) + ": " + problem +
        "; the job goes on unmonitored");
}

PublishLock::PublishLock() noexcept { lock_publish(); }
PublishLock::~PublishLock() { unlock_publish(); }

void apply_command() noexcept {
  const std::uint64_t* command = g.command_word.load(std::memory_order_acquire);
  if (command == &kNoCommand) return;
  const std::uint64_t word = std::atomic_ref<std::uint64_t>(*const_cast<std::uint64_t*>(command))
                                 .load(std::memory_order_acquire);
  const segment::Command cmd = segment::decode_command(word);
  // The analyzer is still writing the target set: act at a later call.
  if (cmd.kind == segment::CommandKind::kWriting) return;
  std::uint64_t seen = g.seen_command.load(std::memory_order_relaxed);
  if (word == seen) return;
  segment::SlotControl& ctl = g.segment->control(g.local_rank);
  segment::CpuMask target{};
  if (cmd.kind == segment::CommandKind::kBind) {
    segment::copy_from_shared(&target, &g.segment->target(g.local_rank).cpus, sizeof target);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (segment::load_word(*command) != word) return;  // rewritten meanwhile: later
  }
  // One thread applies each new word; the others carry on.
  if (!g.seen_command.compare_exchange_strong(seen, word)) return;
  if (cmd.generation == 0 || cmd.kind != segment::CommandKind::kBind) return;
  const std::vector<int> to = segment::mask_cpus(target);
  segment::AckStatus status;
  int lowest = -1;
  {
    PublishLock lock;
    const long analyzer = g.analyzer ? g.analyzer->thread_id() : 0;
    status = move_all_threads(g.current_cpus, to, analyzer);
    if (status == segment::AckStatus::kOk) {
      g.current_cpus = to;
      g.set_generation.fetch_add(1, std::memory_order_release);
    }
    if (!g.current_cpus.empty()) lowest = g.current_cpus.front();
  }
  std::atomic_ref<std::uint64_t>(status == segment::AckStatus::kOk ? ctl.rebinds_ok
                                                                   : ctl.rebinds_failed)
      .fetch_add(1, std::memory_order_relaxed);
  std::atomic_ref<std::uint64_t>(ctl.ack).store(
      segment::encode_ack({cmd.generation, status, lowest}), std::memory_order_release);
}

}  // namespace symmer::shim
