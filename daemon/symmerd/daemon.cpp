// SPDX-License-Identifier: BSD-3-Clause
// symmerd's core: start and stop, timers, the configuration, each job's settings (see
// daemon.hpp).
#include "daemon.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>

#include "symmer/segment/naming.hpp"

namespace symmer::daemon {
namespace {

using analysis::Clock;
using analysis::TimePoint;

// While moves are in flight, acknowledgements are looked at this often.
constexpr auto kTickInterval = std::chrono::milliseconds(5);

}  // namespace

Daemon::Daemon(boost::asio::io_context& io, DaemonConfig config, std::string config_path,
               topology::NodeModel node)
    : io_(io),
      state_(std::move(config), std::move(config_path), std::move(node)),
      period_timer_(io),
      tick_timer_(io) {
  state_.pid = ::getpid();
  state_.uid = ::geteuid();
  state_.started_realtime_s = wall_clock_s();
  state_.started = Clock::now();
  state_.paused = state_.config.start_paused;
  open_log_dir();
}

void Daemon::open_log_dir() {
  log_dir_ = DirectoryFd();
  if (state_.config.decision_log_dir.empty()) return;
  auto dir = open_private_directory(state_.config.decision_log_dir, state_.uid);
  if (dir)
    log_dir_ = std::move(*dir);
  else
    spdlog::error("symmerd: decision logs are kept in memory only: {}", dir.error().message);
}

Daemon::~Daemon() { stop(); }

std::string Daemon::segment_dir() const {
  return state_.config.segment_dir.empty() ? segment::segment_directory()
                                           : state_.config.segment_dir;
}

void Daemon::start() {
  spdlog::info("symmerd: pid {} uid {}, segments in {}, period {} ms{}", state_.pid, state_.uid,
               segment_dir(), state_.config.analyzer.period.count(),
               state_.paused ? ", paused" : "");
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
  for (auto& [key, job] : state_.jobs)
    if (job->claimed()) job->release();
  if (!state_.jobs.empty())
    spdlog::info("symmerd: released {} job(s) to their embedded analyzers", state_.jobs.size());
  state_.jobs.clear();
}

void Daemon::schedule_period() {
  if (stopped_) return;
  period_timer_.expires_after(state_.config.analyzer.period);
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
    for (auto& [key, job] : state_.jobs) busy = job->tick(now) || busy;
    collect_events();
    if (busy) schedule_tick();
  });
}

JobSettings Daemon::settings_for(const std::string& key) const {
  JobSettings s;
  nlohmann::json policy = state_.policy;
  const auto it = state_.overrides.find(key);
  if (it != state_.overrides.end()) policy.update(it->second.policy);
  auto load = apply_policy(state_.config.analyzer, policy);
  s.analyzer = load.errors.empty() ? load.config : state_.config.analyzer;  // validated when set
  s.analyzer.decision_log.clear();
  s.paused = state_.paused || (it != state_.overrides.end() && it->second.paused);
  s.analyzer.advice_only = s.analyzer.advice_only || state_.advice_only ||
                           (it != state_.overrides.end() && it->second.advice_only);
  return s;
}

void Daemon::apply_settings(TimePoint now) {
  for (auto& [key, job] : state_.jobs) job->set_settings(settings_for(key), now);
}

void Daemon::reload() {
  if (state_.config_path.empty()) {
    spdlog::info("symmerd: SIGHUP: running on built-in defaults, nothing to re-read");
    return;
  }
  auto load = load_daemon_config(state_.config_path, state_.node);
  if (!load.errors.empty()) {
    for (const auto& e : load.errors) spdlog::error("symmerd: {}", e);
    spdlog::error("symmerd: reload refused: {} error(s) in {}; the running configuration stays",
                  load.errors.size(), state_.config_path);
    return;
  }
  if (load.config.socket != state_.config.socket)
    spdlog::warn("symmerd: daemon.socket changed; it takes effect at the next start");
  if (load.config.segment_dir != state_.config.segment_dir)
    spdlog::warn("symmerd: daemon.segment_dir changed; it takes effect at the next start");
  load.config.socket = state_.config.socket;
  load.config.segment_dir = state_.config.segment_dir;
  const bool new_log_dir = load.config.decision_log_dir != state_.config.decision_log_dir;
  state_.config = std::move(load.config);
  if (new_log_dir) open_log_dir();  // for jobs adopted from now on
  spdlog::set_level(
      static_cast<spdlog::level::level_enum>(static_cast<int>(state_.config.log_level)));
  apply_settings(Clock::now());
  spdlog::info("symmerd: reloaded {}", state_.config_path);
}

}  // namespace symmer::daemon
