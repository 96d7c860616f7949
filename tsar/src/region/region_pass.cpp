// SPDX-License-Identifier: BSD-3-Clause
// The pass protocol (region.hpp): the first worker plans the pass through the planner,
// workers take their ranges or chunks and time them, the last one's barrier gives the
// planner the times and installs the next sub-pass or ends the pass.
#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "api/error.hpp"
#include "memory/data_environment.hpp"
#include "region/region.hpp"
#include "runtime/symmer_link.hpp"
#include "workers/caller_mask.hpp"
#include "workers/wait_word.hpp"
#include "workers/worker_pool.hpp"

namespace tsar::core {
namespace {

// The region whose pool job the calling thread runs (tsar_run), and its worker index.
thread_local const Region* tls_region = nullptr;
thread_local int tls_worker = -1;
// The device the calling thread is pinned to (Device::serial) and symmer's move generation it
// was pinned at, so pinning is one system call per change of device or move, not per pass.
thread_local std::uint64_t tls_bound_device = 0;
thread_local std::uint64_t tls_bound_generation = 0;

/// A worker's sample of `iterations` run in `busy` seconds, of which a thief stole `stolen` in
/// `pieces` pieces taking `stolen_busy`: its own range apart from the pieces (WorkerSample).
WorkerSample sample(std::int64_t iterations, double busy, std::int64_t stolen, double stolen_busy,
                    std::int64_t pieces, double finish) {
  return {iterations - stolen, busy - stolen_busy, finish, pieces, stolen, stolen_busy};
}

}  // namespace

void Region::ensure_bound(Worker& w, bool pin) const {
  const Device& device = *w.device;
  // Once symmer moved the rank, the device's CPUs are at their relative places in the rank's
  // new set (runtime/symmer_link.hpp): workers follow at their next pass.
  SymmerLink& symmer = SymmerLink::instance();
  const std::uint64_t moved = symmer.generation();
  // A thread of the program (tsar_run's caller, a thread of the caller's OpenMP team) keeps its
  // mask: pinned for the call only where it runs off its device's CPUs (CallerMask); TSAR's own
  // threads are pinned once per change of device or move.
  const bool own = WorkerPool::on_pool_thread();
  if (!own && pin && !CallerMask::pin(symmer.follow(device.worker_cpus(runtime_->node()))))
    std::fprintf(stderr, "tsar: the worker of %s runs unpinned: %s\n",
                 device.description().key.c_str(), std::strerror(errno));
  // A program's thread attaches every pass: it gets its own device state back at the end of
  // each call (Region::run, loop), and the program may change it between calls.
  if (own && tls_bound_device == device.serial() && tls_bound_generation == moved) return;
  tls_bound_device = device.serial();
  tls_bound_generation = moved;
  if (own) {
    try {
      device.bind_worker(runtime_->node());
      symmer.follow_this_thread(device.worker_cpus(runtime_->node()));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tsar: the worker of %s runs unpinned: %s\n",
                   device.description().key.c_str(), e.what());
    }
  }
  try {
    w.device->attach_worker();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tsar: attaching the worker of %s: %s\n",
                 w.device->description().key.c_str(), e.what());
  }
}

void Region::bind_device(Worker& w, bool pin) {
  // Attached first: an accelerator's queue (the CUDA stream bodies get) exists only then.
  ensure_bound(w, pin);
  w.kind = static_cast<unsigned>(w.device->description().kind);
  w.id = w.device->description().id;
  w.launch = w.device->launch_context();
}

int Region::caller_worker(std::string* why) const {
  if (tls_region == this) return tls_worker;
  if (pool_driven_) {
    *why = "the region is running a pass on TSAR's worker pool (tsar_run)";
    return -1;
  }
  const int team = omp_get_num_threads();
  if (team != workers()) {
    *why = "called from a team of " + std::to_string(team) + " thread(s) but the region has " +
           std::to_string(workers()) +
           " devices: use #pragma omp parallel num_threads(tsar_num_devices(region))";
    return -1;
  }
  return omp_get_thread_num();
}

