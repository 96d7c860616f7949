// SPDX-License-Identifier: BSD-3-Clause
// symmerd's core (see daemon.hpp).
#include "daemon.hpp"

#include <dirent.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

#include "symmer/segment/naming.hpp"
#include "symmer/segment/process_identity.hpp"
#include "symmer/topology/core_load.hpp"
#include "symmer/topology/device_interrupts.hpp"

namespace symmer::daemon {
namespace {

using analysis::Clock;
using analysis::TimePoint;

// While moves are in flight, acknowledgements are looked at this often.
constexpr auto kTickInterval = std::chrono::milliseconds(5);
// The claim outlives this many missed periods (and at least kMinLease) before the embedded
// analyzer takes over again.
constexpr int kLeasePeriods = 3;
constexpr auto kMinLease = std::chrono::seconds(2);
// Recent decision events kept for `decisions` requests.
constexpr std::size_t kKeepDecisions = 1000;

double realtime_s() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

nlohmann::json ok(nlohmann::json body = nlohmann::json::object()) {
  body["ok"] = true;
  return body;
}

nlohmann::json failure(const std::string& message) { return {{"ok", false}, {"error", message}}; }

nlohmann::json denied(const PeerCredentials& peer, const std::string& what) {
  return {{"ok", false},
          {"denied", true},
          {"error", "permission denied: uid " + std::to_string(peer.uid) + " may not " + what}};
}

// Whether a process exists (signal 0 reaches it, or it exists but belongs to someone else).
bool process_exists(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

std::string hex_id(std::uint64_t id) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(id));
  return buf;
}

}  // namespace

Daemon::Daemon(boost::asio::io_context& io, DaemonConfig config, std::string config_path,
               topology::NodeModel node)
    : io_(io),
      config_(std::move(config)),
      config_path_(std::move(config_path)),
      node_(std::move(node)),
      pid_(::getpid()),
      uid_(::geteuid()),
      started_realtime_s_(realtime_s()),
      started_(Clock::now()),
      period_timer_(io),
      tick_timer_(io),
      paused_(config_.start_paused) {}

Daemon::~Daemon() { stop(); }

std::string Daemon::segment_dir() const {
  return config_.segment_dir.empty() ? segment::segment_directory() : config_.segment_dir;
}

std::uint64_t Daemon::lease_ns() const {
  const auto lease =
      std::max<std::chrono::nanoseconds>(config_.analyzer.period * kLeasePeriods, kMinLease);
  return segment::monotonic_ns() + static_cast<std::uint64_t>(lease.count());
}

void Daemon::start() {
  spdlog::info("symmerd: pid {} uid {}, segments in {}, period {} ms{}", pid_, uid_, segment_dir(),
               config_.analyzer.period.count(), paused_ ? ", paused" : "");
  watch_directory();
  run_period();
  schedule_period();
}

void Daemon::stop() {
  if (stopped_) return;
  stopped_ = true;
  period_timer_.cancel();
  tick_timer_.cancel();
  if (inotify_) inotify_->close();
  for (auto& [key, job] : jobs_)
    if (job->claimed()) job->release(pid_);
  if (!jobs_.empty())
    spdlog::info("symmerd: released {} job(s) to their embedded analyzers", jobs_.size());
  jobs_.clear();
}

void Daemon::schedule_period() {
  if (stopped_) return;
  period_timer_.expires_after(config_.analyzer.period);
  period_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || stopped_) return;
    run_period();
    schedule_period();
  });
}

void Daemon::schedule_tick() {
  if (tick_scheduled_ || stopped_) return;
  tick_scheduled_ = true;
  tick_timer_.expires_after(kTickInterval);
  tick_timer_.async_wait([this](const boost::system::error_code& ec) {
    tick_scheduled_ = false;
    if (ec || stopped_) return;
    bool busy = false;
    const auto now = Clock::now();
    for (auto& [key, job] : jobs_) busy = job->tick(now) || busy;
    collect_events();
    if (busy) schedule_tick();
  });
}

