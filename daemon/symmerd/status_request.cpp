// SPDX-License-Identifier: BSD-3-Clause
// `status`: the daemon as a whole (anyone).
#include "request.hpp"

namespace symmer::daemon {
namespace {

nlohmann::json status(Daemon& daemon, const nlohmann::json&, const PeerCredentials&) {
  const DaemonState& s = daemon.state();
  int managed = 0;
  for (const auto& [key, job] : s.jobs) managed += job->claimed() ? 1 : 0;
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& [path, why] : s.problems)
    problems.push_back({{"segment", path}, {"error", why}});
  return reply_ok(
      {{"pid", s.pid},
       {"uid", s.uid},
       {"mode", s.uid == 0 ? "root: every user's jobs" : "user: this user's jobs"},
       {"config", s.config_path.empty() ? "built-in defaults" : s.config_path},
       {"started_at", s.started_realtime_s},
       {"uptime_s", std::chrono::duration<double>(analysis::Clock::now() - s.started).count()},
       {"segment_dir", daemon.segment_dir()},
       {"period_ms", s.config.analyzer.period.count()},
       {"periods", s.periods},
       {"paused", s.paused},
       {"advice_only", s.advice_only || s.config.analyzer.advice_only},
       {"coschedule", s.config.coschedule},
       {"jobs", s.jobs.size()},
       {"managed", managed},
       {"problems", problems},
       {"notes", s.coschedule_notes},
       {"reservations", s.reservations.size()},
       {"connections", s.connections ? s.connections() : nlohmann::json()},
       {"policy", s.policy},
       {"daemon", to_json(s.config)},
       {"analysis", analysis::to_json(s.config.analyzer)},
       {"node", {{"cores", s.node.cores().size()}, {"source", s.node.source()}}}});
}

const bool registered = register_request({"status", status});

}  // namespace
}  // namespace symmer::daemon
