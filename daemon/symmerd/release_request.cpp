// SPDX-License-Identifier: BSD-3-Clause
// `release`: ends a reservation (its maker, root, the daemon's user).
#include "request.hpp"

namespace symmer::daemon {
namespace {

nlohmann::json release(Daemon& daemon, const nlohmann::json& request, const PeerCredentials& peer) {
  DaemonState& s = daemon.state();
  const pid_t pid = request.value("pid", static_cast<int>(peer.pid));
  const auto it = s.reservations.find(pid);
  if (it == s.reservations.end())
    return reply_failure("release: pid " + std::to_string(pid) + " reserved nothing");
  if (!may_change_daemon(peer, s.uid) && it->second.reservation.uid != peer.uid)
    return reply_denied(peer, "release the cores of pid " + std::to_string(pid));
  s.reservations.erase(it);
  return reply_ok({{"pid", pid}});
}

const bool registered = register_request({"release", release});

}  // namespace
}  // namespace symmer::daemon
