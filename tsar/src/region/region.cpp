// SPDX-License-Identifier: BSD-3-Clause
#include "region/region.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>

#include "api/error.hpp"
#include "cache/time_cache.hpp"
#include "devices/host_device.hpp"
#include "memory/copy_costs.hpp"
#include "region/cpu_split_hold.hpp"
#include "region/straggle.hpp"
#include "region/tick_clock.hpp"
#include "region/trace_sink.hpp"
#include "schedule/split_hysteresis.hpp"

namespace tsar::core {
namespace {

// The region whose pool job the calling thread runs (tsar_run), and its worker index.
thread_local const Region* tls_region = nullptr;
thread_local int tls_worker = -1;
// The device the calling thread is pinned to (Device::serial), so pinning is one system call
// per change of device, not per pass.
thread_local std::uint64_t tls_bound_device = 0;

std::string kinds_text(unsigned kinds) {
  std::string s;
  for (unsigned bit :
       {TSAR_DEVICE_CPU, TSAR_DEVICE_OMP_TARGET, TSAR_DEVICE_CUDA, TSAR_DEVICE_EMULATED})
    if (kinds & bit)
      s += (s.empty() ? "" : "|") + std::string(device_kind_name(static_cast<DeviceKind>(bit)));
  return s.empty() ? "none" : s;
}

}  // namespace

Region::Region(std::shared_ptr<Runtime> runtime, std::string name, ScheduleSpec schedule,
               unsigned kinds, const double* initial_tpi, int num_times)
    : runtime_(std::move(runtime)),
      name_(name.empty() ? "region" : std::move(name)),
      spec_(schedule),
      kinds_(kinds == 0 ? static_cast<unsigned>(TSAR_DEVICE_ALL) : kinds),
      reductions_(0),
      engine_(0),
      stats_(0),
      trace_(TraceSink::from_env()) {
  if ((kinds_ & ~static_cast<unsigned>(TSAR_DEVICE_ALL)) != 0)
    throw Error(TSAR_ERR_INVALID,
                "device kinds mask " + std::to_string(kinds) + " has unknown bits");
  const auto& devices = runtime_->devices();
  std::string available;
  std::vector<std::string> accelerators;  // physical accelerators taken (one device each)
  for (std::size_t s = 0; s < devices.size(); ++s) {
    available += (available.empty() ? "" : ", ") + devices[s]->description().key;
    if ((static_cast<unsigned>(devices[s]->kind()) & kinds_) == 0) continue;
    const std::string& physical = devices[s]->description().physical;
    if (!physical.empty()) {
      if (std::find(accelerators.begin(), accelerators.end(), physical) != accelerators.end())
        continue;
      accelerators.push_back(physical);
    }
    device_memory_ = device_memory_ || !devices[s]->description().host_memory;
    Worker w;
    w.device = devices[s];
    w.slot = static_cast<int>(s);
    workers_.push_back(std::move(w));
  }
  if (workers_.empty())
    throw Error(TSAR_ERR_DEVICES, "no device of kind " + kinds_text(kinds_) + " (devices: " +
                                      (available.empty() ? "none" : available) + ")");
  const auto n = static_cast<std::size_t>(workers());
  if (initial_tpi == nullptr && num_times != 0)
    throw Error(TSAR_ERR_INVALID,
                "num_times is " + std::to_string(num_times) + " but time_per_iteration is NULL");
  if (initial_tpi != nullptr && num_times != workers())
    throw Error(TSAR_ERR_INVALID, "time_per_iteration has " + std::to_string(num_times) +
                                      " entries; the region has " + std::to_string(workers()) +
                                      " devices (tsar_count_devices tells how many)");

  for (const auto& w : workers_) original_keys_.push_back(w.device->description().key);
  given_tpi_.assign(n, 0.0);
  if (const char* cache = std::getenv("TSAR_CACHE"); cache != nullptr && cache[0] != '\0') {
    if (auto cached = load_cached_times(cache, name_, original_keys_)) given_tpi_ = *cached;
  }
  for (std::size_t w = 0; w < n && initial_tpi != nullptr; ++w) {
    const double t = initial_tpi[w];
    if (!(t >= 0.0) || !std::isfinite(t))
      throw Error(TSAR_ERR_INVALID, "time_per_iteration[" + std::to_string(w) +
                                        "] must be a finite number >= 0 (0 = unknown)");
    if (t > 0.0) given_tpi_[w] = t;
  }
  for (const auto& w : workers_) {
    const double peak = w.device->description().peak_gflops;
    peak_tpi_.push_back(peak > 0.0 ? 1.0 / peak : 1.0);
  }
  estimators_.resize(n);
  const auto priors = consistent_priors(peak_tpi_, given_tpi_);
  for (std::size_t w = 0; w < n; ++w) estimators_[w].set_prior(priors[w]);
  active_.assign(n, 1);
  times_.resize(n);
  ranges_.resize(n);
  for (const auto& w : workers_) slots_.push_back(w.slot);
  scheduler_ = make_scheduler(spec_, workers());
  balance_cpu_ = scheduler_->balances_cpu_share();
  shares_.resize(workers());
  share_member_.assign(n, 0);
  share_piece_.assign(n, 1);
  cpu_pooled_.assign(n, 0);
  cpu_split_.reserve(n);
  reductions_ = Reductions(workers());
  engine_ = CopyEngine(workers());
  pass_devices_.resize(n);
  sitting_out_.assign(n, 0);
  move_seconds_.assign(n, 0.0);
  pooled_.assign(n, 0);
  settled_.assign(n, 0);
  entering_.assign(n, 0);
  migration_seconds_.assign(n, 0.0);
  skipped_.assign(n, 0);
  stats_ = Statistics(workers());
  barrier_.set_count(workers());
  plan_.counts.assign(n, 0);
  plan_.counts.reserve(n);
}

Region::~Region() {
  // Pool threads leave a pass's job after its barrier: they may still be reading this region.
  runtime_->pool().wait_idle();
  // The end of the region: resident rows reach the host buffers.
  if (device_memory_)
    for (Registration& reg : memory_.registrations()) {
      try {
        engine_.write_back(reg);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "tsar: region '%s': writing back buffer %p: %s\n", name_.c_str(),
                     reg.host, e.what());
      }
    }
  if (trace_ != nullptr) trace_->flush();
  const char* cache = std::getenv("TSAR_CACHE");
  if (cache == nullptr || cache[0] == '\0' || passes() == 0) return;
  std::vector<double> times(workers_.size(), 0.0);
  bool any = false;
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    times[w] = workers_[w].retired         ? workers_[w].retired_tpi
               : estimators_[w].measured() ? estimators_[w].estimate()
                                           : 0.0;
    any = any || times[w] > 0.0;
  }
  if (!any) return;
  if (const std::string problem = store_cached_times(cache, name_, original_keys_, times);
      !problem.empty())
    std::fprintf(stderr, "tsar: %s\n", problem.c_str());
}