void Daemon::watch_directory() {
  // inotify makes discovery prompt; the scan every period finds jobs without it too.
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) {
    spdlog::warn("symmerd: inotify unavailable ({}); jobs are found by the scan every period",
                 std::strerror(errno));
    return;
  }
  if (::inotify_add_watch(fd, segment_dir().c_str(), IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) <
      0) {
    spdlog::warn("symmerd: cannot watch {} ({}); jobs are found by the scan every period",
                 segment_dir(), std::strerror(errno));
    ::close(fd);
    return;
  }
  inotify_.emplace(io_, fd);
  struct Reader {
    Daemon* self;
    void operator()(const boost::system::error_code& ec, std::size_t) const {
      if (ec || self->stopped_) return;
      self->scan(Clock::now());
      self->inotify_->async_read_some(boost::asio::buffer(self->inotify_buffer_), *this);
    }
  };
  inotify_->async_read_some(boost::asio::buffer(inotify_buffer_), Reader{this});
}

void Daemon::scan(TimePoint now) {
  const std::string dir = segment_dir();
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
    ::closedir(d);
  }
  std::set<std::string> present;
  for (const auto& name : names) {
    const auto parsed = segment::parse_segment_file_name(name);
    if (!parsed) continue;
    // An ordinary user's daemon serves that user's jobs only.
    if (uid_ != 0 && parsed->uid != uid_) continue;
    const std::string path = dir + "/" + name;
    present.insert(path);
    if (jobs_.count(name)) continue;
    std::string error;
    if (adopt(path, now, &error)) {
      problems_.erase(path);
    } else if (!error.empty()) {
      const auto it = problems_.find(path);
      if (it == problems_.end() || it->second != error) {
        // A segment still being built has no magic yet: only later failures are news.
        if (it != problems_.end()) spdlog::warn("symmerd: not adopting {}: {}", path, error);
        problems_[path] = error;
      }
    }
  }
  for (auto it = problems_.begin(); it != problems_.end();)
    it = present.count(it->first) ? std::next(it) : problems_.erase(it);
}

bool Daemon::adopt(const std::string& path, TimePoint now, std::string* error) {
  auto snap = segment::read_segment(path);
  if (!snap) {
    if (snap.error().code != Errc::kNotFound) *error = snap.error().message;
    return false;
  }
  if (segment::job_liveness(*snap) == segment::Liveness::kDead) {
    if (::unlink(path.c_str()) == 0)
      spdlog::info("symmerd: removed the segment of ended job {} ({})", hex_id(snap->header.job_id),
                   path);
    return false;
  }
  const std::string key = path.substr(path.rfind('/') + 1);
  auto job =
      ManagedJob::open(path, config_.decision_log_dir, node_, settings_for(key), next_order_, now);
  if (!job) {
    if (job.error().code != Errc::kNotFound) *error = job.error().message;
    return false;
  }
  ++next_order_;
  ManagedJob& j = **job;
  const auto holder = j.holder();
  const bool other = holder.pid != 0 && holder.pid != static_cast<std::uint64_t>(pid_);
  const bool other_alive = other && holder.held(segment::monotonic_ns()) &&
                           process_exists(static_cast<pid_t>(holder.pid));
  if (j.claim(pid_, lease_ns(), other && !other_alive))
    spdlog::info(
        "symmerd: adopted job {} ({}, {} rank(s), uid {}){}", hex_id(j.job_id()),
        j.snapshot().header.app_name, j.snapshot().header.local_ranks, j.owner_uid(),
        other ? ", taking over from symmerd pid " + std::to_string(holder.pid) + " (gone)" : "");
  else
    spdlog::warn("symmerd: job {} is analysed by symmerd pid {}; watching only", hex_id(j.job_id()),
                 holder.pid);
  jobs_[key] = std::move(*job);
  return true;
}

void Daemon::drop(const std::string& key, const std::string& why, TimePoint now) {
  const auto it = jobs_.find(key);
  if (it == jobs_.end()) return;
  spdlog::info("symmerd: job {} {}", hex_id(it->second->job_id()), why);
  it->second->tick(now);
  jobs_.erase(it);
  overrides_.erase(key);
}

