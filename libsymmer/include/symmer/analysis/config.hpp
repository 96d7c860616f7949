// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The analyzer's settings: built-in defaults, then the [analyzer] table of symmer.toml, then
// SYMMER_* environment variables (each key K of the table is SYMMER_<K upper-cased>, except
// `enabled`, which is SYMMER_ANALYZER, shared with the PMPI shim: embedded/on or off). The
// shim's own variables (SYMMER_PERIOD_MS: how often ranks publish) are not read here. The
// file is $SYMMER_CONFIG, else the installed
// <sysconfdir>/symmer/symmer.toml when it exists.
//
// A bad value never stops the job: every problem becomes one message naming the source and
// the key, and a configuration with errors has `enabled` false (the analyzer stays off and
// says why).

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "symmer/analysis/actuator.hpp"
#include "symmer/analysis/placement.hpp"
#include "symmer/analysis/planner.hpp"
#include "symmer/topology/page_migration.hpp"

namespace symmer::analysis {

struct AnalyzerConfig {
  bool enabled = true;
  /// Window length (key window_ms). With evidence_windows this sets the reaction time: a
  /// decision needs at least 2 windows since the mapping changed, a confident one usually
  /// 2-4 (both halves of the span must show the gain), so a symptom is acted on within
  /// 0.2-0.5 s; a longer span keeps later decisions steady.
  std::chrono::milliseconds period{100};
  int evidence_windows = 6;  ///< windows a decision looks at (at least 2)
  std::vector<std::string> metrics = {"idleness", "outofsync", "locality",
                                      "capability"};  ///< priority order
  /// Where placements may go: the ranks' launch sets (kJob), or every core the job's cgroup
  /// allows (kNode: the user widened it, symmer-run --domain node).
  Domain domain = Domain::kJob;
  bool advice_only = false;  ///< log the moves, do not make them
  std::string decision_log;  ///< JSON-lines file; empty: none
  PlannerOptions planner;
  ActuatorOptions actuator;
  topology::MigrationOptions migration;
};

struct ConfigLoad {
  AnalyzerConfig config;
  std::vector<std::string> errors;   ///< "symmer.toml: analyzer.min_gain = 1.5: ..." each
  std::vector<std::string> sources;  ///< what was read: a file path, "environment"
};

/// Reads the environment variable called by its argument (nullptr: unset).
using Getenv = std::function<const char*(const char*)>;

/// Defaults, the configuration file, then the environment (std::getenv by default).
ConfigLoad load_config(const Getenv& getenv = {});

/// What is wrong with `text` as symmer's TOML (symmer.toml, symmerd.toml, policies), as
/// "<line>:<column>: <what>"; "" when it may be handed to toml++. Refused: control
/// characters, non-ASCII bytes outside a comment on a line of its own, a multi-line string, a
/// one-line string not closed on its line, a quote inside a bare key or value, a table header
/// whose key does not start with a key character or a quote, and nesting deeper than 8.
/// Syntax errors the parser reports itself pass.
///
/// Why: the toml++ 3.3.0 that Debian 12 ships reaches undefined behaviour (an "unreachable"
/// point, which a release build may turn into anything) on a non-ASCII character where it
/// expects whitespace (any code point from U+00A1 to U+049A in a bare value), a table header
/// whose key starts with neither a key character nor a quote (`[\nx]`, `[[[`), and arrays
/// nested deeply enough to overflow the stack (upstream fixes: tomlplusplus #293, #301, #305).
/// Non-ASCII is refused outside comments on lines of their own because a check that guessed
/// where toml++'s strings end was wrong twice (the fuzzer's finds in
/// tests/fuzz/corpus/daemon_config).
std::string toml_text_problem(std::string_view text);

/// Applies TOML text (the [analyzer] table) to `load`; `source` names it in messages. Text
/// toml_text_problem refuses is an error "<source>:<line>:<column>: <what>".
void apply_toml(ConfigLoad& load, std::string_view text, const std::string& source);
/// Applies SYMMER_* variables to `load`.
void apply_environment(ConfigLoad& load, const Getenv& getenv);

/// Every key of the [analyzer] table, in file order.
std::vector<std::string> config_keys();
/// Environment variable of a key ("min_gain" -> "SYMMER_MIN_GAIN").
std::string environment_name(std::string_view key);

/// The configuration as JSON (same keys as the [analyzer] table).
nlohmann::json to_json(const AnalyzerConfig& config);

}  // namespace symmer::analysis
