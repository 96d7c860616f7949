// SPDX-License-Identifier: BSD-3-Clause
// SO_PEERCRED and the change rules (see peer_credentials.hpp).
#include "peer_credentials.hpp"

#include <sys/socket.h>

namespace symmer::daemon {

std::optional<PeerCredentials> peer_credentials(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred)
    return std::nullopt;
  return PeerCredentials{cred.pid, cred.uid, cred.gid};
}

bool may_change_daemon(const PeerCredentials& peer, uid_t daemon_uid) {
  return peer.uid == 0 || peer.uid == daemon_uid;
}

bool may_change_job(const PeerCredentials& peer, uid_t job_owner, uid_t daemon_uid) {
  return may_change_daemon(peer, daemon_uid) || peer.uid == job_owner;
}

}  // namespace symmer::daemon