void Daemon::renew_claims(TimePoint) {
  const auto until = lease_ns();
  for (auto& [key, job] : jobs_) {
    const auto holder = job->holder();
    const bool other = holder.pid != 0 && holder.pid != static_cast<std::uint64_t>(pid_);
    const bool holder_dead = other && !process_exists(static_cast<pid_t>(holder.pid));
    job->claim(pid_, until, holder_dead);
  }
}

void Daemon::run_period() {
  const auto now = Clock::now();
  ++periods_;
  scan(now);
  renew_claims(now);
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const std::string key = it->first;
    ManagedJob& job = *it->second;
    ++it;
    switch (job.sample(proc_, now)) {
      case ManagedJob::SampleOutcome::kOk:
        break;
      case ManagedJob::SampleOutcome::kGone:
        drop(key, "ended (its segment was removed)", now);
        break;
      case ManagedJob::SampleOutcome::kDead: {
        const std::string path = job.path();
        drop(key, "ended without removing its segment; removed it", now);
        ::unlink(path.c_str());
        break;
      }
      case ManagedJob::SampleOutcome::kUnreadable:
        if (problems_[job.path()] != job.sample_error()) {
          problems_[job.path()] = job.sample_error();
          spdlog::warn("symmerd: cannot sample {}: {}", job.path(), job.sample_error());
        }
        break;
    }
  }
  // Reservations end with their processes.
  for (auto it = reservations_.begin(); it != reservations_.end();) {
    if (segment::process_start_ticks(it->first) != it->second.start_ticks) {
      spdlog::info("symmerd: pid {} ended; its cores are free for ranks again", it->first);
      it = reservations_.erase(it);
    } else {
      ++it;
    }
  }
  sample_node(now);
  const std::set<int> promised = place(now);
  // Jobs plan one at a time across the node: a job plans onto free cores only while no other
  // job has moves in flight (their targets are not bound yet), and never onto a core a
  // coscheduling move of this period is taking.
  bool busy = false;
  const auto ranks = placed_ranks(now);
  for (auto& [key, job] : jobs_) {
    if (!job->claimed()) continue;
    bool others_busy = false;
    for (const auto& [other_key, other] : jobs_) others_busy |= other_key != key && other->busy();
    std::vector<int> allowed;
    for (int c : allowed_cores(node_state_, ranks, key, job->owner_uid())) {
      const bool own = std::any_of(job->ranks().begin(), job->ranks().end(),
                                   [c](const RankView& r) { return r.bound_core == c; });
      if (own || (!others_busy && !promised.count(c))) allowed.push_back(c);
    }
    job->analyze(allowed, now);
    busy = job->busy() || busy;
  }
  collect_events();
  if (busy) schedule_tick();
}

void Daemon::sample_node(TimePoint now) {
  node_state_.usable = config_.cores;
  if (node_state_.usable.empty())
    for (const auto& c : node_.cores()) node_state_.usable.push_back(c.index);
  node_state_.reservations.clear();
  for (const auto& [pid, r] : reservations_) node_state_.reservations.push_back(r.reservation);

  auto now_proc = proc_.read();
  std::map<int, double> cpu_now;
  std::vector<double> job_seconds(node_.cores().size(), 0.0);
  const double elapsed = std::chrono::duration<double>(now - node_sampled_).count();
  cpu_share_.clear();
  for (const auto& [key, job] : jobs_)
    for (const auto& r : job->ranks()) {
      const auto cpu = analysis::process_cpu_seconds(r.pid);
      if (!cpu) continue;
      cpu_now[r.pid] = *cpu;
      const auto before = cpu_previous_.find(r.pid);
      if (before == cpu_previous_.end() || *cpu < before->second) continue;
      if (r.bound_core >= 0)
        job_seconds[static_cast<std::size_t>(r.bound_core)] += *cpu - before->second;
      if (elapsed > 0) cpu_share_[r.pid] = std::min(1.0, (*cpu - before->second) / elapsed);
    }
  node_sampled_ = now;
  if (now_proc && proc_previous_) {
    // What a rank placed on each core would get, with every managed rank's own time taken
    // out: interrupts and steal are lost to it; busy processes symmerd does not place share
    // the rest with it (the scheduler splits a core fairly: a core fully busy with one
    // foreign process gives a newcomer half).
    if (auto loads = topology::core_loads(node_, *proc_previous_, *now_proc, job_seconds)) {
      node_state_.capability.clear();
      for (const auto& l : *loads) {
        const double left = 1.0 - l.irq - l.softirq - l.steal;
        node_state_.capability.push_back(std::clamp(left - l.foreign / 2, 0.0, 1.0));
      }
    }
    std::set<int> irq;
    for (const auto& d : topology::device_interrupts(node_.nics(), proc_previous_->interrupts,
                                                     now_proc->interrupts))
      for (int cpu : d.cpus())
        if (const int core = node_.core_of_pu(cpu); core >= 0) irq.insert(core);
    if (irq.empty())  // no NIC interrupt in the window: where they went since boot
      for (const auto& d : topology::device_interrupts(node_.nics(), now_proc->interrupts))
        for (int cpu : d.cpus())
          if (const int core = node_.core_of_pu(cpu); core >= 0) irq.insert(core);
    node_state_.nic_irq_cores = irq;
  }
  if (now_proc) proc_previous_ = std::move(*now_proc);
  cpu_previous_ = std::move(cpu_now);
}