// ---------------------------------------------------------------------------------------
// Description and configuration

tsar_device_info Region::device_info(int worker) const {
  const Worker& w = workers_.at(static_cast<std::size_t>(worker));
  const auto& d = w.device->description();
  tsar_device_info info{};
  info.kind = static_cast<unsigned>(d.kind);
  info.id = d.id;
  info.numa_node = d.numa_node;
  info.control_core = d.control_core;
  info.num_cores = std::max<int>(1, static_cast<int>(d.cores.size()));
  info.omp_device = w.device->launch_context().omp_device;
  info.retired = w.retired ? 1 : 0;
  info.peak_gflops = d.peak_gflops;
  std::snprintf(info.key, sizeof info.key, "%s", d.key.c_str());
  return info;
}

void Region::set_time_per_iteration(int worker, double seconds) {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "tsar_set_time_per_iteration during a pass");
  if (worker < 0 || worker >= workers())
    throw Error(TSAR_ERR_INVALID, "device " + std::to_string(worker) +
                                      " out of range (region has " + std::to_string(workers()) +
                                      ")");
  if (!(seconds >= 0.0) || !std::isfinite(seconds))
    throw Error(TSAR_ERR_INVALID, "time per iteration must be a finite number >= 0");
  given_tpi_[static_cast<std::size_t>(worker)] = seconds;
  const auto priors = consistent_priors(peak_tpi_, given_tpi_);
  for (std::size_t w = 0; w < estimators_.size(); ++w) estimators_[w].set_prior(priors[w]);
}

void Region::set_backoff(int passes) {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "tsar_set_backoff during a pass");
  if (passes < 0) throw Error(TSAR_ERR_INVALID, "back-off passes must be >= 0 (0 disables)");
  backoff_passes_ = passes;
}

MemoryRegistry& Region::memory() {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "memory registrations cannot change during a pass");
  return memory_;
}

Reductions& Region::reductions() {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "reductions cannot change during a pass");
  return reductions_;
}

std::span<const double> Region::current_times() {
  effective_times(estimators_, active_, times_, ratio_scratch_);
  // Next to accelerators, CPU cores are planned for their slowest (region/straggle.hpp).
  if (cpu_straggle_ > 1.0) {
    bool accelerator = false;
    for (std::size_t w = 0; w < workers_.size(); ++w)
      accelerator = accelerator || (active_[w] && workers_[w].device->kind() != DeviceKind::kCpu);
    if (accelerator)
      for (std::size_t w = 0; w < workers_.size(); ++w)
        if (workers_[w].device->kind() == DeviceKind::kCpu) times_[w] *= cpu_straggle_;
  }
  return times_;
}

std::vector<std::string> Region::device_keys() const {
  std::vector<std::string> keys;
  for (const auto& w : workers_) keys.push_back(w.device->description().key);
  return keys;
}

void Region::ensure_bound(Worker& w) const {
  if (tls_bound_device == w.device->serial()) return;
  tls_bound_device = w.device->serial();
  try {
    w.device->attach_worker(runtime_->node());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tsar: the worker of %s runs unpinned: %s\n",
                 w.device->description().key.c_str(), e.what());
  }
}

// ---------------------------------------------------------------------------------------
// The pass protocol

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

