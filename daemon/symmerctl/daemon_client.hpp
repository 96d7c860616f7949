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
  std::string dir;  ///< node segments without a daemon ("" = $SYMMER_SHM_DIR or /dev/shm)
};

/// Adds --socket and --json to `cmd`.
void add_daemon_options(CLI::App& cmd, DaemonOptions& options);

/// Sends `request` and returns the reply. Throws std::runtime_error when no daemon answers.
nlohmann::json ask(const DaemonOptions& options, const nlohmann::json& request);

/// Sends `request`; prints the reply as JSON with --json, else through `human` (when the
/// reply is ok) or the daemon's error on stderr. Returns the exit status.
int run_request(const DaemonOptions& options, const nlohmann::json& request,
                const std::function<void(const nlohmann::json&)>& human);

/// Adds --dir (where the node segments are, for the embedded mode) to `cmd`.
void add_segment_dir_option(CLI::App& cmd, DaemonOptions& options);

/// run_request, or when no daemon answers, `local()`'s reply (local_view.hpp) printed the same
/// way, after a note on stderr that the figures come from the jobs themselves.
int run_request_or_local(const DaemonOptions& options, const nlohmann::json& request,
                         const std::function<nlohmann::json()>& local,
                         const std::function<void(const nlohmann::json&)>& human);

/// Columns padded to their widest cell, two spaces apart.
std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows);

/// A JSON value as a table cell: strings bare, numbers with at most 3 decimals, "-" for null.
std::string cell(const nlohmann::json& value);

}  // namespace symmer::ctl