std::vector<PlacedRank> Daemon::placed_ranks(TimePoint now) const {
  std::vector<PlacedRank> out;
  for (const auto& [key, job] : jobs_) {
    const bool job_movable = job->claimed() && !job->settings().paused && !job->busy();
    const auto& window = job->window();
    for (const auto& r : job->ranks()) {
      PlacedRank p;
      p.job = key;
      p.owner_uid = job->owner_uid();
      p.local_rank = r.local_rank;
      p.pid = r.pid;
      p.core = r.bound_core;
      p.order = job->order();
      p.movable = job_movable && !job->held(r.local_rank, now);
      if (window && r.window) {
        p.window_s = window->duration_s();
        p.compute_s = static_cast<double>(r.window->compute_ns) * 1e-9;
        p.idle_s = static_cast<double>(r.window->idle_ns) * 1e-9;
        std::uint64_t off = 0;
        for (const auto& [node, bytes] : r.window->bytes_to_node) off += bytes;
        p.offnode_bytes_per_s = static_cast<double>(off) / std::max(1e-9, p.window_s);
      }
      if (const auto share = cpu_share_.find(r.pid); share != cpu_share_.end())
        p.cpu_share = share->second;
      out.push_back(p);
    }
  }
  return out;
}

std::set<int> Daemon::place(TimePoint now) {
  coschedule_notes_.clear();
  std::set<int> promised;
  if (!config_.coschedule || paused_) return promised;
  for (const auto& [key, job] : jobs_)
    if (job->busy()) {  // a job's moves in flight may be heading for any free core
      coschedule_notes_.push_back("waiting for the moves of " + key + " to finish");
      return promised;
    }
  const CoscheduleOptions options{config_.analyzer.planner.min_gain, config_.nic_bytes_per_s,
                                  config_.nic_wait_saving};
  const auto result = coschedule(node_, node_state_, placed_ranks(now), options);
  coschedule_notes_ = result.notes;
  std::map<std::string, std::pair<std::vector<analysis::Move>, nlohmann::json>> by_job;
  for (const auto& m : result.moves) {
    auto& [moves, evidence] = by_job[m.job];
    moves.push_back({m.local_rank, m.from_core, m.to_core, false});
    nlohmann::json e = m.evidence;
    e["reason"] = m.reason;
    e["gain"] = m.gain;
    evidence.push_back(std::move(e));
  }
  for (auto& [key, entry] : by_job)
    if (const auto it = jobs_.find(key); it != jobs_.end())
      if (it->second->coschedule(entry.first, entry.second, now))
        for (const auto& m : entry.first) promised.insert(m.to_core);
  return promised;
}