void Region::join_pass(int worker, std::int64_t n) {
  Worker& me = workers_[static_cast<std::size_t>(worker)];
  if (!pool_driven_) {
    for (;;) {
      std::uint32_t s = state_.load(std::memory_order_acquire);
      if (s == kActive) break;
      if (s == kIdle) {
        if (state_.compare_exchange_weak(s, kPlanning, std::memory_order_acq_rel)) {
          try {
            begin_pass(n);
          } catch (...) {
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
  // Attached first: an accelerator's queue (the CUDA stream bodies get) exists only then.
  ensure_bound(me);
  me.kind = static_cast<unsigned>(me.device->kind());
  me.id = me.device->description().id;
  me.launch = me.device->launch_context();
  me.error = pass_error_;
  if (me.error != TSAR_OK) {
    set_last_error(me.error, pass_error_message_);
  } else if (n != n_) {
    me.error = TSAR_ERR_INVALID;
    set_last_error(me.error, "tsar_next: n = " + std::to_string(n) +
                                 " differs from the pass's n = " + std::to_string(n_) +
                                 " (every worker must pass the same n)");
  }
}

void Region::begin_pass(std::int64_t n) {
  const double t0 = now_seconds();
  pass_start_ = t0;
  sub_passes_ = 0;
  schedule_seconds_ = 0.0;
  canceled_.store(false, std::memory_order_relaxed);
  pass_error_ = TSAR_OK;
  pass_error_message_.clear();
  n_ = n;
  for (auto& w : workers_) {
    w.pass_iterations = w.pass_chunks = 0;
    w.pass_busy = w.pass_idle = 0.0;
  }
  try {
    if (n < 0) throw Error(TSAR_ERR_INVALID, "n = " + std::to_string(n) + " is negative");
    if (n > kMaxIterations)
      throw Error(TSAR_ERR_INVALID, "n = " + std::to_string(n) + " is larger than 2^60");
    memory_.check_pass(n);
  } catch (const Error& e) {
    pass_error_ = e.status();
    pass_error_message_ = e.what();
    n_ = std::max<std::int64_t>(n, 0);
    ratio_plan(0, 0, current_times(), plan_);
    pass_chunked_ = false;
    install();
    return;
  }
  reductions_.reset();
  if (device_memory_ && scheduler_->adapts()) screen_accelerators(n);
  if (device_memory_) {
    device_failed_.store(false, std::memory_order_relaxed);
    device_failure_.clear();
    copying_ = false;
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      pass_devices_[w] = workers_[w].device;
      copying_ = copying_ || !workers_[w].device->description().host_memory;
    }
    guard_memory([&] { engine_.begin_pass(memory_, reductions_, pass_devices_); });
  }
  current_times();
  for (std::size_t w = 0; w < workers_.size(); ++w)
    if (sitting_out_[w]) times_[w] = std::numeric_limits<double>::infinity();
  scheduler_->begin_pass(n, times_, plan_);
  probe_unmeasured();
  if (device_memory_)
    hold_split(n);
  else
    hold_cpu_ranges(n);
  choose_share_mode(n);
  pass_chunked_ = plan_.chunked;
  time_chunks_ = scheduler_->times_chunks();
  install();
  if (copying_) exchange_resident_rows();
  schedule_seconds_ += now_seconds() - t0;
}

void Region::choose_share_mode(std::int64_t n) {
  share_chunk_ = 0;
  share_mode_ = balance_cpu_ ? ShareMode::kSteal : ShareMode::kOwn;
  // The probe decides for cores alone, each its own device: next to accelerators the split
  // is what balances, and a team forks all its cores per chunk.
  int cores = 0;
  probed_pass_ = balance_cpu_ && !plan_.chunked && plan_.lo == 0 && plan_.hi == n;
  for (std::size_t w = 0; w < workers_.size() && probed_pass_; ++w) {
    if (!active_[w]) continue;
    const Device& d = *workers_[w].device;
    probed_pass_ = d.kind() == DeviceKind::kCpu && d.description().cores.size() == 1;
    ++cores;
  }
  probed_pass_ = probed_pass_ && cores >= 2;
  if (!probed_pass_) return;
  share_mode_ = share_probe_.mode();
  if (share_mode_ != ShareMode::kChunks) return;
  chunked_plan(n, plan_);
  share_chunk_ = std::max<std::int64_t>(1, n / (ShareProbe::kChunksPerCore * cores));
}

ChunkQueue::Result Region::take_chunk(int worker, const ChunkTiming& last, Range& out) {
  if (share_chunk_ > 0) return queue_.take(share_chunk_, out);  // a pass shared as chunks
  return scheduler_->take_chunk(worker, last, queue_, out);
}

void Region::install() {
  if (plan_.chunked) {
    queue_.reset(plan_.lo, plan_.hi);
    return;
  }
  std::int64_t at = plan_.lo;
  for (std::size_t w = 0; w < ranges_.size(); ++w) {
    const Range r{at, at + plan_.counts[w]};
    // Written only when it moved: workers read these lines, a store would take them away.
    if (ranges_[w].begin != r.begin || ranges_[w].end != r.end) ranges_[w] = r;
    at += plan_.counts[w];
  }
  if (balance_cpu_) install_shares();
}

void Region::install_shares() {
  // Every active CPU device takes part (a core, or a team whose bodies spread their pieces);
  // accelerators and the emulated ones keep their ranges: moving work onto them would move
  // data, and their measured times are what the split balances against the CPU share.
  int members = 0;
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    const bool cpu = active_[w] && workers_[w].device->kind() == DeviceKind::kCpu;
    share_member_[w] = cpu ? 1 : 0;
    members += cpu ? 1 : 0;
    const double tpi = estimators_[w].measured() ? estimators_[w].estimate() : 0.0;
    share_piece_[w] =
        tpi > 0.0
            ? static_cast<std::int64_t>(std::min(1e15, std::ceil(kMinSharePieceSeconds / tpi)))
            : 1;
    // A team spreads whatever it takes over its cores itself, at the cost of a fork and join
    // of all of them per piece: it takes its range whole (and what it steals: the rest of a
    // range), so a retired accelerator's core beside it does not cut it into a dozen pieces.
    if (cpu && workers_[w].device->description().cores.size() > 1)
      share_piece_[w] = std::max<std::int64_t>(share_piece_[w], ranges_[w].size());
  }
  // Without stealing, or with one member, every worker runs its own range as it is.
  if (members < 2 || share_mode_ != ShareMode::kSteal)
    std::fill(share_member_.begin(), share_member_.end(), 0);
  shares_.reset(ranges_, share_member_, share_piece_);
}

void Region::stop_dispatch() {
  canceled_.store(true, std::memory_order_relaxed);
  queue_.close();
  shares_.close();
}

void Region::start_sub_pass(int worker) {
  Worker& me = workers_[static_cast<std::size_t>(worker)];
  me.sub_iterations = me.sub_chunks = 0;
  me.sub_busy = 0.0;
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

int Region::next(int worker, std::int64_t n, std::int64_t* begin, std::int64_t* end) {
  // After a tsar_run the pool's threads may still be leaving that pass's barrier, writing
  // their worker slots (in_pass): a team must not read its slots before they have left.
  if (tls_region != this && pool_leaving_.load(std::memory_order_acquire)) {
    runtime_->pool().wait_idle();
    pool_leaving_.store(false, std::memory_order_release);
  }
  Worker& me = workers_[static_cast<std::size_t>(worker)];
  if (!me.in_pass) {
    join_pass(worker, n);
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
    *begin = me.current.begin;
    *end = me.current.end;
  }
  // A chunk handed out by loop() starts when the previous one ended: one clock read per chunk.
  if (!me.started) me.start = now_seconds();
  me.started = false;
  if (copying_ && !me.current.empty()) {
    stage_in(me, worker);
    if (begin != nullptr && end != nullptr) {  // the range may be gone with a failed device
      *begin = me.current.begin;
      *end = me.current.end;
    }
  }
  return status;
}

// ---------------------------------------------------------------------------------------
// The copy engine around a worker's ranges (devices with their own memory)

template <class F>
void Region::guard_memory(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    // The planner's copies failed: the pass runs nothing and reports the device's error.
    if (!device_failed_.exchange(true, std::memory_order_acq_rel)) device_failure_ = e.what();
    stop_dispatch();
  }
}

void Region::exchange_resident_rows() {
  guard_memory([&] {
    engine_.exchange(memory_,
                     plan_.chunked ? std::span<const Range>{} : std::span<const Range>(ranges_));
  });
}

std::int64_t Region::write_back(const void* host) {
  if (in_pass())
    throw Error(TSAR_ERR_STATE, "registered memory cannot be synchronised during a pass");
  for (Registration& reg : memory_.registrations())
    if (reg.host == host) return device_memory_ ? engine_.write_back(reg) : 0;
  return 0;
}

void Region::stage_in(Worker& me, int worker) {
  if (me.device->description().host_memory) return;
  try {
    engine_.stage_in(memory_, reductions_, worker, me.device, me.current);
  } catch (const DeviceOutOfMemory& e) {
    lose_device(me, worker, e.what());
  } catch (const std::exception& e) {
    fail_device(me, me.device->description().key + ": " + e.what());
  }
}

void Region::stage_out(Worker& me, int worker) {
  try {
    // Accelerators run one range per (sub-)pass unless the plan hands out chunks.
    engine_.stage_out(memory_, reductions_, worker, *me.device, me.current, !plan_.chunked);
  } catch (const std::exception& e) {
    fail_device(me, me.device->description().key + ": " + e.what());
  }
}

void Region::lose_device(Worker& me, int worker, const std::string& why) {
  const std::string key = me.device->description().key;
  const int core = me.device->description().control_core;
  engine_.abandon_device(memory_, reductions_, worker, *me.device);
  me.lost_device = true;
  if ((kinds_ & TSAR_DEVICE_CPU) == 0 || core < 0) {
    fail_device(me, why + " (the region allows no CPU device to take over its work)");
    return;
  }
  // Like back-off: the worker goes on as a CPU worker on the core that drove the device,
  // starting with the range it could not stage.
  std::fprintf(stderr,
               "tsar: region '%s': %s; %s is retired for this region and its work continues on "
               "core %d\n",
               name_.c_str(), why.c_str(), key.c_str(), core);
  me.device = make_cpu_core(runtime_->node(), core);
  ensure_bound(me);
  me.kind = static_cast<unsigned>(me.device->kind());
  me.id = me.device->description().id;
  me.launch = me.device->launch_context();
}

void Region::fail_device(Worker& me, const std::string& why) {
  if (!device_failed_.exchange(true, std::memory_order_acq_rel)) device_failure_ = why;
  me.error = TSAR_ERR_SYSTEM;
  me.current = {};
  set_last_error(me.error, why);
  stop_dispatch();
}

void Region::retire_lost(std::size_t w) {
  Worker& x = workers_[w];
  x.lost_device = false;
  x.retired = true;
  x.retired_tpi = estimators_[w].estimate();
  x.backoff_streak = 0;
  // Its estimate described the accelerator: start over from a CPU core's.
  estimators_[w].reset();
  if (const double prior = joining_core_prior(w); prior > 0.0) estimators_[w].set_prior(prior);
  if (x.device->kind() != DeviceKind::kCpu) {  // no CPU device could take over
    active_[w] = 0;
    x.active = false;
  }
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
  double t = clocked ? now_seconds() : 0.0;
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
  me.current = {};
  // Chunks, or the next piece of the CPU share (its own range's, else a stolen one).
  const bool shared = !plan_.chunked && shares_.member(worker);
  if ((plan_.chunked || shared) && me.active && me.error == TSAR_OK &&
      !canceled_.load(std::memory_order_relaxed)) {
    Range r;
    const auto taken = shared ? shares_.take(worker, r)
                              : take_chunk(worker, {ran, clocked ? t - me.start : 0.0}, r);
    if (taken == ChunkQueue::Result::kSuccess) {
      me.pending = r;
      me.has_pending = true;
      if (clocked) me.start = t;
      me.started = true;
      return 1;
    }
  }
  if (!clocked) {
    t = now_seconds();
    me.sub_busy += t - me.start;
  }
  if (copying_ && !me.device->description().host_memory) {
    try {
      engine_.collect_reductions(reductions_, worker, *me.device);
    } catch (const std::exception& e) {
      fail_device(me, me.device->description().key + ": " + e.what());
    }
  }
  me.arrival = t;
  barrier_.arrive_and_wait(worker, [this] { finish_sub_pass(); });
  if (decision_ == kContinue) {
    start_sub_pass(worker);
    return 1;
  }
  me.in_pass = false;
  *status = me.error != TSAR_OK ? me.error : outcome_;
  if (*status == TSAR_ERR_CANCELED)
    set_last_error(*status, "the pass of region '" + name_ + "' was canceled");
  else if (*status == TSAR_OK)
    clear_last_error();
  return 0;
}

void Region::finish_sub_pass() {
  const double t0 = now_seconds();
  double last = 0.0;
  for (const auto& w : workers_) last = std::max(last, w.arrival);
  ++sub_passes_;
  for (auto& w : workers_) {
    w.pass_idle += last - w.arrival;
    w.pass_iterations += w.sub_iterations;
    w.pass_chunks += w.sub_chunks;
    w.pass_busy += w.sub_busy;
  }
  if (!canceled_.load(std::memory_order_relaxed) && pass_error_ == TSAR_OK) {
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      Worker& x = workers_[w];
      if (x.lost_device) {  // the sample mixes the device and its successor: not learned
        retire_lost(w);
        continue;
      }
      if (!active_[w] || x.sub_iterations <= 0 || !(x.sub_busy > 0.0)) continue;
      // A sample not learned leaves the history alone: forgotten for a range that moved, it
      // would leave the device unmeasured, back at its prior, and the next split far off.
      if (copy_dominated(w)) continue;
      if (!plan_.chunked) forget_if_moved(x, estimators_[w], ranges_[w]);
      estimators_[w].add(x.sub_busy / static_cast<double>(x.sub_iterations));
    }
    if (!plan_.chunked) learn_straggle();
    if (scheduler_->next_sub_pass(current_times(), plan_)) {
      install();
      if (copying_) exchange_resident_rows();
      decision_ = kContinue;
      schedule_seconds_ += now_seconds() - t0;
      return;
    }
  }
  decision_ = kDone;
  for (std::size_t w = 0; w < workers_.size(); ++w)
    if (workers_[w].lost_device) retire_lost(w);  // canceled passes learn nothing but retire
  const bool canceled = canceled_.load(std::memory_order_relaxed);
  const bool learn = !canceled && pass_error_ == TSAR_OK;
  if (learn) reductions_.merge();
  outcome_ = device_failed_.load(std::memory_order_relaxed) ? TSAR_ERR_SYSTEM
             : canceled                                     ? TSAR_ERR_CANCELED
                                                            : pass_error_;
  if (outcome_ == TSAR_ERR_SYSTEM) pass_error_message_ = device_failure_;
  schedule_seconds_ += now_seconds() - t0;
  if (pass_error_ == TSAR_OK) record_pass(last);  // a refused pass ran nothing
  if (learn && probed_pass_) share_probe_.record(last - pass_start_, n_);
  // After recording: the statistics show the devices as they ran this pass.
  if (learn && scheduler_->adapts() && backoff_passes_ > 0) back_off();
  state_.store(kIdle, std::memory_order_release);
}

void Region::learn_straggle() {
  // Cores that steal from each other finish together: a slowed core's rest is taken by the
  // others, and the pooled split already counts its lower speed. Planning them for their
  // slowest as well gave the accelerator rows it then waited on, and moved them back as the
  // allowance decayed -- a shifting split where moving rows costs copies.
  if (balance_cpu_) return;
  busy_scratch_.clear();
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    const Worker& x = workers_[w];
    if (active_[w] && x.device->kind() == DeviceKind::kCpu && x.sub_iterations > 0)
      busy_scratch_.push_back(x.sub_busy);
  }
  if (busy_scratch_.size() >= 2)
    cpu_straggle_ = straggle_after_pass(cpu_straggle_, busy_scratch_, stats_.recorded());
}

void Region::forget_if_moved(Worker& w, TimeEstimator& estimator, Range range) const {
  // A time per iteration describes the iterations it was measured on. When a device's range
  // (relative to its sub-pass) overlaps its previous one by less than half, the history is
  // about other iterations -- work that varies with i, as in a triangular loop -- and only
  // the new sample predicts the next split. Stable splits keep the history, and with it the
  // protection against spikes.
  const double size = static_cast<double>(std::max<std::int64_t>(1, plan_.hi - plan_.lo));
  const double lo = static_cast<double>(range.begin - plan_.lo) / size;
  const double hi = static_cast<double>(range.end - plan_.lo) / size;
  const double overlap = std::min(hi, w.sampled_hi) - std::max(lo, w.sampled_lo);
  const double united = std::max(hi, w.sampled_hi) - std::min(lo, w.sampled_lo);
  if (estimator.measured() && united > 0.0 && overlap < 0.5 * united) estimator.reset();
  w.sampled_lo = lo;
  w.sampled_hi = hi;
}

double Region::joining_core_prior(std::size_t joining) {
  // A core joining the CPU side (its estimator just reset) is planned at the slowest measured
  // CPU device's time per iteration per core -- a team's time times its cores: taking a
  // team's prior as a core's would hand the core as much as the whole team. Priors are
  // relative (effective_times scales them by the measured/prior ratio): divided by it here.
  double slowest = 0.0, prior = 0.0;
  for (std::size_t v = 0; v < workers_.size(); ++v) {
    if (v == joining || !active_[v] || workers_[v].device->kind() != DeviceKind::kCpu) continue;
    const auto cores = static_cast<double>(
        std::max<std::size_t>(1, workers_[v].device->description().cores.size()));
    if (estimators_[v].measured()) slowest = std::max(slowest, estimators_[v].estimate() * cores);
    if (prior == 0.0) prior = estimators_[v].prior() * cores;
  }
  if (slowest <= 0.0) return prior;
  return slowest / prior_scale(estimators_, active_, ratio_scratch_);
}

Region::CpuSide Region::cpu_side(std::int64_t n) const {
  CpuSide cpu;
  double rate = 0.0;  // iterations per second of the measured CPU devices together
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    if (!active_[w] || workers_[w].device->kind() != DeviceKind::kCpu) continue;
    cpu.any = true;
    if (estimators_[w].measured()) rate += 1.0 / estimators_[w].estimate();
  }
  cpu.seconds = rate > 0.0 ? static_cast<double>(n) / rate : 0.0;
  return cpu;
}

