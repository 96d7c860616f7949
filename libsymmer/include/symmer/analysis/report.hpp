// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The end-of-job report: symptoms seen, moves made, faults, and the time recovered, built
// from decision-log events (live, or read back from the JSON-lines file).
//
// Time recovered by a kept plan: with progress rates r_before and r_after (MPI calls/s), the
// work done in the dt seconds after the plan would have taken dt * r_after / r_before without
// it, so the plan saved dt * (r_after / r_before - 1) seconds. A plan that was rolled back
// counts its (negative) effect until the rollback.

#include <cstdint>
#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace symmer::analysis {

class Report {
 public:
  /// Accounts for one decision-log event (unknown events are ignored).
  void add(const nlohmann::json& event);

  struct SymptomStats {
    double first_seen_s = -1.0;
    double last_seen_s = -1.0;
    double max_severity = 0.0;
  };
  const std::map<std::string, SymptomStats>& symptoms() const { return symptoms_; }
  int plans() const { return plans_; }
  int moves() const { return moves_; }
  int advised() const { return advised_; }
  int rollbacks() const { return rollbacks_; }
  const std::vector<std::string>& faults() const { return faults_; }

  /// One plan made (or only advised), in log order.
  struct PlanLine {
    std::uint64_t id = 0;
    double t_s = 0.0;                  ///< when it took effect (advice: when it was given)
    std::string moves;                 ///< "r0:c0->c1, r1:c1->c0"
    std::vector<std::string> metrics;  ///< what justified it
    double predicted_gain = 0.0;
    std::optional<double> observed_gain;  ///< once evaluated
    bool advice = false;                  ///< printed, not made
    bool rollback = false;                ///< undoes an earlier plan
    bool rolled_back = false;             ///< undone later
  };
  /// Plans carried out to completion, rollbacks and advice, in order.
  const std::vector<PlanLine>& plan_lines() const { return lines_; }
  /// Seconds from the first symptom's onset to the first completed move (no value: no move).
  std::optional<double> reaction_s() const { return reaction_s_; }
  /// Seconds of run time the kept plans saved up to the end of the job.
  double time_recovered_s() const;
  double end_s() const { return end_s_; }

  /// What the analysis itself cost, from the summary event (absent when it did not say).
  struct AnalyzerCost {
    double cpu_s = 0.0;          ///< CPU time of the analysis, start-up included
    double startup_cpu_s = 0.0;  ///< of which before the first window (topology, segment)
    int windows = 0;             ///< windows analysed
  };
  const std::optional<AnalyzerCost>& analyzer_cost() const { return cost_; }

  nlohmann::json to_json() const;
  /// A readable summary for `symmer-run --report`.
  std::string to_text() const;

 private:
  struct PlanRecord {
    double applied_s = -1.0;
    double ratio = 1.0;  // r_after / r_before once evaluated
    bool evaluated = false;
    double undone_s = -1.0;  // when a rollback completed
  };
  PlanLine* line_of(std::uint64_t id);
  std::map<std::string, SymptomStats> symptoms_;
  std::map<std::uint64_t, PlanRecord> plan_records_;
  std::map<std::uint64_t, PlanLine> proposed_;  // plan events not yet carried out
  std::vector<PlanLine> lines_;
  int plans_ = 0;
  int moves_ = 0;
  int advised_ = 0;
  int rollbacks_ = 0;
  std::vector<std::string> faults_;
  std::optional<double> reaction_s_;
  std::optional<AnalyzerCost> cost_;
  double end_s_ = 0.0;
};

/// A report from the JSON lines of a decision log; lines that are not JSON are skipped.
Report summarize(std::istream& decision_log);

}  // namespace symmer::analysis
