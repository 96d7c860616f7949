// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The planner turns metric proposals into a plan of moves, and watches plans it made.
//
// Each evaluation runs the metrics in priority order. A proposal is accepted when
//   - its ranks are not held (no rank moves twice within the hold-off) and its moves are not
//     banned (a move that was rolled back is not tried again for a while),
//   - every target core is allowed, and a move across NUMA nodes is either refused or paired
//     with page migration (NumaPolicy),
//   - its confidence reaches min_confidence (low-confidence evidence is discarded),
//   - its own predicted gain and the net gain under all metrics reach min_gain,
//   - it touches no rank or core an earlier (higher-priority) accepted proposal touches.
// At most one proposal per metric is accepted per evaluation. In assignment mode a whole
// assignment (assignment.hpp) is tried first whenever some metric shows its symptom and every
// rank's place is one core.
//
// After a plan is carried out the planner compares the job's progress rate before and after
// (progress_rate(): the job advances at the pace of its slowest rank): when the windows after
// show it dropped by more than rollback_tolerance, it returns the reverse plan and bans those
// moves. Rollbacks are exempt from the hold-off (they repair, they do not explore).
//
// Hysteresis against flapping: once a plan is kept, a proposal that sends one of its ranks
// back to the core it left (within rollback_ban) must predict more than min_gain plus the gain
// the plan was observed to bring plus what its prediction overestimated that gain by;
// otherwise it is refused as a reversal. Noisy capability estimates (a shared, busy machine),
// or a model that prices a swap and its reverse alike, would else swap the same pair back and
// forth every hold-off.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "symmer/analysis/metric.hpp"

namespace symmer::analysis {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;

/// What to do with a move whose target core is on another NUMA node than its source.
enum class NumaPolicy { kRefuse, kMigrate };
/// Pairwise proposals only, or a whole assignment first.
enum class PlannerMode { kPairwise, kAssignment };

struct PlannerOptions {
  double min_confidence = 0.6;
  double min_gain = 0.05;
  std::chrono::nanoseconds hold_off = std::chrono::seconds(5);
  NumaPolicy numa_policy = NumaPolicy::kMigrate;
  PlannerMode mode = PlannerMode::kPairwise;
  /// Windows measured after a plan (the first one after it, a transient, is skipped).
  int evaluation_windows = 3;
  /// Progress may drop this much (0.1 = 10%) before a plan counts as harmful.
  double rollback_tolerance = 0.10;
  /// How long a rolled-back move is not proposed again.
  std::chrono::nanoseconds rollback_ban = std::chrono::seconds(60);
};

/// Why a proposal was or was not taken.
enum class Verdict {
  kAccepted,
  kLowConfidence,   ///< confidence below min_confidence
  kBelowThreshold,  ///< own predicted gain below min_gain
  kConflict,        ///< other metrics predict a loss that eats the gain
  kHeld,            ///< a rank moved within the hold-off
  kBanned,          ///< a move rolled back recently
  kNumaRefused,     ///< crosses NUMA nodes under NumaPolicy::kRefuse
  kNotAllowed,      ///< a target core outside the allowed set
  kOverlap,         ///< touches a rank or core of a higher-priority accepted proposal
  kReversal,        ///< undoes a kept move for less than its margin (see above)
};

/// "accepted", "low_confidence", ... (stable strings for the decision log).
const char* to_string(Verdict verdict);

struct Decision {
  Proposal proposal;
  Verdict verdict = Verdict::kAccepted;
  double net_gain = 0.0;       ///< sum of every metric's predicted gain for the moves
  nlohmann::json predictions;  ///< metric name -> predicted gain
};

/// Moves to carry out together, with what justified them.
struct Plan {
  std::uint64_t id = 0;
  std::vector<Move> moves;
  std::vector<std::string> metrics;  ///< metrics whose proposals make up the plan
  double predicted_gain = 0.0;       ///< sum of the accepted proposals' net gains
  double progress_before = 0.0;      ///< progress rate of the evidence span (calls/s)
  std::uint64_t calls_before = 0;    ///< calls of the slowest rank in that span
  bool rollback = false;             ///< this plan undoes an earlier one
  std::uint64_t undoes = 0;          ///< id of the plan it undoes
};

/// The outcome of one evaluation.
struct PlanningRound {
  std::map<std::string, Symptom> symptoms;  ///< per metric
  std::vector<Decision> decisions;          ///< every proposal considered, in order
  std::optional<Plan> plan;                 ///< accepted moves, if any
};

/// The verdict on a carried-out plan once its evaluation windows are in.
struct PlanEvaluation {
  std::uint64_t plan_id = 0;
  double progress_before = 0.0;  ///< calls/s
  double progress_after = 0.0;
  bool harmful = false;
  /// False when the slowest rank made no call in the plan's evidence span, or fewer than
  /// kMinEvaluationCalls after the plan even when waited for (a phase without MPI calls): the
  /// rates say nothing, so the plan is kept as predicted and observed_gain is 0.
  bool conclusive = true;
  /// Observed share of run time saved, 1 - before/after (negative when it cost time).
  double observed_gain = 0.0;
  std::optional<Plan> rollback;  ///< the reverse plan when harmful
};

/// Progress rate of a window: MPI calls per second of the rank that completed the fewest
/// (the job cannot finish before its slowest rank). Each rank's call pattern is the same
/// before and after a move, so the rates compare; a rank that polls with MPI_Test inflates
/// its count, a limit of this measure.
double progress_rate(const WindowSample& window);

/// Calls of the rank that completed the fewest in `window`.
std::uint64_t least_calls(const WindowSample& window);

/// The evaluation of a plan waits (up to 4x evaluation_windows) until the slowest rank has
/// completed this many calls after the plan; a rate from fewer is no evidence.
inline constexpr std::uint64_t kMinEvaluationCalls = 10;

class Planner {
 public:
  /// `metrics` in priority order (first = highest).
  Planner(PlannerOptions options, std::vector<std::unique_ptr<Metric>> metrics);