void Daemon::collect_events() {
  const double at = realtime_s();
  for (auto& [key, job] : jobs_) {
    for (auto& e : job->take_new_events()) {
      e["job"] = key;
      e["at"] = at;
      const std::string type = e.value("event", "");
      if (type == "plan" || type == "advice" || type == "actuation" || type == "evaluation" ||
          type == "fault" || (type == "decision" && e.value("verdict", "") == "accepted"))
        spdlog::info("symmerd decision: {}", e.dump());
      else
        spdlog::debug("symmerd decision: {}", e.dump());
      decisions_.push_back(std::move(e));
      if (decisions_.size() > kKeepDecisions) decisions_.pop_front();
    }
  }
}

JobSettings Daemon::settings_for(const std::string& key) const {
  JobSettings s;
  nlohmann::json policy = policy_;
  const auto it = overrides_.find(key);
  if (it != overrides_.end()) policy.update(it->second.policy);
  auto load = apply_policy(config_.analyzer, policy);
  s.analyzer = load.errors.empty() ? load.config : config_.analyzer;  // validated when set
  s.analyzer.decision_log.clear();
  s.paused = paused_ || (it != overrides_.end() && it->second.paused);
  s.analyzer.advice_only =
      s.analyzer.advice_only || advice_only_ || (it != overrides_.end() && it->second.advice_only);
  return s;
}

void Daemon::apply_settings(TimePoint now) {
  for (auto& [key, job] : jobs_) job->set_settings(settings_for(key), now);
}

void Daemon::reload() {
  if (config_path_.empty()) {
    spdlog::info("symmerd: SIGHUP: running on built-in defaults, nothing to re-read");
    return;
  }
  auto load = load_daemon_config(config_path_, node_);
  if (!load.errors.empty()) {
    for (const auto& e : load.errors) spdlog::error("symmerd: {}", e);
    spdlog::error("symmerd: reload refused: {} error(s) in {}; the running configuration stays",
                  load.errors.size(), config_path_);
    return;
  }
  if (load.config.socket != config_.socket)
    spdlog::warn("symmerd: daemon.socket changed; it takes effect at the next start");
  if (load.config.segment_dir != config_.segment_dir)
    spdlog::warn("symmerd: daemon.segment_dir changed; it takes effect at the next start");
  load.config.socket = config_.socket;
  load.config.segment_dir = config_.segment_dir;
  config_ = std::move(load.config);
  spdlog::set_level(static_cast<spdlog::level::level_enum>(static_cast<int>(config_.log_level)));
  apply_settings(Clock::now());
  spdlog::info("symmerd: reloaded {}", config_path_);
}

// ---- requests ---------------------------------------------------------------------------

nlohmann::json Daemon::handle(const nlohmann::json& request, const PeerCredentials& peer) {
  if (!request.is_object() || !request.contains("request") || !request["request"].is_string())
    return failure("expected a JSON object with a \"request\" string");
  const std::string type = request["request"];
  try {
    if (type == "status") return status();
    if (type == "jobs") return jobs();
    if (type == "ranks") return ranks(request);
    if (type == "cores") return cores();
    if (type == "decisions") return decisions(request);
    if (type == "pause") return set_flag(request, peer, "paused", true);
    if (type == "resume") return set_flag(request, peer, "paused", false);
    if (type == "advice") {
      if (!request.contains("on") || !request["on"].is_boolean())
        return failure("advice: expected \"on\": true or false");
      return set_flag(request, peer, "advice_only", request["on"].get<bool>());
    }
    if (type == "policy") return policy(request, peer);
    if (type == "reserve") return reserve(request, peer);
    if (type == "release") return release(request, peer);
    if (type == "register") return register_job(request, peer);
    if (type == "reload") {
      if (!may_change_daemon(peer, uid_)) return denied(peer, "reload the configuration");
      reload();
      return ok({{"config", config_path_}});
    }
  } catch (const std::exception& e) {
    return failure(type + ": " + e.what());
  }
  return failure("unknown request \"" + type +
                 "\" (known: status, jobs, ranks, cores, decisions, pause, resume, advice, "
                 "policy, reserve, release, register, reload)");
}