void Region::back_off() {
  // Thesis 5.4.1: an accelerator slower per iteration than the slowest CPU core (chunk
  // passes: fewer iterations than the core that ran fewest) for K passes in a row. A team
  // (place, team:N-M) counts as its cores: per core it is num_cores times slower.
  // Also retired: an accelerator whose part alone took longer than the CPU devices would
  // have needed for the whole pass (by a margin: one noisy CPU sample skews a split), K
  // passes in a row, while it was the pass's straggler --
  // a fixed cost per pass (a large input copied every pass) that a smaller share does not
  // shrink. The per-iteration test alone meets it only once the share is small, several
  // slow passes later; a useful accelerator finishes its share before the CPUs alone would.
  const CpuSide cpu = cpu_side(n_);
  if (!cpu.any) return;
  double slowest_tpi = 0.0;
  double fewest = std::numeric_limits<double>::max();
  double cpu_busy = 0.0;  // the longest busy time of a CPU device in the pass
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    if (!active_[w] || workers_[w].device->kind() != DeviceKind::kCpu) continue;
    const auto cores = static_cast<double>(
        std::max<std::size_t>(1, workers_[w].device->description().cores.size()));
    if (estimators_[w].measured())
      slowest_tpi = std::max(slowest_tpi, estimators_[w].estimate() * cores);
    fewest = std::min(fewest, static_cast<double>(workers_[w].pass_iterations) / cores);
    cpu_busy = std::max(cpu_busy, workers_[w].pass_busy);
  }
  const double cpu_alone = cpu.seconds;
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    Worker& x = workers_[w];
    if (!active_[w] || x.device->kind() == DeviceKind::kCpu) continue;
    // A pass mostly spent copying in rows the split just gave it is not learned
    // (copy_dominated), and for the same reason not judged: a Jacobi GPU 12x faster than the
    // cores copies its whole range in its first pass (529 MB, 35 ms against a 6 ms CPU pass
    // on 1x H200), and one more slow pass then retired it.
    if (skipped_[w]) continue;
    const bool slower_per_iteration = pass_chunked_
                                          ? static_cast<double>(x.pass_iterations) < fewest
                                          : estimators_[w].measured() && slowest_tpi > 0.0 &&
                                                estimators_[w].estimate() > slowest_tpi;
    // A split kept for times to settle gave shares no measured time chose: how long a share
    // took is judged once they did (per iteration, the accelerator is judged all along).
    const bool slower_than_cpus_alone = !settling_ && cpu_alone > 0.0 && x.pass_iterations > 0 &&
                                        x.pass_busy > kBackoffMargin * cpu_alone &&
                                        x.pass_busy >= cpu_busy;
    const bool slower = slower_per_iteration || slower_than_cpus_alone;
    x.backoff_streak = slower ? x.backoff_streak + 1 : 0;
    if (x.backoff_streak >= backoff_passes_) retire(w);
  }
}

