// SPDX-License-Identifier: BSD-3-Clause
// `reload`: re-read the configuration file, as SIGHUP (root, the daemon's user).
#include "request.hpp"

namespace symmer::daemon {
namespace {

nlohmann::json reload(Daemon& daemon, const nlohmann::json&, const PeerCredentials& peer) {
  if (!may_change_daemon(peer, daemon.state().uid))
    return reply_denied(peer, "reload the configuration");
  daemon.reload();
  return reply_ok({{"config", daemon.state().config_path}});
}

const bool registered = register_request({"reload", reload});

}  // namespace
}  // namespace symmer::daemon