Expected<ManagedJob*> Daemon::find_job(const nlohmann::json& request) const {
  if (!request["job"].is_string()) return Error(Errc::kInvalidArgument, "\"job\" must be a string");
  const std::string spec = request["job"];
  if (spec.empty()) return Error(Errc::kInvalidArgument, "empty job");
  std::vector<ManagedJob*> found;
  for (const auto& [key, job] : jobs_) {
    const std::string id = hex_id(job->job_id());
    if (key == spec || id == spec) return job.get();
    if (key.rfind(spec, 0) == 0 || id.rfind(spec, 0) == 0) found.push_back(job.get());
  }
  if (found.size() == 1) return found.front();
  if (found.empty()) return Error(Errc::kNotFound, "no job " + spec + " on this node");
  return Error(Errc::kInvalidArgument, "job " + spec + " is ambiguous");
}

nlohmann::json Daemon::status() const {
  int managed = 0;
  for (const auto& [key, job] : jobs_) managed += job->claimed() ? 1 : 0;
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& [path, why] : problems_) problems.push_back({{"segment", path}, {"error", why}});
  return ok({{"pid", pid_},
             {"uid", uid_},
             {"mode", uid_ == 0 ? "root: every user's jobs" : "user: this user's jobs"},
             {"config", config_path_.empty() ? "built-in defaults" : config_path_},
             {"started_at", started_realtime_s_},
             {"uptime_s", std::chrono::duration<double>(Clock::now() - started_).count()},
             {"segment_dir", segment_dir()},
             {"period_ms", config_.analyzer.period.count()},
             {"periods", periods_},
             {"paused", paused_},
             {"advice_only", advice_only_ || config_.analyzer.advice_only},
             {"coschedule", config_.coschedule},
             {"jobs", jobs_.size()},
             {"managed", managed},
             {"problems", problems},
             {"notes", coschedule_notes_},
             {"reservations", reservations_.size()},
             {"policy", policy_},
             {"daemon", to_json(config_)},
             {"analysis", analysis::to_json(config_.analyzer)},
             {"node", {{"cores", node_.cores().size()}, {"source", node_.source()}}}});
}

nlohmann::json Daemon::jobs() const {
  nlohmann::json list = nlohmann::json::array();
  const auto now = Clock::now();
  for (const auto& [key, job] : jobs_) list.push_back(job->to_json(now));
  return ok({{"jobs", list}});
}

nlohmann::json Daemon::ranks(const nlohmann::json& request) const {
  nlohmann::json list = nlohmann::json::array();
  if (request.contains("job")) {
    auto job = find_job(request);
    if (!job) return failure(job.error().message);
    list = (*job)->ranks_json();
  } else {
    for (const auto& [key, job] : jobs_)
      for (auto& r : job->ranks_json()) list.push_back(std::move(r));
  }
  return ok({{"ranks", list}});
}

nlohmann::json Daemon::cores() const {
  const auto near = cores_near_nic(node_, node_state_.nic_irq_cores);
  const auto ranks = placed_ranks(Clock::now());
  nlohmann::json list = nlohmann::json::array();
  for (const auto& core : node_.cores()) {
    const int c = core.index;
    nlohmann::json on = nlohmann::json::array();
    for (const auto& r : ranks)
      if (r.core == c) on.push_back({{"job", r.job}, {"rank", r.local_rank}, {"pid", r.pid}});
    nlohmann::json reserved = nlohmann::json::array();
    for (const auto& [pid, r] : reservations_)
      if (std::find(r.reservation.cores.begin(), r.reservation.cores.end(), c) !=
          r.reservation.cores.end())
        reserved.push_back({{"pid", pid},
                            {"uid", r.reservation.uid},
                            {"all_jobs", r.reservation.all_jobs},
                            {"reason", r.reservation.reason}});
    const bool usable = std::find(node_state_.usable.begin(), node_state_.usable.end(), c) !=
                        node_state_.usable.end();
    nlohmann::json entry = {{"core", c},
                            {"os_index", core.os_index},
                            {"cpus", core.pus},
                            {"numa_node", core.numa_node},
                            {"usable", usable},
                            {"nic_irq", node_state_.nic_irq_cores.count(c) != 0},
                            {"near_nic", near.count(c) != 0},
                            {"reserved", reserved},
                            {"ranks", on}};
    if (static_cast<std::size_t>(c) < node_state_.capability.size())
      entry["capability"] = node_state_.capability[static_cast<std::size_t>(c)];
    list.push_back(std::move(entry));
  }
  int floating = 0;
  for (const auto& r : ranks) floating += r.core < 0 ? 1 : 0;
  return ok({{"cores", list}, {"unbound_ranks", floating}});
}