void Region::retire(std::size_t w) {
  Worker& x = workers_[w];
  x.retired = true;
  x.retired_tpi = estimators_[w].measured() ? estimators_[w].estimate() : 0.0;
  x.backoff_streak = 0;
  const int core = x.device->description().control_core;
  if ((kinds_ & TSAR_DEVICE_CPU) != 0 && core >= 0) {
    // Its worker becomes a CPU worker on the core that drove the accelerator.
    x.device = make_cpu_core(runtime_->node(), core);
    estimators_[w].reset();
    if (const double prior = joining_core_prior(w); prior > 0.0) estimators_[w].set_prior(prior);
  } else {
    active_[w] = 0;
    x.active = false;
  }
}

void Region::screen_accelerators(std::int64_t n) {
  // Back-off learns from passes an accelerator ran; an accelerator that must copy a large
  // input whole every pass (a FULL, non-persistent table) pays for that copy with any share,
  // so even its probe pass can cost many CPU passes. What it copies is known before it runs
  // (registered buffers, its measured link): while the CPU devices' pass time is unknown it
  // sits out when those copies alone exceed kBlindProbeSeconds; once that time is known, an
  // accelerator whose copies alone take as long as the CPU devices' whole pass cannot help
  // and is retired unrun, as back-off would have after its probes. Measured accelerators
  // are back-off's.
  std::fill(sitting_out_.begin(), sitting_out_.end(), 0);
  if (memory_.size() == 0) return;
  const double fixed_bytes = copy_costs(memory_.registrations()).fixed_bytes;
  if (!(fixed_bytes > 0.0)) return;
  const CpuSide cpu = cpu_side(n);
  if (!cpu.any) return;
  const double cpu_alone = cpu.seconds;
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    Device& d = *workers_[w].device;
    if (!active_[w] || d.description().host_memory || estimators_[w].measured()) continue;
    const double copies = fixed_bytes * d.link_seconds_per_byte();
    if (cpu_alone > 0.0 && copies >= cpu_alone)
      retire(w);
    else if (cpu_alone <= 0.0 && copies > kBlindProbeSeconds)
      sitting_out_[w] = 1;
  }
}

