// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Client side of symmerd's control socket (protocol: daemon/README.md): where the socket is,
// and one request/reply exchange. Used by symmerctl and the daemon tests.

#include <sys/types.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "symmer/expected.hpp"

namespace symmer::daemon {

/// Where symmerd run by `euid` listens unless configured otherwise: /run/symmer/symmerd.sock
/// for root, else $XDG_RUNTIME_DIR/symmer/symmerd.sock (/tmp/symmer-<uid>/symmerd.sock when
/// XDG_RUNTIME_DIR is unset).
std::string default_socket_path(uid_t euid);

/// The socket a client talks to: $SYMMERD_SOCKET when set, else the caller's own daemon's
/// socket when it exists, else root's.
std::string client_socket_path();

/// Sends one request (a JSON object, one line) and returns the daemon's reply. The server must
/// run as root or as the caller (SO_PEERCRED), else nothing is sent. Errors: kNotFound (no
/// daemon listens there), kIo (the server runs as someone else; connect, send or receive
/// failed or timed out), kParse (the reply is not JSON).
Expected<nlohmann::json> send_request(const std::string& socket_path, const nlohmann::json& request,
                                      std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace symmer::daemon
