// SPDX-License-Identifier: BSD-3-Clause
// A region's construction, configuration and statistics, and passes on TSAR's worker pool
// (region.hpp). The pass protocol is region_pass.cpp's, the copy engine's part of it
// region_staging.cpp's.
#include "region/region.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>

#include "api/error.hpp"
#include "cache/time_cache.hpp"
#include "devices/device_list.hpp"
#include "devices/host_device.hpp"
#include "region/trace_sink.hpp"

namespace tsar::core {
namespace {

/// An on/off switch from the environment: nullopt when unset or empty.
std::optional<bool> switch_from_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || value[0] == '\0') return std::nullopt;
  if (std::strcmp(value, "0") != 0 && std::strcmp(value, "1") != 0)
    throw Error(TSAR_ERR_INVALID, std::string(name) + "='" + value + "': expected 0 or 1");
  return value[0] == '1';
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
  const auto& devices = runtime_->devices();
  for (const std::size_t s : devices_of_kinds(devices, kinds_)) {
    device_memory_ = device_memory_ || !devices[s]->description().host_memory;
    Worker w;
    w.device = devices[s];
    w.slot = static_cast<int>(s);
    workers_.push_back(std::move(w));
  }
  const auto n = static_cast<std::size_t>(workers());
  if (initial_tpi == nullptr && num_times != 0)
    throw Error(TSAR_ERR_INVALID,
                "num_times is " + std::to_string(num_times) + " but time_per_iteration is NULL");
  if (initial_tpi != nullptr && num_times != workers())
    throw Error(TSAR_ERR_INVALID, "time_per_iteration has " + std::to_string(num_times) +
                                      " entries; the region has " + std::to_string(workers()) +
                                      " devices (tsar_count_devices tells how many)");

  for (const auto& w : workers_) original_keys_.push_back(w.device->description().key);
  std::vector<double> given(n, 0.0);
  if (const char* cache = std::getenv("TSAR_CACHE"); cache != nullptr && cache[0] != '\0') {
    if (auto cached = load_cached_times(cache, name_, original_keys_)) given = *cached;
  }
  for (std::size_t w = 0; w < n && initial_tpi != nullptr; ++w) {
    const double t = initial_tpi[w];
    if (!(t >= 0.0) || !std::isfinite(t))
      throw Error(TSAR_ERR_INVALID, "time_per_iteration[" + std::to_string(w) +
                                        "] must be a finite number >= 0 (0 = unknown)");
    if (t > 0.0) given[w] = t;
  }
  std::vector<std::shared_ptr<Device>> planned;
  for (const auto& w : workers_) planned.push_back(w.device);
  planner_ = std::make_unique<PassPlanner>(spec_, std::move(planned), std::move(given),
                                           [this](int w) { return retire_worker(w); });
  // Stealing across the accelerator boundary and participation trials can be switched off, to
  // measure what each brings side by side with the same program.
  if (const auto steal = switch_from_env("TSAR_ACCEL_STEAL"))
    planner_->set_accelerator_stealing(*steal);
  if (const auto trials = switch_from_env("TSAR_TRIALS"))
    planner_->set_participation_trials(*trials);
  samples_.resize(n);
  ranges_.resize(n);
  busy_.reserve(n);
  for (const auto& w : workers_) slots_.push_back(w.slot);
  // As if every worker took part in a pass before the first (Worker::taking_part's default):
  // the first pass clears whichever sit it out (choose_participants).
  for (std::size_t w = 0; w < n; ++w) participants_.push_back(static_cast<int>(w));
  cpu_participants_.reserve(n);
  woken_.reserve(n);
  shares_.resize(workers());
  reductions_ = Reductions(workers());
  engine_ = CopyEngine(workers());
  pass_devices_.resize(n);
  stats_ = Statistics(workers());
  barrier_.set_count(workers());
  plan_.counts.assign(n, 0);
  plan_.counts.reserve(n);
}

Region::~Region() {
  // Pool threads leave a pass's job after its barrier: none may be inside one of this region's.
  runtime_->pool().wait_idle();
  // The end of the region: resident rows reach the host buffers (a data environment's stay
  // until it writes them back).
  if (device_memory_)
    for (Registration& reg : memory_.registrations()) {
      if (reg.data->shared) continue;
      try {
        CopyEngine::write_back(*reg.data);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "tsar: region '%s': writing back buffer %p: %s\n", name_.c_str(),
                     reg.host(), e.what());
      }
    }
  if (trace_ != nullptr) trace_->flush();
  const char* cache = std::getenv("TSAR_CACHE");
  if (cache == nullptr || cache[0] == '\0' || passes() == 0) return;
  const std::vector<double> times = planner_->learned_times();
  if (std::none_of(times.begin(), times.end(), [](double t) { return t > 0.0; })) return;
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
  info.retired = planner_->retired(worker) ? 1 : 0;
  info.peak_gflops = d.peak_gflops;
  std::snprintf(info.key, sizeof info.key, "%s", d.key.c_str());
  const auto& cores = runtime_->node().cores();
  if (!d.cpus.empty())
    info.control_cpu = d.cpus.front();
  else if (d.control_core >= 0 && static_cast<std::size_t>(d.control_core) < cores.size() &&
           !cores[static_cast<std::size_t>(d.control_core)].pus.empty())
    info.control_cpu = cores[static_cast<std::size_t>(d.control_core)].pus.front();
  else
    info.control_cpu = -1;
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
  planner_->set_given_time(worker, seconds);
}

