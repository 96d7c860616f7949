// SPDX-License-Identifier: BSD-3-Clause
// `ranks`: every rank of one job or of all (anyone).
#include "request.hpp"

namespace symmer::daemon {
namespace {

nlohmann::json ranks(Daemon& daemon, const nlohmann::json& request, const PeerCredentials&) {
  nlohmann::json list = nlohmann::json::array();
  if (request.contains("job")) {
    auto job = find_job(daemon.state(), request);
    if (!job) return reply_failure(job.error().message);
    list = (*job)->ranks_json();
  } else {
    for (const auto& [key, job] : daemon.state().jobs)
      for (auto& r : job->ranks_json()) list.push_back(std::move(r));
  }
  return reply_ok({{"ranks", list}});
}

const bool registered = register_request({"ranks", ranks});

}  // namespace
}  // namespace symmer::daemon
