// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the symmerctl subcommands that talk to symmerd share: the --socket/--json options,
// one request/reply exchange, and plain text tables.

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace symmer::ctl {

/// Exit status when no daemon answers.
inline constexpr int kExitNoDaemon = 2;
/// Exit status when the daemon refused the request (permission).
inline constexpr int kExitDenied = 3;

struct DaemonOptions {
  std::string socket;  ///< "" = daemon::client_socket_path()
  bool json = false;
};

/// Adds --socket and --json to `cmd`.
void add_daemon_options(CLI::App& cmd, DaemonOptions& options);

/// Sends `request` and returns the reply. Throws std::runtime_error when no daemon answers.
nlohmann::json ask(const DaemonOptions& options, const nlohmann::json& request);

/// Sends `request`; prints the reply as JSON with --json, else through `human` (when the
/// reply is ok) or the daemon's error on stderr. Returns the exit status.
int run_request(const DaemonOptions& options, const nlohmann::json& request,
                const std::function<void(const nlohmann::json&)>& human);

/// Columns padded to their widest cell, two spaces apart.
std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows);

/// A JSON value as a table cell: strings bare, numbers with at most 3 decimals, "-" for null.
std::string cell(const nlohmann::json& value);

}  // namespace symmer::ctl
