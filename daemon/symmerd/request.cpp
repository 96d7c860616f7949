// SPDX-License-Identifier: BSD-3-Clause
// The table of control requests and the dispatch (see request.hpp).
#include "request.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "symmer/segment/naming.hpp"

namespace symmer::daemon {
namespace {

// Function-local so registration from other files' static initializers is order-safe.
std::vector<Request>& table() {
  static std::vector<Request> requests;
  return requests;
}

}  // namespace

bool register_request(Request request) {
  table().push_back(std::move(request));
  return true;
}

const Request* find_request(const std::string& name) {
  for (const auto& r : table())
    if (r.name == name) return &r;
  return nullptr;
}

std::vector<std::string> request_names() {
  std::vector<std::string> names;
  for (const auto& r : table()) names.push_back(r.name);
  std::sort(names.begin(), names.end());
  return names;
}

nlohmann::json reply_ok(nlohmann::json body) {
  body["ok"] = true;
  return body;
}

nlohmann::json reply_failure(const std::string& message) {
  return {{"ok", false}, {"error", message}};
}

nlohmann::json reply_denied(const PeerCredentials& peer, const std::string& what) {
  return {{"ok", false},
          {"denied", true},
          {"error", "permission denied: uid " + std::to_string(peer.uid) + " may not " + what}};
}

Expected<ManagedJob*> find_job(const DaemonState& state, const nlohmann::json& request) {
  if (!request["job"].is_string()) return Error(Errc::kInvalidArgument, "\"job\" must be a string");
  const std::string spec = request["job"];
  if (spec.empty()) return Error(Errc::kInvalidArgument, "empty job");
  std::vector<ManagedJob*> found;
  for (const auto& [key, job] : state.jobs) {
    const std::string id = segment::job_id_text(job->job_id());
    if (key == spec || id == spec) return job.get();
    if (key.rfind(spec, 0) == 0 || id.rfind(spec, 0) == 0) found.push_back(job.get());
  }
  if (found.size() == 1) return found.front();
  if (found.empty()) return Error(Errc::kNotFound, "no job " + spec + " on this node");
  return Error(Errc::kInvalidArgument, "job " + spec + " is ambiguous");
}

nlohmann::json set_switch(Daemon& daemon, const nlohmann::json& request,
                          const PeerCredentials& peer, JobSwitch which, bool on) {
  DaemonState& s = daemon.state();
  const bool paused = which == JobSwitch::kPaused;
  const std::string flag = paused ? "paused" : "advice_only";
  const std::string what = paused
                               ? (on ? "pause" : "resume")
                               : (on ? "switch advice-only on for" : "switch advice-only off for");
  if (!request.contains("job")) {
    if (!may_change_daemon(peer, s.uid)) return reply_denied(peer, what + " every job");
    (paused ? s.paused : s.advice_only) = on;
    spdlog::info("symmerd: uid {} set {} = {} for every job", peer.uid, flag, on);
    daemon.apply_settings(analysis::Clock::now());
    return reply_ok({{flag, on}, {"scope", "daemon"}});
  }
  auto job = find_job(s, request);
  if (!job) return reply_failure(job.error().message);
  ManagedJob& j = **job;
  if (!may_change_job(peer, j.owner_uid(), s.uid))
    return reply_denied(
        peer, what + " job " + j.key() + " (owner uid " + std::to_string(j.owner_uid()) + ")");
  auto& o = s.overrides[j.key()];
  (paused ? o.paused : o.advice_only) = on;
  spdlog::info("symmerd: uid {} set {} = {} for job {}", peer.uid, flag, on, j.key());
  j.set_settings(daemon.settings_for(j.key()), analysis::Clock::now());
  return reply_ok({{flag, on}, {"scope", "job"}, {"job", j.key()}});
}

nlohmann::json Daemon::handle(const nlohmann::json& request, const PeerCredentials& peer) {
  if (!request.is_object() || !request.contains("request") || !request["request"].is_string())
    return reply_failure("expected a JSON object with a \"request\" string");
  const std::string type = request["request"];
  const Request* handler = find_request(type);
  if (handler == nullptr) {
    std::string known;
    for (const auto& name : request_names()) known += (known.empty() ? "" : ", ") + name;
    return reply_failure("unknown request \"" + type + "\" (known: " + known + ")");
  }
  try {
    return handler->handle(*this, request, peer);
  } catch (const std::exception& e) {
    return reply_failure(type + ": " + e.what());
  }
}

}  // namespace symmer::daemon
