// SPDX-License-Identifier: BSD-3-Clause
// `decisions`: recent decision-log events of every job, or of one, oldest first (anyone).
#include <algorithm>

#include "request.hpp"

namespace symmer::daemon {
namespace {

nlohmann::json decisions(Daemon& daemon, const nlohmann::json& request, const PeerCredentials&) {
  std::string job;
  if (request.contains("job")) {
    auto found = find_job(daemon.state(), request);
    if (!found) return reply_failure(found.error().message);
    job = (*found)->key();
  }
  std::size_t limit = 50;
  if (request.contains("limit")) {
    if (!request["limit"].is_number_unsigned()) return reply_failure("\"limit\" must be a count");
    limit = request["limit"].get<std::size_t>();
  }
  const auto& all = daemon.state().decisions;
  std::vector<nlohmann::json> out;
  for (auto it = all.rbegin(); it != all.rend() && out.size() < limit; ++it)
    if (job.empty() || (*it)["job"] == job) out.push_back(*it);
  std::reverse(out.begin(), out.end());
  return reply_ok({{"decisions", out}});
}

const bool registered = register_request({"decisions", decisions});

}  // namespace
}  // namespace symmer::daemon
