// SPDX-License-Identifier: BSD-3-Clause
// `pause` / `resume`: analysis and moves of one job (its owner, root, the daemon's user) or
// of every job (root, the daemon's user).
#include "request.hpp"

namespace symmer::daemon {
namespace {

const bool registered =
    register_request(
        {"pause",
         [](Daemon& daemon, const nlohmann::json& request, const PeerCredentials& peer) {
           return set_switch(daemon, request, peer, JobSwitch::kPaused, true);
         }}) &&
    register_request(
        {"resume", [](Daemon& daemon, const nlohmann::json& request, const PeerCredentials& peer) {
           return set_switch(daemon, request, peer, JobSwitch::kPaused, false);
         }});

}  // namespace
}  // namespace symmer::daemon
