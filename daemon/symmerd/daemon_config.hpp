// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// symmerd's configuration: configs/symmerd.toml. The [daemon] table holds the daemon's own
// settings; the [analyzer] table is the analysis configuration every job gets (the same keys
// as symmer.toml, analysis/config.hpp). Nothing comes from the environment: a daemon serves
// many jobs. Every bad value is one message naming the file and the key; a configuration
// with errors must not start a daemon.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "symmer/analysis/config.hpp"
#include "symmer/topology/node_model.hpp"

namespace symmer::daemon {

enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError };

struct DaemonConfig {
  std::string socket;  ///< control socket path; "" = default_socket_path(euid)
  LogLevel log_level = LogLevel::kInfo;
  std::vector<int> cores;   ///< logical cores it may place ranks on; all of the node by default
  std::string segment_dir;  ///< where node segments appear; "" = segment_directory()
  std::string decision_log_dir;  ///< one <segment name>.jsonl per job there; "" = in memory only
  bool coschedule = true;        ///< cross-job placement (coscheduler.hpp)
  /// A rank sending at least this many bytes per second to other nodes counts as
  /// communication-heavy (candidate for a core near the NIC's interrupt cores).
  double nic_bytes_per_s = 32.0 * 1024 * 1024;
  /// Share of a communication-heavy rank's MPI wait time a core near the NIC's interrupt
  /// cores is expected to save (the model behind "only when it gains").
  double nic_wait_saving = 0.10;
  bool start_paused = false;  ///< start with analysis and moves paused
  /// What one user's segments may cost the daemon: the largest segment it reads (bigger ones
  /// are not adopted), the bytes of that user's segments it reads each period (the rest wait
  /// for a later period), and how many of that user's segment files it looks at.
  std::uint64_t max_segment_bytes = std::uint64_t{64} << 20;
  std::uint64_t max_user_bytes_per_period = std::uint64_t{256} << 20;
  std::size_t max_user_segments = 64;
  analysis::AnalyzerConfig analyzer;  ///< [analyzer]: period (window_ms), thresholds, metrics
};

struct DaemonConfigLoad {
  DaemonConfig config;
  std::vector<std::string> errors;  ///< "<file>: daemon.cores = ...: ..." each
};

/// Parses symmerd.toml text; `source` names it in messages; `node` checks the cores.
DaemonConfigLoad parse_daemon_config(std::string_view text, const std::string& source,
                                     const topology::NodeModel& node);

/// Largest configuration file read.
inline constexpr std::uint64_t kMaxConfigBytes = 1 << 20;

/// Reads and parses the file at `path`. A missing or unreadable file is an error, and so is
/// anything but a regular file of at most kMaxConfigBytes (a directory, /dev/null, /dev/zero).
DaemonConfigLoad load_daemon_config(const std::string& path, const topology::NodeModel& node);

/// Where symmerd looks for its configuration without --config:
/// <sysconfdir>/symmer/symmerd.toml.
std::string default_config_path();

/// "info", "debug"...
const char* to_string(LogLevel level);

/// The [daemon] settings as JSON (status replies).
nlohmann::json to_json(const DaemonConfig& config);

/// The analyzer configuration `base` with per-job policy `overrides` applied (keys of the
/// [analyzer] table with JSON values). Errors name the key, as in a file.
analysis::ConfigLoad apply_policy(const analysis::AnalyzerConfig& base,
                                  const nlohmann::json& overrides);

}  // namespace symmer::daemon