void Region::join_pass(int worker, std::int64_t first, std::int64_t n) {
  Worker& me = workers_[static_cast<std::size_t>(worker)];
  if (!pool_driven_) {
    for (;;) {
      std::uint32_t s = state_.load(std::memory_order_acquire);
      if (s == kActive) break;
      if (s == kIdle) {
        if (state_.compare_exchange_weak(s, kPlanning, std::memory_order_acq_rel)) {
          try {
            begin_pass(first, n, worker);
          } catch (...) {
            memory_.leave_pass();
            state_.store(kIdle, std::memory_order_release);
            throw;
          }
          state_.store(kActive, std::memory_order_release);
          break;
        }
        continue;
      }
      cpu_relax();  // another worker is planning: microseconds
    }
  }
  me.in_pass = true;
  me.pooled = pool_driven_;
  if (!pool_driven_) CallerMask::enter();  // a team's thread: its mask back at the pass's end
  // The leader driving an accelerator stays on its own CPUs (choose_participants).
  bind_device(me, worker != adopted_);
  me.error = pass_error_;
  if (me.error != TSAR_OK) {
    set_last_error(me.error, pass_error_message_);
  } else if (n != n_ || first != origin_) {
    me.error = TSAR_ERR_INVALID;
    set_last_error(me.error, "tsar_next: iterations [" + std::to_string(first) + ", " +
                                 std::to_string(first + n) + ") differ from the pass's [" +
                                 std::to_string(origin_) + ", " + std::to_string(origin_ + n_) +
                                 ") (every worker must pass the same range)");
  }
}

void Region::begin_pass(std::int64_t first, std::int64_t n, int worker) {
  if (clock_) clock_->synchronize();
  const double t0 = clock(worker);
  pass_start_ = t0;
  sub_passes_ = 0;
  schedule_seconds_ = 0.0;
  canceled_.store(false, std::memory_order_relaxed);
  pass_error_ = TSAR_OK;
  pass_error_message_.clear();
  n_ = n;
  origin_ = first;
  // Only the last pass's participants (choose_participants, not yet redone) ran anything: the
  // others' totals and samples are still clear. A pass all one accelerator's then costs no
  // walk over the idle cores here.
  for (const int w : participants_) {
    workers_[static_cast<std::size_t>(w)].clear_pass();
    samples_[static_cast<std::size_t>(w)] = {};
  }
  try {
    if (n < 0) throw Error(TSAR_ERR_INVALID, "n = " + std::to_string(n) + " is negative");
    if (n > kMaxIterations)
      throw Error(TSAR_ERR_INVALID, "n = " + std::to_string(n) + " is larger than 2^60");
    if (first < 0 || first > kMaxIterations - n)
      throw Error(TSAR_ERR_INVALID, "the first iteration " + std::to_string(first) +
                                        " is negative or the last beyond 2^60");
    memory_.enter_pass(first + n, name_);
  } catch (const Error& e) {
    pass_error_ = e.status();
    pass_error_message_ = e.what();
    n_ = std::max<std::int64_t>(n, 0);
    origin_ = 0;
    empty_plan(plan_);  // a refused pass runs nothing
    install();
    choose_participants();
    return;
  }
  reductions_.reset();
  CopyCosts copies = device_memory_ ? copy_costs(memory_.registrations()) : CopyCosts{};
  const std::uint64_t host_writes = memory_.host_writes();
  copies.host_written = host_writes != host_writes_seen_;
  host_writes_seen_ = host_writes;
  if (memory_.shared() && memory_.environment().get() != trial_environment_) {
    // The environment's regions decide together whether a unit sits out (PassPlanner).
    trial_environment_ = memory_.environment().get();
    planner_->share_trial(memory_.environment()->shared_trial());
  }
  if (device_memory_ && memory_.shared()) {
    keep_pass_devices();
    copies.resident = resident_split(memory_.registrations(), pass_devices_, origin_, n);
    copies.follows_only = memory_.environment()->follows_only(memory_);
  }
  // The planner may retire accelerators that cannot pay before the devices are fixed.
  planner_->plan_pass(n, copies, plan_);
  // Rows of a data environment's buffers may be on devices outside this region.
  if (device_memory_ || memory_.shared()) {
    device_failed_.store(false, std::memory_order_relaxed);
    device_failure_.clear();
    keep_pass_devices();  // the planner may have retired some
    copying_ = memory_.shared() || own_memory_devices_ > 0;
    guard_memory([&] { engine_.begin_pass(memory_, reductions_, pass_devices_, origin_); });
  }
  time_chunks_ = planner_->times_chunks();
  install();
  choose_participants();
  if (copying_) exchange_resident_rows();
  sub_start_ = clock(worker);
  schedule_seconds_ += sub_start_ - t0;
}

