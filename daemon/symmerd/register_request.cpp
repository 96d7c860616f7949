// SPDX-License-Identifier: BSD-3-Clause
// `register`: adopt the job of a segment now instead of at the next scan (the job's owner,
// root, the daemon's user).
#include "request.hpp"
#include "symmer/segment/naming.hpp"

namespace symmer::daemon {
namespace {

nlohmann::json register_job(Daemon& daemon, const nlohmann::json& request,
                            const PeerCredentials& peer) {
  DaemonState& s = daemon.state();
  if (!request.contains("segment") || !request["segment"].is_string())
    return reply_failure("register: expected \"segment\": the job's segment file name or path");
  const std::string dir = daemon.segment_dir();
  std::string name = request["segment"];
  if (const auto slash = name.rfind('/'); slash != std::string::npos) {
    if (name.substr(0, slash) != dir)
      return reply_failure("register: " + name + " is not in " + dir);
    name = name.substr(slash + 1);
  }
  const auto parsed = segment::parse_segment_file_name(name);
  if (!parsed) return reply_failure("register: " + name + " is not a segment name");
  if (!may_change_job(peer, static_cast<uid_t>(parsed->uid), s.uid))
    return reply_denied(peer, "register a job of uid " + std::to_string(parsed->uid));
  if (s.uid != 0 && parsed->uid != s.uid)
    return reply_failure("register: this daemon serves uid " + std::to_string(s.uid) + " only");
  const auto now = analysis::Clock::now();
  if (!s.jobs.count(name)) {
    std::string error;
    if (!daemon.adopt(dir + "/" + name, now, &error))
      return reply_failure("register: " + (error.empty() ? "no live job there" : error));
  }
  return reply_ok({{"job", s.jobs.at(name)->to_json(now)}});
}

const bool registered = register_request({"register", register_job});

}  // namespace
}  // namespace symmer::daemon
