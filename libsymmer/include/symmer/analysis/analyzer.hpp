// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The analyzer: window deltas -> metrics -> planner -> actuator, with the decision log.
//
// It is driven from outside and never blocks or sleeps: on_window() with each new window
// (every `period`), tick() in between while tick() says work is in flight (the actuator
// waiting for acknowledgements, pages being migrated). The embedded thread in local rank 0
// and symmerd both drive it the same way; tests drive it with synthetic windows and a fake
// RankControl.

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "symmer/analysis/actuator.hpp"
#include "symmer/analysis/config.hpp"
#include "symmer/analysis/decision_log.hpp"
#include "symmer/analysis/planner.hpp"
#include "symmer/analysis/report.hpp"
#include "symmer/said_once.hpp"
#include "symmer/topology/node_model.hpp"
#include "symmer/topology/page_migration.hpp"

namespace symmer::analysis {

/// Replaceable system access (tests substitute fakes).
struct AnalyzerHooks {
  /// Hot memory of a process (hot_ranges by default).
  std::function<std::vector<topology::MemoryRange>(int pid, int target_os_node)> hot_ranges;
  topology::MovePagesFunction move_pages;  ///< system_move_pages() by default
};

class Analyzer {
 public:
  /// `control` may be null: the analyzer then only advises (as with advice_only).
  Analyzer(AnalyzerConfig config, topology::NodeModel node, RankControl* control,
           DecisionLog& decision_log, TimePoint start, AnalyzerHooks hooks = {});

  /// False when the configuration disabled it (it then ignores every call).
  bool enabled() const { return config_.enabled; }
  const AnalyzerConfig& config() const { return config_; }

  /// A new window of the job. Invalid windows are logged as faults and skipped.
  void on_window(const WindowSample& window, TimePoint now);
  /// Advances the actuator and page migration; true while work is in flight.
  bool tick(TimePoint now);
  /// Cores the job may use (logical); by default every core of the model. Placements stay
  /// inside these and inside each window's domain.
  void set_allowed_cores(std::vector<int> cores);

  /// Writes the summary event -- how long each symptom lasted and what the ranks waited
  /// meanwhile ("symptoms"), the time the kept plans recovered, estimated from the measured
  /// progress before and after each ("recovered") -- with `details` merged in (e.g. what the
  /// analysis itself cost: "cpu_s", "windows"), and returns the report.
  const Report& finish(TimePoint now, const nlohmann::json& details = nlohmann::json::object());
  const Report& report() const { return report_; }

 private:
  // The evidence span of the history, as one window and as its two halves.
  struct Evidence {
    Evidence() = default;
    explicit Evidence(const std::deque<WindowSample>& history);
    WindowSample all, first, second;
  };
  // How long a symptom lasted and the waiting time of the job's ranks while it did.
  struct SymptomTotal {
    std::uint64_t counted_until_ns = 0;  // end of the last window counted
    double onset_s = -1.0, last_s = -1.0, duration_s = 0.0, wait_s = 0.0, max_severity = 0.0;
  };
  // Progress after a completed plan: the slowest rank's calls and the seconds they took.
  struct Recovery {
    std::uint64_t plan = 0;
    double rate_before = 0.0;  // calls/s over the evidence span that justified the plan
    double calls_after = 0.0;
    double seconds_after = 0.0;
  };

  void log(nlohmann::json event, TimePoint now);
  MetricContext context();  // of the current history (kept alive in evidence_)
  void plan(TimePoint now);
  void log_round(const PlanningRound& round, TimePoint now);
  void account_symptoms(const std::map<std::string, Symptom>& symptoms, TimePoint now);
  void account_progress(const WindowSample& window);
  nlohmann::json totals_json() const;
  void start(const Plan& plan, TimePoint now);
  void finished(const ActuationResult& result, TimePoint now);
  // `window` with the ranks bound from outside on the sets they were bound to, until their
  // published sets show it.
  WindowSample with_outside_binds(const WindowSample& window);
  // The allowed cores inside the window's domain.
  std::vector<int> allowed_in(const WindowSample& window) const;
  // Free places of the window whose cores are all allowed: key -> logical cores.
  std::map<int, std::vector<int>> free_places(const WindowSample& window) const;
  std::vector<int> free_keys(const WindowSample& window) const;

  AnalyzerConfig config_;
  topology::NodeModel node_;
  RankControl* control_;
  DecisionLog& log_;
  TimePoint start_;
  AnalyzerHooks hooks_;
  std::unique_ptr<Planner> planner_;
  std::unique_ptr<Actuator> actuator_;
  std::vector<int> allowed_;
  std::deque<WindowSample> history_;
  std::map<int, std::vector<int>> bound_from_outside_;  // local rank -> logical cores
  std::optional<Plan> running_;
  std::map<std::string, TimePoint> onset_;  // metric -> when its current symptom began
  std::map<std::string, int> absent_for_;   // metric -> evaluations in a row without it
  std::map<std::string, std::pair<std::string, TimePoint>> last_logged_;  // dedup key, time
  std::vector<topology::PageMigration> migrations_;
  SaidOnce said_;  // window rejections said so far
  Evidence evidence_;
  std::map<std::string, SymptomTotal> symptom_totals_;
  std::optional<Recovery> recovering_;
  std::vector<Recovery> recoveries_;
  Report report_;
};

}  // namespace symmer::analysis