void Region::keep_pass_devices() {
  // Walked only when a worker's device changed (retired, lost): not every pass.
  const std::uint64_t changes = device_changes_.load(std::memory_order_relaxed);
  if (changes == pass_devices_changes_) return;
  pass_devices_changes_ = changes;
  own_memory_devices_ = 0;
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    // Copied only when it changed: a shared_ptr's copy is two atomic read-modify-writes.
    if (pass_devices_[w] != workers_[w].device) pass_devices_[w] = workers_[w].device;
    own_memory_devices_ += workers_[w].device->description().host_memory ? 0 : 1;
  }
}

ChunkQueue::Result Region::take_chunk(int worker, const ChunkTiming& last, Range& out) {
  return planner_->take_chunk(worker, last, queue_, out);
}

void Region::install() {
  if (plan_.chunked) {
    queue_.reset(plan_.lo, plan_.hi);
    return;
  }
  const bool sharing = planner_->balances_cpu_share();
  const std::span<const unsigned char> members = planner_->share_members();
  std::int64_t at = plan_.lo;
  busy_.clear();
  member_rows_ = false;
  for (std::size_t w = 0; w < ranges_.size(); ++w) {
    const std::int64_t count = plan_.counts[w];
    const Range r{at, at + count};
    // Written only when it moved: workers read these lines, a store would take them away.
    if (ranges_[w].begin != r.begin || ranges_[w].end != r.end) ranges_[w] = r;
    at += count;
    if (count == 0) continue;
    busy_.push_back(static_cast<int>(w));
    member_rows_ = member_rows_ || (sharing && members[w] != 0);
  }
  if (!sharing) return;
  // While no stealing member has rows -- the cores out of a pass that is all the
  // accelerators' -- the members' lines are left as the last such pass left them.
  if (!member_rows_ && shares_.resting())
    shares_.rest();
  else
    shares_.reset(ranges_, members, planner_->share_pieces(), planner_->share_thieves());
}

