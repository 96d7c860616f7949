// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Who is on the other end of a control connection (SO_PEERCRED), and what they may change.
// Read-only requests are for any local user; changes are for root, the daemon's own user, or
// the owner of the job they change. Request handling takes the credentials as a value, so
// tests hand it any uid without a second user on the machine.

#include <sys/types.h>

#include <optional>

namespace symmer::daemon {

struct PeerCredentials {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

/// The credentials of the peer of connected Unix socket `fd`; nullopt when the kernel says
/// nothing (not a Unix socket).
std::optional<PeerCredentials> peer_credentials(int fd);

/// May `peer` change the daemon as a whole (global pause, policy, reload)? Root and the
/// daemon's own user (`daemon_uid`) may.
bool may_change_daemon(const PeerCredentials& peer, uid_t daemon_uid);

/// May `peer` change one job owned by `job_owner`? Those who may change the daemon, and the
/// job's owner.
bool may_change_job(const PeerCredentials& peer, uid_t job_owner, uid_t daemon_uid);

}  // namespace symmer::daemon
