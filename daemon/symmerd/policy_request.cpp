// SPDX-License-Identifier: BSD-3-Clause
// `policy`: analyzer settings of one job (its owner, root, the daemon's user) or of every job
// (root, the daemon's user); a bad value is refused naming its key.
#include <spdlog/spdlog.h>

#include "request.hpp"

namespace symmer::daemon {
namespace {

nlohmann::json refused(const analysis::ConfigLoad& load) {
  return {{"ok", false}, {"error", load.errors.front()}, {"errors", load.errors}};
}

nlohmann::json policy(Daemon& daemon, const nlohmann::json& request, const PeerCredentials& peer) {
  DaemonState& s = daemon.state();
  const nlohmann::json set = request.value("set", nlohmann::json::object());
  const bool reset = request.value("reset", false);
  const auto now = analysis::Clock::now();
  if (!request.contains("job")) {
    if (!may_change_daemon(peer, s.uid)) return reply_denied(peer, "change the daemon's policy");
    nlohmann::json next = reset ? nlohmann::json::object() : s.policy;
    next.update(set);
    auto load = apply_policy(s.config.analyzer, next);
    if (!load.errors.empty()) return refused(load);
    s.policy = next;
    daemon.apply_settings(now);
    spdlog::info("symmerd: uid {} changed the policy of every job: {}", peer.uid, next.dump());
    return reply_ok(
        {{"scope", "daemon"}, {"policy", s.policy}, {"analysis", analysis::to_json(load.config)}});
  }
  auto job = find_job(s, request);
  if (!job) return reply_failure(job.error().message);
  ManagedJob& j = **job;
  if (!may_change_job(peer, j.owner_uid(), s.uid))
    return reply_denied(peer, "change the policy of job " + j.key() + " (owner uid " +
                                  std::to_string(j.owner_uid()) + ")");
  auto& o = s.overrides[j.key()];
  nlohmann::json next = reset ? nlohmann::json::object() : o.policy;
  next.update(set);
  nlohmann::json merged = s.policy;
  merged.update(next);
  auto load = apply_policy(s.config.analyzer, merged);
  if (!load.errors.empty()) return refused(load);
  o.policy = next;
  j.set_settings(daemon.settings_for(j.key()), now);
  spdlog::info("symmerd: uid {} changed the policy of job {}: {}", peer.uid, j.key(), next.dump());
  return reply_ok({{"scope", "job"},
                   {"job", j.key()},
                   {"policy", next},
                   {"analysis", analysis::to_json(j.settings().analyzer)}});
}

const bool registered = register_request({"policy", policy});

}  // namespace
}  // namespace symmer::daemon