  const PlannerOptions& options() const { return options_; }
  const std::vector<std::unique_ptr<Metric>>& metrics() const { return metrics_; }

  /// Evaluates the metrics on `context` and decides. `allowed_cores` empty = every core of
  /// the model.
  PlanningRound plan(const MetricContext& context, const std::vector<int>& allowed_cores,
                     TimePoint now);

  /// Each metric's symptom on `context`, without deciding anything (for accounting while a
  /// plan is being evaluated).
  std::map<std::string, Symptom> symptoms(const MetricContext& context) const;

  /// The plan's moves were carried out at `now` (all acknowledged): its ranks are held and
  /// its effect is measured on the next windows (unless it is itself a rollback).
  void applied(const Plan& plan, TimePoint now);
  /// The plan failed or was reverted: its ranks are held so they are not hammered.
  void abandoned(const Plan& plan, TimePoint now);
  /// Feeds a window that follows an applied plan. Returns the evaluation once enough windows
  /// are in; it carries the rollback plan when the plan hurt.
  std::optional<PlanEvaluation> observe(const WindowSample& window, TimePoint now);
  /// True while an applied plan is still being measured (the analyzer waits with new plans).
  bool evaluating() const { return watched_.has_value(); }

  /// True when local rank `local_rank` moved within the hold-off before `now`.
  bool held(int local_rank, TimePoint now) const;

 private:
  struct Watched {
    Plan plan;
    int skipped = 0;
    std::vector<WindowSample> after;
  };
  std::optional<Verdict> precheck(Proposal& proposal, const MetricContext& context,
                                  const std::vector<int>& allowed, TimePoint now) const;
  void hold(const Plan& plan, TimePoint now);

  PlannerOptions options_;
  std::vector<std::unique_ptr<Metric>> metrics_;
  std::map<int, TimePoint> moved_at_;                // local rank -> last move
  std::map<std::pair<int, int>, TimePoint> banned_;  // (rank, core) -> until
  struct Kept {
    TimePoint until;
    double margin = 0.0;  // what undoing it must gain beyond min_gain
  };
  std::map<std::pair<int, int>, Kept> kept_;  // (rank, core it left in a kept plan)
  std::optional<Watched> watched_;
  std::uint64_t next_id_ = 1;
};

}  // namespace symmer::analysis