void Region::choose_participants() {
  // Workers with nothing to run sit a pass out -- on TSAR's pool (an OpenMP team's threads
  // are the caller's, and call tsar_next anyway), in a pass of one sub-pass (a later one
  // could give them work), for a ratio plan: no range and no range of a stealing member to
  // take from. Waking them costs every pass tens of microseconds, and any one of them the
  // system runs late -- a core busy with another thread -- holds up a pass that needed none
  // of them. Worker 0, the caller, always runs the pass (it leads the barrier).
  const bool sparse =
      pool_driven_ && pass_error_ == TSAR_OK && !plan_.chunked && planner_->last_sub_pass();
  const bool shared = sparse && member_rows_;  // every stealing member takes part
  const auto takes_part = [&](std::size_t w) {
    return !sparse || !ranges_[w].empty() || (shared && shares_.member(static_cast<int>(w)));
  };
  // The last pass's participants that sit this one out: what the leader reads of them after
  // the barrier is cleared (unless it is already, where they sat the last sub-pass out too),
  // and their line, which the worker writes, is left alone. Workers outside participants_ sat
  // the last pass out and are clear: a pass all one accelerator's touches no idle core's line.
  for (const int w : participants_) {
    Worker& x = workers_[static_cast<std::size_t>(w)];
    if (w == 0 || takes_part(static_cast<std::size_t>(w)) || !x.taking_part) continue;
    x.taking_part = false;
    x.clear_sub_pass();
  }
  participants_.clear();
  participants_.push_back(0);
  workers_[0].taking_part = true;
  // Accelerators' workers first: the pool wakes workers in this order, and an accelerator's
  // work starts only when its worker has launched it, so a late wake-up of its worker delays
  // the whole of its part -- and is learned as a slow device (WorkerPool).
  cpu_participants_.clear();
  const auto add = [&](std::size_t w) {
    Worker& x = workers_[w];
    // Its line holds what the worker reads every pass (its device): stored only when it
    // changes, so a steady pass takes no worker's line away from it.
    if (!x.taking_part) x.taking_part = true;
    (x.device->description().accelerator ? participants_ : cpu_participants_)
        .push_back(static_cast<int>(w));
  };
  if (sparse && !shared) {  // the workers with a range (install), not a walk over all
    for (const int w : busy_)
      if (w != 0) add(static_cast<std::size_t>(w));
  } else {
    for (std::size_t w = 1; w < workers_.size(); ++w)
      if (takes_part(w)) add(w);
  }
  participants_.insert(participants_.end(), cpu_participants_.begin(), cpu_participants_.end());
  // A leader with nothing of its own to run drives the first accelerator itself, on its own
  // CPUs: a pass all one accelerator's then costs what the accelerator alone costs, with no
  // hand-off to the accelerator's worker and back, and no reading of the plan from another
  // core (docs/results/tsar/step-loops/2026-11-26-h100-62469b7.txt). The accelerator's
  // control core only matters while cores run beside it.
  adopted_ = -1;
  woken_.assign(participants_.begin(), participants_.end());
  if (sparse && ranges_[0].empty() && !(shared && shares_.member(0)) && participants_.size() > 1 &&
      workers_[static_cast<std::size_t>(participants_[1])].device->description().accelerator) {
    adopted_ = participants_[1];
    workers_[0].taking_part = false;
    workers_[0].clear_sub_pass();
    woken_.erase(woken_.begin() + 1);
  }
  barrier_.expect(std::span<const int>(woken_).subspan(1));
  late_deadline_ = 0.0;
  late_done_ = false;
  if (clock_) clock_->start(running());
}

bool Region::take_late_rest(int worker, Range& out) {
  // A CPU worker woken for the pass may not run for milliseconds -- its core held by another
  // program's thread until that thread's time slice ends -- while the others are done.
  // Waiting for it holds the pass, and the next pass's start waits for it to leave. Once the
  // leader has run its own part and then waited as long again (at most as long as a worker
  // spins before sleeping), it takes back the job of a CPU worker that has not started it
  // (WorkerPool::excuse) and runs what is left of its rows itself: what the stealing ranges
  // left to the owner, or the whole range of a plan without them (chunks others took). A
  // worker that has not started by then cannot finish its rows before the leader would. One
  // at a time: the others may start while the leader runs those rows.
  const auto on_cpu = [this](int w) {
    return !workers_[static_cast<std::size_t>(w)].device->description().accelerator;
  };
  // On emulated time (tests) no one starts late, and the others' takes wait for the leader's.
  if (worker != 0 || late_done_ || clock_ || !pool_driven_ || !on_cpu(0) ||
      !planner_->last_sub_pass() || pass_error_ != TSAR_OK ||
      canceled_.load(std::memory_order_relaxed))
    return false;
  if (late_deadline_ == 0.0) {
    const double now = clock(0);
    late_deadline_ =
        now + std::min(now - sub_start_, std::chrono::duration<double>(WaitWord::kSpin).count());
  }
  const bool shared = !plan_.chunked && planner_->balances_cpu_share();
  for (;;) {
    const int late = barrier_.excuse_missing_at(
        late_deadline_, [this] { return clock(0); }, on_cpu,
        [this](int w) { return runtime_->pool().excuse(slots_[static_cast<std::size_t>(w)]); });
    if (late < 0) {
      late_done_ = true;
      return false;
    }
    Worker& x = workers_[static_cast<std::size_t>(late)];
    x.taking_part = false;  // finish_sub_pass: it neither ran nor waited
    x.clear_sub_pass();
    x.pass_late = true;
    if (plan_.chunked) continue;
    if (shared && shares_.member(late)) {
      if (shares_.take_rest(late, out)) return true;
      continue;
    }
    out = ranges_[static_cast<std::size_t>(late)];
    if (!out.empty()) return true;
  }
}

void Region::stop_dispatch() {
  canceled_.store(true, std::memory_order_relaxed);
  queue_.close();
  shares_.close();
}

