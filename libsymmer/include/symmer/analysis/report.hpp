// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The end-of-job report: how long each symptom lasted and what the ranks waited meanwhile,
// the moves made, every plan weighed and not made with its reason, faults, and the time
// recovered -- an estimate with its basis -- built from decision-log events (live, or read back
// from the JSON-lines file).
//
// Time recovered: after each kept plan the analyzer counts the calls of the job's slowest
// rank and the seconds they took, up to the next plan or the end. At the progress rate of the
// evidence that justified the plan (calls/s before it) that work would have taken
// calls / rate seconds; the estimate is that minus the seconds it took, summed over plans (a
// plan that hurt counts negative until it was rolled back). It assumes the job's calls mark
// equal steps of work, as iterative codes' do.

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
    double first_seen_s = -1.0;  ///< when it began (its onset, as far as the evidence shows)
    double last_seen_s = -1.0;
    double duration_s = 0.0;     ///< how long it lasted, all its episodes together
    std::optional<double> wait_s;  ///< what the ranks waited in MPI meanwhile (when measured)
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
    std::string moves;                 ///< "r0: CPUs 0 -> 1, r1: CPUs 1 -> 0"
    std::vector<std::string> metrics;  ///< what justified it
    double predicted_gain = 0.0;
    std::optional<double> observed_gain;  ///< once evaluated
    bool advice = false;                  ///< printed, not made
    bool rollback = false;                ///< undoes an earlier plan
    bool rolled_back = false;             ///< undone later
  };
  /// Plans carried out to completion, rollbacks and advice, in order.
  const std::vector<PlanLine>& plan_lines() const { return lines_; }

  /// A plan weighed and not made: one per metric, moves and reason.
  struct Rejection {
    std::string metric;
    std::string moves;   ///< "" when there was nothing to weigh (no better core)
    std::string verdict;  ///< the decision log's: below_threshold, low_confidence, ...
    std::string reason;   ///< in words, with the figures: "gain 3.1% under min_gain 5.0%"
    int times = 0;        ///< evaluations that reached it (logged once per change or 10 s)
    double first_s = 0.0;
  };
  const std::vector<Rejection>& rejections() const { return rejections_; }

  /// Seconds from the first symptom's onset to the first completed move (no value: no move).
  std::optional<double> reaction_s() const { return reaction_s_; }

  /// The estimate of the time recovered and its basis, per kept plan.
  struct Recovered {
    struct Plan {
      std::uint64_t plan = 0;
      double calls_after = 0.0, seconds_after = 0.0, rate_before = 0.0, estimate_s = 0.0;
    };
    double estimate_s = 0.0;
    std::vector<Plan> plans;
  };
  /// Absent when the log has no summary that says (the job ended early, an old log).
  const std::optional<Recovered>& recovered() const { return recovered_; }
  /// The estimate in seconds, 0 without one.
  double time_recovered_s() const { return recovered_ ? recovered_->estimate_s : 0.0; }
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
  PlanLine* line_of(std::uint64_t id);
  void note_symptom(const std::string& metric, bool present, double t, double severity);
  void note_rejection(const nlohmann::json& event, double t);

  std::map<std::string, SymptomStats> symptoms_;
  std::map<std::string, double> episode_start_;  // metric -> start of its open episode
  bool totals_from_summary_ = false;
  std::map<std::uint64_t, PlanLine> proposed_;  // plan events not yet carried out
  std::vector<PlanLine> lines_;
  std::vector<Rejection> rejections_;
  double min_gain_ = -1.0, min_confidence_ = -1.0;  // from the config event
  int plans_ = 0;
  int moves_ = 0;
  int advised_ = 0;
  int rollbacks_ = 0;
  std::vector<std::string> faults_;
  std::optional<double> reaction_s_;
  std::optional<Recovered> recovered_;
  std::optional<AnalyzerCost> cost_;
  double end_s_ = 0.0;
};

/// A report from the JSON lines of a decision log; lines that are not JSON are skipped.
Report summarize(std::istream& decision_log);

}  // namespace symmer::analysis
