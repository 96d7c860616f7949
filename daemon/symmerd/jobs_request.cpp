// SPDX-License-Identifier: BSD-3-Clause
// `jobs`: every job the daemon knows (anyone).
#include "request.hpp"

namespace symmer::daemon {
namespace {

nlohmann::json jobs(Daemon& daemon, const nlohmann::json&, const PeerCredentials&) {
  nlohmann::json list = nlohmann::json::array();
  const auto now = analysis::Clock::now();
  for (const auto& [key, job] : daemon.state().jobs) list.push_back(job->to_json(now));
  return reply_ok({{"jobs", list}});
}

const bool registered = register_request({"jobs", jobs});

}  // namespace
}  // namespace symmer::daemon