void Region::probe_unmeasured() {
  // A device the split gives nothing is never measured, and its prior -- scaled with the
  // measured devices' error (effective_times) -- goes on giving it nothing: on an H200 node
  // the peak-based priors gave OpenMP-offloaded 2MM's GPU all 768 rows and the 15 cores none,
  // pass after pass, with the GPU five times slower than the cores together. Each active,
  // unmeasured device the plan leaves empty runs one iteration, taken from the largest count.
  if (plan_.chunked || !scheduler_->adapts()) return;
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    if (!active_[w] || sitting_out_[w] || estimators_[w].measured() || plan_.counts[w] > 0)
      continue;
    const auto largest = std::max_element(plan_.counts.begin(), plan_.counts.end());
    if (*largest < 2) return;
    --*largest;
    ++plan_.counts[w];
  }
}

void Region::hold_split(std::int64_t n) {
  // A whole-pass ratio split of devices with their own memory keeps its boundaries unless
  // moving them pays (schedule/split_hysteresis.hpp): a resident stencil's rows stay where
  // they are instead of following every pass's noise.
  std::fill(migration_seconds_.begin(), migration_seconds_.end(), 0.0);
  settling_ = false;
  if (!copying_ || plan_.chunked || plan_.lo != 0 || plan_.hi != n) {
    last_split_n_ = -1;
    return;
  }
  const bool known = last_split_n_ == n && last_split_.size() == plan_.counts.size();
  if (!known) last_split_.assign(plan_.counts.size(), 0);  // the devices hold none of it yet
  if (!std::equal(last_split_.begin(), last_split_.end(), plan_.counts.begin())) {
    const double per_iteration = copy_costs(memory_.registrations()).moved_bytes_per_iteration;
    bool costly = false;
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      Device& d = *workers_[w].device;
      const bool cpu = d.kind() == DeviceKind::kCpu;
      move_seconds_[w] = active_[w] && !d.description().host_memory && per_iteration > 0.0
                             ? per_iteration * d.link_seconds_per_byte()
                             : 0.0;
      costly = costly || move_seconds_[w] > 0.0;
      pooled_[w] = balance_cpu_ && cpu && active_[w] ? 1 : 0;
      settled_[w] = estimators_[w].samples() >= kSettledSamples ? 1 : 0;
    }
    if (costly) {
      const SplitCosts costs{times_, move_seconds_, pooled_, settled_,
                             payback_passes(stats_.recorded() - split_since_)};
      if (known) {
        settling_ = !times_settled(last_split_, costs);
        keep_split_unless_it_pays(last_split_, plan_.counts, costs, plan_.scratch);
      }
      if (move_seconds(last_split_, plan_.counts, costs) > 0.0) split_since_ = stats_.recorded();
      entering_iterations(last_split_, plan_.counts, entering_);
      for (std::size_t w = 0; w < workers_.size(); ++w)
        migration_seconds_[w] = static_cast<double>(entering_[w]) * move_seconds_[w];
    }
  }
  last_split_.assign(plan_.counts.begin(), plan_.counts.end());
  last_split_n_ = n;
}