void Region::cancel() {
  if (!in_pass()) throw Error(TSAR_ERR_STATE, "tsar_cancel outside a pass");
  stop_dispatch();
}

void Region::start_sub_pass(int worker) {
  Worker& me = workers_[static_cast<std::size_t>(worker)];
  me.clear_sub_pass();
  // A thief runs its own range first (a non-member's, below), then steals in loop().
  me.thief = !plan_.chunked && shares_.thief(worker);
  me.stealing = false;
  Range r;
  if (me.error == TSAR_OK && !canceled_.load(std::memory_order_relaxed)) {
    if (!plan_.chunked && shares_.member(worker)) {
      if (shares_.take(worker, r) != ChunkQueue::Result::kSuccess) r = {};
    } else if (!plan_.chunked) {
      r = ranges_[static_cast<std::size_t>(worker)];
    } else if (me.active && take_chunk(worker, {}, r) != ChunkQueue::Result::kSuccess) {
      r = {};
    }
  }
  me.pending = r;
  me.has_pending = true;
}

int Region::next(int worker, std::int64_t first, std::int64_t n, std::int64_t* begin,
                 std::int64_t* end) {
  Worker& me = workers_[static_cast<std::size_t>(worker)];
  if (!me.in_pass || me.pooled != pool_driven_) {  // a slot a pool job left is a team's anew
    join_pass(worker, first, n);
    start_sub_pass(worker);
  }
  int status = me.error;
  if (!me.has_pending) {
    me.error = status = TSAR_ERR_STATE;
    me.current = {};
    set_last_error(status, "tsar_next called twice without tsar_loop in between");
  } else {
    me.has_pending = false;
    me.current = me.pending;
  }
  if (begin == nullptr || end == nullptr) {
    me.current = {};
    if (status == TSAR_OK) {
      status = TSAR_ERR_NULL;
      set_last_error(status, "tsar_next: begin or end is NULL (the worker's range was skipped)");
    }
  } else {
    *begin = origin_ + me.current.begin;
    *end = origin_ + me.current.end;
  }
  // A chunk handed out by loop() starts when the previous one ended: one clock read per chunk.
  if (!me.started) me.start = clock(worker);
  me.started = false;
  if (copying_ && !me.current.empty()) {
    stage_in(me, worker);
    if (begin != nullptr && end != nullptr) {  // the range may be gone with a failed device
      *begin = origin_ + me.current.begin;
      *end = origin_ + me.current.end;
    }
  }
  return status;
}

