// SPDX-License-Identifier: BSD-3-Clause
// `advice`: log moves without making them, for one job or every job (as pause).
#include "request.hpp"

namespace symmer::daemon {
namespace {

nlohmann::json advice(Daemon& daemon, const nlohmann::json& request, const PeerCredentials& peer) {
  if (!request.contains("on") || !request["on"].is_boolean())
    return reply_failure("advice: expected \"on\": true or false");
  return set_switch(daemon, request, peer, JobSwitch::kAdviceOnly, request["on"].get<bool>());
}

const bool registered = register_request({"advice", advice});

}  // namespace
}  // namespace symmer::daemon
