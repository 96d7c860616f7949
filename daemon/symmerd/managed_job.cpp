// SPDX-License-Identifier: BSD-3-Clause
// One adopted job (see managed_job.hpp).
#include "managed_job.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "symmer/analysis/config.hpp"
#include "symmer/analysis/segment_analysis.hpp"
#include "symmer/segment/job_process.hpp"
#include "symmer/segment/naming.hpp"
#include "symmer/segment/report.hpp"
#include "symmer/topology/cpu_list.hpp"

namespace symmer::daemon {
namespace {

using analysis::TimePoint;

double seconds(std::chrono::nanoseconds d) { return std::chrono::duration<double>(d).count(); }

std::string file_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The job's decision log in the directory the daemon checked, created there without following
// a symlink (the name comes from the user's segment); -1 when there is none.
int open_log(const DirectoryFd& dir, const std::string& key) {
  if (!dir) return -1;
  const std::string name = key + ".jsonl";
  const int fd =
      ::openat(dir.get(), name.c_str(),
               O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0640);
  if (fd < 0) {
    spdlog::warn("symmerd: no decision log {}/{}: {}", dir.path(), name, std::strerror(errno));
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
    spdlog::warn("symmerd: no decision log {}/{}: not a regular file of its own", dir.path(), name);
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

std::vector<int> cpus_allowed(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Cpus_allowed_list:", 0) != 0) continue;
    std::string list = line.substr(std::string("Cpus_allowed_list:").size());
    list.erase(
        std::remove_if(list.begin(), list.end(), [](char c) { return c == ' ' || c == '\t'; }),
        list.end());
    return topology::parse_cpu_list(list).value_or(std::vector<int>{});
  }
  return {};
}

Expected<std::unique_ptr<ManagedJob>> ManagedJob::open(
    const std::string& path, const DirectoryFd& log_dir, const topology::NodeModel& node,
    JobSettings settings, int order, TimePoint now, const segment::ReadOptions& read) {
  auto claim = segment::JobClaim::open(path, segment::ClaimKind::kDaemon);
  if (!claim) return std::move(claim).error();
  auto commands = segment::SegmentControl::open(path, read);
  if (!commands) return std::move(commands).error();
  auto first = analysis::read_segment_sample(path, topology::ProcReader("/proc"), read);
  if (!first) return std::move(first).error();
  const auto& st = claim->file().status();
  if (commands->file().status().st_ino != st.st_ino || first->segment.file_inode != st.st_ino)
    return Error(Errc::kNotFound, path + " was replaced while it was being opened");
  return std::unique_ptr<ManagedJob>(new ManagedJob(path, log_dir, node, std::move(*claim),
                                                    std::move(*commands), std::move(*first),
                                                    std::move(settings), order, now));
}

ManagedJob::ManagedJob(std::string path, const DirectoryFd& log_dir,
                       const topology::NodeModel& node, segment::JobClaim claim,
                       segment::SegmentControl commands, analysis::SegmentSample first,
                       JobSettings settings, int order, TimePoint now)
    : path_(std::move(path)),
      key_(file_name(path_)),
      node_(node),
      claim_(std::move(claim)),
      log_(open_log(log_dir, key_), log_dir ? log_dir.path() + "/" + key_ + ".jsonl" : ""),
      ranks_control_(std::move(commands), node, &claim_,
                     [this](const std::string& why) { say(why); }),
      settings_(std::move(settings)),
      order_(order),
      adopted_realtime_s_(wall_clock_s()),
      start_(now),
      previous_(std::move(first)) {
  ranks_control_.update(previous_.segment);
  coschedule_actuator_ =
      std::make_unique<analysis::Actuator>(ranks_control_, settings_.analyzer.actuator);
  update_ranks();
  build_analyzer(now);
}

ManagedJob::~ManagedJob() { finish(analysis::Clock::now()); }

void ManagedJob::finish(TimePoint now) {
  if (analyzer_ && !finished_) analyzer_->finish(now);
  finished_ = true;
}

void ManagedJob::build_analyzer(TimePoint now) {
  if (analyzer_) analyzer_->finish(now);
  analysis::RankControl* actuate = settings_.analyzer.advice_only ? nullptr : &ranks_control_;
  // Page migration acts on the rank's process from outside: only on the job's own processes.
  analyzer_ = std::make_unique<analysis::Analyzer>(settings_.analyzer, node_, actuate, log_, now,
                                                   analysis::guarded_hooks(ranks_control_));
  analyzer_busy_ = false;
}

void ManagedJob::set_settings(JobSettings settings, TimePoint now) {
  const bool analysis_changed =
      analysis::to_json(settings.analyzer) != analysis::to_json(settings_.analyzer);
  const bool pause_changed = settings.paused != settings_.paused;
  settings_ = std::move(settings);
  if (pause_changed) log({{"event", "control"}, {"paused", settings_.paused}}, now);
  if (analysis_changed) rebuild_pending_ = true;
  if (rebuild_pending_ && !analyzer_busy_) {
    build_analyzer(now);
    rebuild_pending_ = false;
  } else if (rebuild_pending_) {
    spdlog::info("symmerd: job {}: new settings apply once its moves finish", key_);
  }
}

void ManagedJob::log(nlohmann::json event, TimePoint now) {
  event["t_s"] = seconds(now - start_);
  event["source"] = "symmerd";
  log_.write(event);
}

void ManagedJob::say(const std::string& problem) {
  if (!said_.first(problem)) return;
  spdlog::warn("symmerd: job {}: {}", key_, problem);
  log({{"event", "fault"}, {"message", problem}}, analysis::Clock::now());
}

segment::ClaimOutcome ManagedJob::claim(std::uint64_t lease_ns, segment::Claim* found) {
  const bool was = claimed_;
  const auto outcome = claim_.renew(lease_ns, found);
  if (outcome != segment::ClaimOutcome::kBusy) claimed_ = outcome == segment::ClaimOutcome::kHeld;
  if (claimed_ && !was)
    log({{"event", "control"}, {"claimed", true}, {"daemon_pid", ::getpid()}},
        analysis::Clock::now());
  if (was && !claimed_) log({{"event", "control"}, {"claimed", false}}, analysis::Clock::now());
  return outcome;
}

void ManagedJob::release() {
  claim_.release();
  claimed_ = false;
}

ManagedJob::SampleOutcome ManagedJob::sample(const topology::ProcReader& proc, TimePoint now,
                                             const segment::ReadOptions& read) {
  auto next = analysis::read_segment_sample(path_, proc, read);
  if (!next) {
    if (next.error().code == Errc::kNotFound) return SampleOutcome::kGone;
    sample_error_ = next.error().message;
    return next.error().code == Errc::kUnsupported ? SampleOutcome::kSkipped
                                                   : SampleOutcome::kUnreadable;
  }
  sample_error_.clear();
  // Another file put in its place is another job (or none).
  if (next->segment.file_inode != claim_.file().status().st_ino ||
      next->segment.file_device != claim_.file().status().st_dev)
    return SampleOutcome::kGone;
  if (segment::job_liveness(next->segment) == segment::Liveness::kDead) return SampleOutcome::kDead;
  ranks_control_.update(next->segment);
  std::vector<std::string> notes;
  auto window =
      analysis::window_between(previous_, *next, node_, &notes, settings_.analyzer.domain);
  previous_ = std::move(*next);
  for (const auto& n : notes) spdlog::debug("symmerd: job {}: {}", key_, n);
  if (window)
    window_ = std::move(*window);
  else
    window_.reset();
  update_ranks();
  (void)now;
  return SampleOutcome::kOk;
}

void ManagedJob::update_ranks() {
  ranks_.clear();
  const auto& snap = previous_.segment;
  for (std::size_t i = 0; i < snap.slots.size(); ++i) {
    const auto& slot = snap.slots[i];
    if (slot.state() != segment::SlotState::kActive) continue;
    // A slot may name any pid: only the job's own processes are its ranks (placed, counted).
    if (!verified(static_cast<int>(slot.identity.pid), slot.identity.start_ticks)) continue;
    RankView v;
    v.local_rank = static_cast<int>(i);
    v.global_rank = static_cast<int>(slot.identity.global_rank);
    v.pid = static_cast<int>(slot.identity.pid);
    v.cpu = static_cast<int>(slot.identity.cpu);
    v.cpus_allowed = cpus_allowed(v.pid);
    if (!v.cpus_allowed.empty()) {
      const int core = node_.core_of_pu(v.cpus_allowed.front());
      const bool one_core =
          core >= 0 && std::all_of(v.cpus_allowed.begin(), v.cpus_allowed.end(),
                                   [&](int c) { return node_.core_of_pu(c) == core; });
      if (one_core) v.bound_core = core;
    }
    if (window_)
      if (const auto* w = window_->find_local(v.local_rank)) v.window = *w;
    ranks_.push_back(std::move(v));
  }
}

bool ManagedJob::verified(int pid, std::uint64_t start_ticks) {
  const auto key = std::make_pair(pid, start_ticks);
  if (const auto it = verified_.find(key); it != verified_.end()) return it->second;
  const auto& st = claim_.file().status();
  const auto ok = segment::check_job_process(
      {pid, start_ticks, previous_.segment.file_uid, st.st_dev, st.st_ino, path_});
  if (!ok && ok.error().code != Errc::kIo && !said_foreign_pid_) {
    say("its segment names processes that are not the job's; they are left out (" +
        ok.error().message + ")");
    said_foreign_pid_ = true;
  }
  // Slots that keep naming new pids must not grow this without bound.
  if (verified_.size() > 4 * previous_.segment.slots.size() + 64) verified_.clear();
  if (ok || ok.error().code != Errc::kIo) verified_[key] = static_cast<bool>(ok);  // else later
  return static_cast<bool>(ok);
}

void ManagedJob::analyze(const std::vector<int>& allowed_cores, TimePoint now) {
  if (!window_ || settings_.paused || coschedule_running_) return;
  if (evaluating_) {
    // The coscheduler's own before/after check (no rollback: a separated pile stays apart).
    if (++evaluating_->windows_seen > settings_.analyzer.planner.evaluation_windows) {
      const double after = analysis::progress_rate(*window_);
      const double before = evaluating_->progress_before;
      log({{"event", "evaluation"},
           {"plan", evaluating_->plan},
           {"progress_before", before},
           {"progress_after", after},
           {"observed_gain", after > 0 ? 1.0 - before / after : 0.0},
           {"harmful", false}},
          now);
      evaluating_.reset();
    }
  }
  analyzer_->set_allowed_cores(allowed_cores);
  analyzer_->on_window(*window_, now);
  analyzer_busy_ = analyzer_->tick(now);
}

bool ManagedJob::tick(TimePoint now) {
  analyzer_busy_ = analyzer_->tick(now);
  if (rebuild_pending_ && !analyzer_busy_) {  // settings changed while moves were in flight
    build_analyzer(now);
    rebuild_pending_ = false;
  }
  if (coschedule_running_) {
    if (auto result = coschedule_actuator_->poll(now)) {
      nlohmann::json event = result->to_json();
      event["event"] = "actuation";
      event["metric"] = "coschedule";
      log(event, now);
      for (const auto& f : result->faults) spdlog::warn("symmerd: job {}: {}", key_, f);
      for (const auto& m : result->done) moved_at_[m.local_rank] = now;
      if (result->completed) {
        coschedule_moves_ += static_cast<int>(coschedule_running_->moves.size());
        spdlog::info("symmerd: job {}: moved {}", key_,
                     analysis::to_string(coschedule_running_->moves));
        evaluating_ = Evaluation{coschedule_running_->id, coschedule_running_->progress_before, 0};
      }
      for (const auto& m : coschedule_running_->moves) moved_at_[m.local_rank] = now;
      coschedule_running_.reset();
    }
  }
  return busy();
}

bool ManagedJob::held(int local_rank, TimePoint now) const {
  const auto it = moved_at_.find(local_rank);
  return it != moved_at_.end() && now - it->second < settings_.analyzer.planner.hold_off;
}

bool ManagedJob::coschedule(const std::vector<analysis::Move>& moves,
                            const nlohmann::json& evidence, TimePoint now) {
  if (moves.empty() || settings_.paused || busy() || !claimed_) return false;
  analysis::Plan plan;
  plan.id = next_coschedule_plan_++;
  plan.moves = moves;
  plan.metrics = {"coschedule"};
  plan.progress_before = window_ ? analysis::progress_rate(*window_) : 0.0;
  double gain = 0;
  for (const auto& e : evidence) gain = std::max(gain, e.value("gain", 0.0));
  plan.predicted_gain = gain;
  const bool advice = settings_.analyzer.advice_only;
  log({{"event", "decision"},
       {"metric", "coschedule"},
       {"moves", analysis::to_json(moves)},
       {"verdict", "accepted"},
       {"gain", gain},
       {"evidence", evidence}},
      now);
  nlohmann::json event = {{"event", advice ? "advice" : "plan"},
                          {"plan", plan.id},
                          {"moves", analysis::to_json(moves)},
                          {"metric", "coschedule"},
                          {"metrics", plan.metrics},
                          {"predicted_gain", gain},
                          {"rollback", false}};
  if (advice) {
    spdlog::info("symmerd advice: job {}: {} ({})", key_, analysis::to_string(moves),
                 evidence.dump());
    log(event, now);
    for (const auto& m : moves) moved_at_[m.local_rank] = now;  // the hold-off spaces advice
    ++coschedule_advice_;
    return true;
  }
  std::map<int, int> placement;
  std::vector<int> used;
  for (const auto& r : ranks_)
    if (r.bound_core >= 0) {
      placement[r.local_rank] = r.bound_core;
      used.push_back(r.bound_core);
    }
  std::map<int, std::vector<int>> free;  // one-core places: the coscheduler moves bound ranks
  for (const auto& m : moves)
    if (std::find(used.begin(), used.end(), m.to_core) == used.end()) free[m.to_core] = {m.to_core};
  if (!coschedule_actuator_->start(plan, placement, free, now)) {
    const std::string message = "coschedule plan " + std::to_string(plan.id) +
                                " not started: " + coschedule_actuator_->refusal();
    spdlog::warn("symmerd: job {}: {}", key_, message);
    log({{"event", "fault"}, {"message", message}}, now);
    for (const auto& m : moves) moved_at_[m.local_rank] = now;
    return false;
  }
  spdlog::info("symmerd: job {}: moving {} ({})", key_, analysis::to_string(moves),
               evidence.dump());
  log(event, now);
  coschedule_running_ = plan;
  return true;
}

std::vector<nlohmann::json> ManagedJob::take_new_events() {
  const auto& recent = log_.recent();
  auto from = recent.begin();
  if (last_seen_event_) {
    for (auto it = recent.end(); it != recent.begin();) {
      --it;
      if (*it == *last_seen_event_) {
        from = it + 1;
        break;
      }
    }
  }
  std::vector<nlohmann::json> out(from, recent.end());
  if (!recent.empty()) last_seen_event_ = recent.back();
  return out;
}

nlohmann::json ManagedJob::to_json(TimePoint now) const {
  const auto& h = snapshot().header;
  const auto& report = analyzer_->report();
  const auto claim = holder();
  std::string counters = "unknown";
  for (const auto& slot : snapshot().slots) {
    if (slot.state() != segment::SlotState::kActive) continue;
    switch (static_cast<segment::CountersStatus>(slot.counters.counters_status)) {
      case segment::CountersStatus::kAvailable:
        counters = "available";
        break;
      case segment::CountersStatus::kUnavailable:
        counters = "unavailable: locality from the byte matrix alone";
        break;
      case segment::CountersStatus::kDisabled:
        counters = "disabled: locality from the byte matrix alone";
        break;
      default:
        break;
    }
  }
  return {{"job", key_},
          {"job_id", segment::job_id_text(h.job_id)},
          {"node_id", h.node_id},
          {"owner_uid", h.owner_uid},
          {"app", std::string(h.app_name)},
          {"local_ranks", h.local_ranks},
          {"world_size", h.world_size},
          {"nodes", h.node_count},
          {"segment", path_},
          {"state", claimed_ ? "managed" : "standby"},
          {"daemon_pid", claim.kind == segment::ClaimKind::kDaemon ? claim.holder.pid : 0},
          {"claimed_by", segment::claim_kind_name(claim.kind)},
          {"paused", settings_.paused},
          {"advice_only", settings_.analyzer.advice_only},
          {"analysis", analysis::to_json(settings_.analyzer)},
          {"adopted_at", adopted_realtime_s_},
          {"managed_s", seconds(now - start_)},
          {"busy", busy()},
          {"cache_counters", counters},
          {"plans", report.plans()},
          {"moves", report.moves() + coschedule_moves_},
          {"advised", report.advised() + coschedule_advice_},
          {"rollbacks", report.rollbacks()}};
}

nlohmann::json ManagedJob::ranks_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : ranks_) {
    nlohmann::json j = {
        {"job", key_},         {"rank", r.local_rank}, {"global_rank", r.global_rank},
        {"pid", r.pid},        {"cpu", r.cpu},         {"cpus_allowed", r.cpus_allowed},
        {"core", r.bound_core}};
    if (r.window && window_) {
      const double span = std::max(1e-9, window_->duration_s());
      j["window_s"] = window_->duration_s();
      j["compute_share"] = segment::compute_share(r.window->idle_ns, r.window->compute_ns);
      j["idle_share"] = segment::idle_share(r.window->idle_ns, r.window->compute_ns);
      j["calls_per_s"] = static_cast<double>(r.window->calls) / span;
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace symmer::daemon