int Region::loop(int worker, int* status) {
  Worker& me = workers_[static_cast<std::size_t>(worker)];
  if (!me.in_pass) {
    *status = TSAR_ERR_STATE;
    set_last_error(*status, "tsar_loop without tsar_next in this pass");
    return 0;
  }
  if (copying_ && !me.current.empty()) stage_out(me, worker);
  // Chunks of schedules that do not time them run back to back from the first one's start:
  // the clock is read once, when the worker leaves its last chunk.
  const bool clocked = !plan_.chunked || time_chunks_;
  double t = clocked ? clock(worker) : 0.0;
  if (me.has_pending) {
    me.has_pending = false;
    me.error = TSAR_ERR_STATE;
    set_last_error(me.error, "tsar_loop called again without tsar_next: a range was not run");
  }
  const std::int64_t ran = me.current.size();
  if (clocked) me.sub_busy += t - me.start;
  if (ran > 0) {
    me.sub_iterations += ran;
    ++me.sub_chunks;
  }
  if (me.stealing) {  // what the planner does not learn the thief's time from
    me.sub_stolen += ran;
    me.sub_pieces += ran > 0 ? 1 : 0;
    me.sub_stolen_busy += t - me.start;
  } else {
    me.own_end = t;
  }
  me.current = {};
  // Chunks, or the next piece of the CPU share (its own range's, else a stolen one); a thief's
  // next piece of the CPU workers' ranges once its own is done.
  const bool shared = !plan_.chunked && (shares_.member(worker) || me.thief);
  if ((plan_.chunked || shared) && me.active && me.error == TSAR_OK &&
      !canceled_.load(std::memory_order_relaxed)) {
    Range r;
    const auto taken = shared ? shares_.take(worker, r)
                              : take_chunk(worker, {ran, clocked ? t - me.start : 0.0}, r);
    if (taken == ChunkQueue::Result::kSuccess) {
      me.pending = r;
      me.has_pending = true;
      me.stealing = me.thief;
      if (clocked) me.start = t;
      me.started = true;
      return 1;
    }
  }
  if (Range r; take_late_rest(worker, r)) {
    me.pending = r;
    me.has_pending = true;
    me.stealing = me.thief;
    me.start = clock(worker);  // the wait before it was no work
    me.started = true;
    return 1;
  }
  if (!clocked) {
    t = clock(worker);
    me.sub_busy += t - me.start;
  }
  if (copying_) collect(me, worker);
  me.arrival = t;
  if (clock_) clock_->arrive(worker);
  const bool pooled = me.pooled;  // read before the release: see below
  if (barrier_.arrive_and_wait(worker == adopted_ ? 0 : worker,
                               [this] { return finish_sub_pass(); })) {
    start_sub_pass(worker);
    return 1;
  }
  // The pool's threads touch nothing of the region from here: the caller may be in the next
  // pass already (WorkerPool does not wait for them). Their slots stay in this pass until
  // their next job (run_worker) or a team's thread (next) takes them.
  if (pooled) return 0;
  me.in_pass = false;  // a thread of the program's team
  CallerMask::leave();
  me.device->detach_program_thread();
  *status = me.error != TSAR_OK ? me.error : outcome_;
  if (*status == TSAR_ERR_CANCELED)
    set_last_error(*status, "the pass of region '" + name_ + "' was canceled");
  else if (*status == TSAR_OK)
    clear_last_error();
  return 0;
}

bool Region::finish_sub_pass() {
  // Workers outside participants_ sit the whole pass out: their samples stay clear (begin_pass).
  double last = 0.0;
  for (const int w : participants_) {
    const Worker& x = workers_[static_cast<std::size_t>(w)];
    if (x.taking_part) last = std::max(last, x.arrival);
  }
  if (clock_) clock_->synchronize();
  const double t0 = clock(0);
  ++sub_passes_;
  // A worker that lost its accelerator goes on as a CPU core: its sample mixes the device and
  // its successor and is not learned.
  for (const int wi : participants_) {
    const auto w = static_cast<std::size_t>(wi);
    Worker& x = workers_[w];
    if (!x.taking_part && !x.lost_device) {  // it neither ran nor waited: nothing to add
      x.arrival = x.own_finish = sub_start_;
      samples_[w] = {};
      continue;
    }
    x.pass_idle += x.taking_part ? last - x.arrival : 0.0;
    x.pass_iterations += x.sub_iterations;
    x.pass_chunks += x.sub_chunks;
    x.pass_busy += x.sub_busy;
    x.pass_stolen += x.sub_stolen;
    x.pass_pieces += x.sub_pieces;
    x.pass_stolen_busy += x.sub_stolen_busy;
    // A thief's sample is of its own range alone: stolen pieces carry launches and copies of
    // other sizes, and the CPU side's sample counts only what the CPU workers ran.
    x.own_finish = x.sub_stolen > 0 ? x.own_end : x.arrival;
    samples_[w] = sample(x.sub_iterations, x.sub_busy, x.sub_stolen, x.sub_stolen_busy,
                         x.sub_pieces, x.own_finish - sub_start_);
    if (!x.lost_device) continue;
    x.lost_device = false;
    samples_[w] = {};
    x.active = planner_->device_lost(static_cast<int>(w), x.device);
  }
  const bool canceled = canceled_.load(std::memory_order_relaxed);
  const bool learn = !canceled && pass_error_ == TSAR_OK;
  if (planner_->finish_sub_pass(samples_, learn, plan_)) {
    install();
    if (copying_) exchange_resident_rows();
    if (clock_) clock_->start(running());
    sub_start_ = clock(0);
    schedule_seconds_ += sub_start_ - t0;
    return true;
  }
  if (copying_) engine_.end_pass(memory_);  // what the pass wrote goes stale elsewhere
  memory_.leave_pass();
  if (learn) reductions_.merge();
  const bool failed = device_failed_.load(std::memory_order_relaxed);
  outcome_ = failed ? device_failure_status_ : canceled ? TSAR_ERR_CANCELED : pass_error_;
  if (failed) pass_error_message_ = device_failure_;
  schedule_seconds_ += clock(0) - t0;
  if (pass_error_ == TSAR_OK) {  // a refused pass ran nothing
    record_pass(last);
    // After recording: the statistics show the devices as they ran this pass.
    for (const int wi : participants_) {
      const auto w = static_cast<std::size_t>(wi);
      const Worker& x = workers_[w];
      samples_[w] = sample(x.pass_iterations, x.pass_busy, x.pass_stolen, x.pass_stolen_busy,
                           x.pass_pieces, x.own_finish - pass_start_);
    }
    planner_->end_pass(learn, last - pass_start_, samples_);
    trace_trial();
  }
  state_.store(kIdle, std::memory_order_release);
  return false;
}