nlohmann::json Daemon::decisions(const nlohmann::json& request) const {
  std::string job;
  if (request.contains("job")) {
    auto found = find_job(request);
    if (!found) return failure(found.error().message);
    job = (*found)->key();
  }
  std::size_t limit = 50;
  if (request.contains("limit")) {
    if (!request["limit"].is_number_unsigned()) return failure("\"limit\" must be a count");
    limit = request["limit"].get<std::size_t>();
  }
  std::vector<nlohmann::json> out;
  for (auto it = decisions_.rbegin(); it != decisions_.rend() && out.size() < limit; ++it)
    if (job.empty() || (*it)["job"] == job) out.push_back(*it);
  std::reverse(out.begin(), out.end());
  return ok({{"decisions", out}});
}

nlohmann::json Daemon::set_flag(const nlohmann::json& request, const PeerCredentials& peer,
                                const std::string& flag, bool on) {
  const std::string what = flag == "paused"
                               ? (on ? "pause" : "resume")
                               : (on ? "switch advice-only on for" : "switch advice-only off for");
  if (!request.contains("job")) {
    if (!may_change_daemon(peer, uid_)) return denied(peer, what + " every job");
    (flag == "paused" ? paused_ : advice_only_) = on;
    spdlog::info("symmerd: uid {} set {} = {} for every job", peer.uid, flag, on);
    apply_settings(Clock::now());
    return ok({{flag, on}, {"scope", "daemon"}});
  }
  auto job = find_job(request);
  if (!job) return failure(job.error().message);
  if (!may_change_job(peer, (*job)->owner_uid(), uid_))
    return denied(peer, what + " job " + (*job)->key() + " (owner uid " +
                            std::to_string((*job)->owner_uid()) + ")");
  auto& o = overrides_[(*job)->key()];
  (flag == "paused" ? o.paused : o.advice_only) = on;
  spdlog::info("symmerd: uid {} set {} = {} for job {}", peer.uid, flag, on, (*job)->key());
  (*job)->set_settings(settings_for((*job)->key()), Clock::now());
  return ok({{flag, on}, {"scope", "job"}, {"job", (*job)->key()}});
}

nlohmann::json Daemon::policy(const nlohmann::json& request, const PeerCredentials& peer) {
  const nlohmann::json set = request.value("set", nlohmann::json::object());
  const bool reset = request.value("reset", false);
  if (!request.contains("job")) {
    if (!may_change_daemon(peer, uid_)) return denied(peer, "change the daemon's policy");
    nlohmann::json next = reset ? nlohmann::json::object() : policy_;
    next.update(set);
    auto load = apply_policy(config_.analyzer, next);
    if (!load.errors.empty())
      return {{"ok", false}, {"error", load.errors.front()}, {"errors", load.errors}};
    policy_ = next;
    apply_settings(Clock::now());
    spdlog::info("symmerd: uid {} changed the policy of every job: {}", peer.uid, next.dump());
    return ok(
        {{"scope", "daemon"}, {"policy", policy_}, {"analysis", analysis::to_json(load.config)}});
  }
  auto job = find_job(request);
  if (!job) return failure(job.error().message);
  if (!may_change_job(peer, (*job)->owner_uid(), uid_))
    return denied(peer, "change the policy of job " + (*job)->key() + " (owner uid " +
                            std::to_string((*job)->owner_uid()) + ")");
  auto& o = overrides_[(*job)->key()];
  nlohmann::json next = reset ? nlohmann::json::object() : o.policy;
  next.update(set);
  nlohmann::json merged = policy_;
  merged.update(next);
  auto load = apply_policy(config_.analyzer, merged);
  if (!load.errors.empty())
    return {{"ok", false}, {"error", load.errors.front()}, {"errors", load.errors}};
  o.policy = next;
  (*job)->set_settings(settings_for((*job)->key()), Clock::now());
  spdlog::info("symmerd: uid {} changed the policy of job {}: {}", peer.uid, (*job)->key(),
               next.dump());
  return ok({{"scope", "job"},
             {"job", (*job)->key()},
             {"policy", next},
             {"analysis", analysis::to_json((*job)->settings().analyzer)}});
}