void Region::set_backoff(int passes) {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "tsar_set_backoff during a pass");
  if (passes < 0) throw Error(TSAR_ERR_INVALID, "back-off passes must be >= 0 (0 disables)");
  planner_->set_backoff(passes);
}

void Region::set_clock(std::shared_ptr<PassClock> clock) {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "a region's clock cannot change during a pass");
  clock_ = std::move(clock);
}

void Region::set_accelerator_stealing(bool on) {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "stealing cannot be switched during a pass");
  planner_->set_accelerator_stealing(on);
}

void Region::set_participation_trials(bool on) {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "trials cannot be switched during a pass");
  planner_->set_participation_trials(on);
}

MemoryRegistry& Region::memory() {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "memory registrations cannot change during a pass");
  return memory_;
}

Reductions& Region::reductions() {
  if (in_pass()) throw Error(TSAR_ERR_STATE, "reductions cannot change during a pass");
  return reductions_;
}

std::shared_ptr<Device> Region::retire_worker(int worker) {
  Worker& x = workers_[static_cast<std::size_t>(worker)];
  const int core = x.device->description().control_core;
  if ((kinds_ & TSAR_DEVICE_CPU) == 0 || core < 0) {
    x.active = false;
    return nullptr;
  }
  // Its worker becomes a CPU worker on the core that drove the accelerator.
  x.device = make_cpu_core(runtime_->node(), core, x.device->description().cpus);
  device_changes_.fetch_add(1, std::memory_order_relaxed);
  return x.device;
}

std::vector<std::string> Region::device_keys() const {
  std::vector<std::string> keys;
  for (const auto& w : workers_) keys.push_back(w.device->description().key);
  return keys;
}

// ---------------------------------------------------------------------------------------
// Statistics

void Region::record_pass(double last_arrival) {
  const std::int64_t p = stats_.recorded();
  tsar_pass_stats& ps = stats_.pass_slot(p);
  ps.pass = p;
  ps.n = n_;
  ps.sub_passes = sub_passes_;
  ps.canceled = outcome_ != TSAR_OK ? 1 : 0;  // canceled, or stopped by a failed device
  ps.seconds = last_arrival - pass_start_;
  ps.schedule_seconds = schedule_seconds_;
  ps.cpu_sharing = static_cast<int>(planner_->share_mode());
  auto ds = stats_.device_slots(p);
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    const Worker& x = workers_[w];
    const Traffic moved = engine_.traffic(static_cast<int>(w));
    ds[w] = {x.pass_iterations,
             x.pass_chunks,
             x.pass_busy,
             x.pass_idle,
             planner_->estimate(static_cast<int>(w)),
             static_cast<unsigned>(x.device->description().kind),
             planner_->retired(static_cast<int>(w)) ? 1 : 0,
             moved.to_device,
             moved.from_device,
             moved.peer,
             x.pass_stolen,
             x.pass_late ? 1 : 0};
  }
  stats_.commit(p);
  if (trace_ != nullptr) trace_pass(ps, ds);
}

void Region::trace_trial() {
  if (trace_ == nullptr || trace_->csv()) return;
  if (const auto* decision = planner_->trial_decision())
    trace_->write(trial_decision_json(name_, stats_.recorded() - 1, *decision));
}

void Region::trace_pass(const tsar_pass_stats& pass, std::span<const tsar_device_stats> devices) {
  // The names are made again only when a worker's device changed (retired, lost).
  bool same = trace_devices_.size() == workers_.size();
  for (std::size_t w = 0; same && w < workers_.size(); ++w)
    same = trace_devices_[w] == workers_[w].device;
  if (!same) {
    if (!trace_devices_.empty()) trace_->flush();  // queued passes name the old devices
    trace_context_ = TraceContext(name_, spec_.to_string(), device_keys());
    trace_devices_.clear();
    for (const auto& w : workers_) trace_devices_.push_back(w.device);
  }
  trace_->record(trace_context_, pass, devices);
}

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
  const TraceContext ctx(name_, spec_.to_string(), device_keys());
  const std::int64_t first = std::max<std::int64_t>(0, stats_.recorded() - Statistics::kKeep);
  std::string text;
  for (std::int64_t p = first; p < stats_.recorded(); ++p) {
    if (csv)
      append_pass_csv(text, ctx, stats_.pass(p), stats_.devices(p));
    else
      append_pass_json(text, ctx, stats_.pass(p), stats_.devices(p));
  }
  out << text;
  if (!out) throw Error(TSAR_ERR_IO, "writing " + path + " failed");
}

}  // namespace tsar::core