// ---------------------------------------------------------------------------------------
// The worker pool path

void Region::run_worker(void* context, int worker) {
  auto* self = static_cast<Region*>(context);
  if (worker == 0 && self->adopted_ > 0) worker = self->adopted_;  // the leader drives it
  // A body may run a region of another device set (a partition's place runs its own): the
  // caller's region is restored afterwards.
  const Region* const outer_region = tls_region;
  const int outer_worker = tls_worker;
  tls_region = self;
  tls_worker = worker;
  self->workers_[static_cast<std::size_t>(worker)].in_pass = false;  // its next() joins
  std::int64_t b = 0, e = 0;
  int status = TSAR_OK;
  do {
    self->next(worker, self->origin_, self->n_, &b, &e);
    if (b < e) {
      const Worker& me = self->workers_[static_cast<std::size_t>(worker)];
      const tsar_chunk chunk{b,   e, worker, me.kind, me.id, me.launch.omp_device, me.launch.stream,
                             self};
      try {
        self->body_(&chunk, self->body_arg_);
      } catch (...) {  // a C++ body passed as a C callback: stop the pass, keep the pool
        self->stop_dispatch();
      }
    }
  } while (self->loop(worker, &status));
  tls_region = outer_region;
  tls_worker = outer_worker;
}

int Region::run(std::int64_t first, std::int64_t n, tsar_body_fn body, void* arg) {
  const CallerMask::Scope caller;  // the caller, worker 0, gets its CPU mask back
  if (tls_region == this || runtime_->pool().running_here())
    throw Error(TSAR_ERR_STATE,
                "tsar_run from inside a loop body of the same device set: a nested region needs "
                "workers of its own (tsar_partition_* gives each place a device set)");
  std::uint32_t expected = kIdle;
  if (!state_.compare_exchange_strong(expected, kPlanning, std::memory_order_acq_rel))
    throw Error(TSAR_ERR_STATE, "region '" + name_ + "' is already running a pass");
  pool_driven_ = true;
  body_ = body;
  body_arg_ = arg;
  try {
    begin_pass(first, n, 0);
  } catch (...) {
    memory_.leave_pass();
    pool_driven_ = false;
    state_.store(kIdle, std::memory_order_release);
    throw;
  }
  if (pass_error_ != TSAR_OK) {  // refused (bad n, buffers too small): nothing runs
    pool_driven_ = false;
    state_.store(kIdle, std::memory_order_release);
    throw Error(static_cast<tsar_status>(pass_error_), pass_error_message_);
  }
  state_.store(kActive, std::memory_order_release);
  runtime_->pool().run_ending_in_barrier(slots_, woken_, &Region::run_worker, this);
  // The caller ran worker 0's part or the accelerator it drove: its own device state back.
  workers_[static_cast<std::size_t>(adopted_ > 0 ? adopted_ : 0)].device->detach_program_thread();
  pool_driven_ = false;
  if (outcome_ == TSAR_ERR_CANCELED)
    throw Error(TSAR_ERR_CANCELED, "the pass of region '" + name_ + "' was canceled");
  if (outcome_ != TSAR_OK) throw Error(static_cast<tsar_status>(outcome_), pass_error_message_);
  return TSAR_OK;
}

}  // namespace tsar::core