void Region::hold_cpu_ranges(std::int64_t n) {
  // Regions of CPU devices alone (next to accelerators, hold_split decides where rows go):
  // the cores keep their rows while their split stays near balance (region/cpu_split_hold.hpp).
  if (!balance_cpu_ || plan_.chunked || plan_.lo != 0 || plan_.hi != n) {
    cpu_split_n_ = -1;
    return;
  }
  if (cpu_split_n_ == n) {
    for (std::size_t w = 0; w < workers_.size(); ++w)
      cpu_pooled_[w] = active_[w] && workers_[w].device->kind() == DeviceKind::kCpu ? 1 : 0;
    // The region's first pass is start-up (first touch, cold caches, the other loops' rows
    // in other cores' caches): its spread is not the cores' speeds, and a split learned from
    // it was then held. The second pass keeps the first's split whatever it measured; the
    // estimators' lower median lets the warm samples decide from the third.
    const double band =
        stats_.recorded() == 1 ? std::numeric_limits<double>::infinity() : kCpuHoldBand;
    hold_cpu_split(cpu_split_, plan_.counts, times_, cpu_pooled_, band);
  }
  cpu_split_.assign(plan_.counts.begin(), plan_.counts.end());
  cpu_split_n_ = n;
}

bool Region::copy_dominated(std::size_t w) {
  // A sample mostly made of copying in the rows a changed split just gave the device (its
  // first range's, cold) describes the link, not the device's steady pass. Learned, it makes
  // the device look slow, its rows move away, and its next sample is again mostly copies:
  // the split oscillates and moves tens of MB per pass. Never two samples in a row, so a
  // device whose every split differs still learns.
  const bool skip = !skipped_[w] && migration_seconds_[w] > kMigrationShare * workers_[w].sub_busy;
  skipped_[w] = skip ? 1 : 0;
  return skip;
}