nlohmann::json Daemon::reserve(const nlohmann::json& request, const PeerCredentials& peer) {
  const pid_t pid = request.value("pid", static_cast<int>(peer.pid));
  const auto ticks = segment::process_start_ticks(pid);
  if (pid <= 0 || ticks == 0) return failure("reserve: no process " + std::to_string(pid));
  std::uint64_t real = 0, effective = 0;
  {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("Uid:", 0) == 0) std::istringstream(line.substr(4)) >> real >> effective;
  }
  if (!may_change_daemon(peer, uid_) && real != peer.uid)
    return denied(peer, "reserve cores for pid " + std::to_string(pid) + " (uid " +
                            std::to_string(real) + ")");
  if (!request.contains("cpus") || !request["cpus"].is_array() || request["cpus"].empty())
    return failure("reserve: expected \"cpus\": [Linux CPU numbers]");
  std::set<int> cores;
  for (const auto& c : request["cpus"]) {
    if (!c.is_number_integer()) return failure("reserve: cpus must be integers");
    const int core = node_.core_of_pu(c.get<int>());
    if (core < 0) return failure("reserve: CPU " + c.dump() + " is not on this node");
    cores.insert(core);
  }
  Reservation r;
  r.reservation.cores.assign(cores.begin(), cores.end());
  r.reservation.pid = pid;
  r.reservation.uid = static_cast<uid_t>(real);
  r.reservation.all_jobs = may_change_daemon(peer, uid_);
  r.reservation.reason = request.value("reason", std::string("gpu-driver"));
  r.start_ticks = ticks;
  reservations_[pid] = r;
  spdlog::info("symmerd: pid {} reserved cores {} ({}) for {}", pid,
               nlohmann::json(r.reservation.cores).dump(), r.reservation.reason,
               r.reservation.all_jobs ? "every job" : "the jobs of uid " + std::to_string(real));
  return ok({{"pid", pid},
             {"cores", r.reservation.cores},
             {"all_jobs", r.reservation.all_jobs},
             {"reason", r.reservation.reason}});
}

nlohmann::json Daemon::release(const nlohmann::json& request, const PeerCredentials& peer) {
  const pid_t pid = request.value("pid", static_cast<int>(peer.pid));
  const auto it = reservations_.find(pid);
  if (it == reservations_.end())
    return failure("release: pid " + std::to_string(pid) + " reserved nothing");
  if (!may_change_daemon(peer, uid_) && it->second.reservation.uid != peer.uid)
    return denied(peer, "release the cores of pid " + std::to_string(pid));
  reservations_.erase(it);
  return ok({{"pid", pid}});
}

nlohmann::json Daemon::register_job(const nlohmann::json& request, const PeerCredentials& peer) {
  if (!request.contains("segment") || !request["segment"].is_string())
    return failure("register: expected \"segment\": the job's segment file name or path");
  std::string name = request["segment"];
  if (const auto slash = name.rfind('/'); slash != std::string::npos) {
    if (name.substr(0, slash) != segment_dir())
      return failure("register: " + name + " is not in " + segment_dir());
    name = name.substr(slash + 1);
  }
  const auto parsed = segment::parse_segment_file_name(name);
  if (!parsed) return failure("register: " + name + " is not a segment name");
  if (!may_change_job(peer, static_cast<uid_t>(parsed->uid), uid_))
    return denied(peer, "register a job of uid " + std::to_string(parsed->uid));
  if (uid_ != 0 && parsed->uid != uid_)
    return failure("register: this daemon serves uid " + std::to_string(uid_) + " only");
  if (!jobs_.count(name)) {
    std::string error;
    if (!adopt(segment_dir() + "/" + name, Clock::now(), &error))
      return failure("register: " + (error.empty() ? "no live job there" : error));
  }
  return ok({{"job", jobs_.at(name)->to_json(Clock::now())}});
}

}  // namespace symmer::daemon