void Region::record_pass(double last_arrival) {
  const std::int64_t p = stats_.recorded();
  tsar_pass_stats& ps = stats_.pass_slot(p);
  ps.pass = p;
  ps.n = n_;
  ps.sub_passes = sub_passes_;
  ps.canceled = outcome_ != TSAR_OK ? 1 : 0;  // canceled, or stopped by a failed device
  ps.seconds = last_arrival - pass_start_;
  ps.schedule_seconds = schedule_seconds_;
  ps.cpu_sharing = static_cast<int>(share_mode_);
  auto ds = stats_.device_slots(p);
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    const Worker& x = workers_[w];
    const Traffic moved = device_memory_ ? engine_.traffic(static_cast<int>(w)) : Traffic{};
    ds[w] = {x.pass_iterations,
             x.pass_chunks,
             x.pass_busy,
             x.pass_idle,
             estimators_[w].measured() ? estimators_[w].estimate() : 0.0,
             static_cast<unsigned>(x.device->kind()),
             x.retired ? 1 : 0,
             moved.to_device,
             moved.from_device};
  }
  stats_.commit(p);
  if (trace_ != nullptr) {
    const TraceContext ctx{name_, spec_.to_string(), device_keys()};
    trace_->write(trace_->csv() ? pass_to_csv(ctx, ps, ds) : pass_to_json(ctx, ps, ds));
  }
}

void Region::cancel() {
  if (!in_pass()) throw Error(TSAR_ERR_STATE, "tsar_cancel outside a pass");
  stop_dispatch();
}

// ---------------------------------------------------------------------------------------
// The worker pool path

void Region::run_worker(void* context, int worker) {
  auto* self = static_cast<Region*>(context);
  // A body may run a region of another device set (a partition's place runs its own): the
  // caller's region is restored afterwards.
  const Region* const outer_region = tls_region;
  const int outer_worker = tls_worker;
  tls_region = self;
  tls_worker = worker;
  std::int64_t b = 0, e = 0;
  int status = TSAR_OK;
  do {
    self->next(worker, self->n_, &b, &e);
    if (b < e) {
      const Worker& me = self->workers_[static_cast<std::size_t>(worker)];
      const tsar_chunk chunk{b, e, worker, me.kind, me.id, me.launch.omp_device, me.launch.stream};
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

int Region::run(std::int64_t n, tsar_body_fn body, void* arg) {
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
    begin_pass(n);
  } catch (...) {
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
  runtime_->pool().run_ending_in_barrier(slots_, &Region::run_worker, this);
  pool_leaving_.store(true, std::memory_order_release);
  pool_driven_ = false;
  if (outcome_ == TSAR_ERR_CANCELED)
    throw Error(TSAR_ERR_CANCELED, "the pass of region '" + name_ + "' was canceled");
  if (outcome_ != TSAR_OK) throw Error(static_cast<tsar_status>(outcome_), pass_error_message_);
  return TSAR_OK;
}

// ---------------------------------------------------------------------------------------
// Statistics

void Region::pass_stats(std::int64_t pass, tsar_pass_stats* out, tsar_device_stats* devices,
                        int capacity) const {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "statistics are read outside passes");
  if (capacity < 0) throw Error(TSAR_ERR_INVALID, "capacity is negative");
  if (capacity > 0 && devices == nullptr)
    throw Error(TSAR_ERR_NULL, "devices is NULL but capacity > 0");
  const std::int64_t p = pass == -1 ? stats_.recorded() - 1 : pass;
  if (!stats_.kept(p))
    throw Error(TSAR_ERR_INVALID, "pass " + std::to_string(pass) + " is not kept (passes run: " +
                                      std::to_string(stats_.recorded()) + ", the last " +
                                      std::to_string(Statistics::kKeep) + " are kept)");
  if (out != nullptr) *out = stats_.pass(p);
  const auto ds = stats_.devices(p);
  for (int w = 0; w < std::min<int>(capacity, static_cast<int>(ds.size())); ++w)
    devices[w] = ds[static_cast<std::size_t>(w)];
}

void Region::write_trace(const std::string& path) const {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "traces are written outside passes");
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw Error(TSAR_ERR_IO, "cannot open " + path + ": " + std::strerror(errno));
  const bool csv = is_csv_path(path);
  if (csv) out << csv_header();
  const TraceContext ctx{name_, spec_.to_string(), device_keys()};
  const std::int64_t first = std::max<std::int64_t>(0, stats_.recorded() - Statistics::kKeep);
  for (std::int64_t p = first; p < stats_.recorded(); ++p)
    out << (csv ? pass_to_csv(ctx, stats_.pass(p), stats_.devices(p))
                : pass_to_json(ctx, stats_.pass(p), stats_.devices(p)));
  if (!out) throw Error(TSAR_ERR_IO, "writing " + path + " failed");
}

}  // namespace tsar::core
