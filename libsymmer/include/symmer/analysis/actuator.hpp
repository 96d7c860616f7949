// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The actuator carries out a plan through RankControl without blocking: start() it, then
// poll() it until it returns a result.
//
// Ranks move between places (placement.hpp: a rank's whole CPU set, named by its lowest
// logical core). Ordering keeps two ranks from sharing a place (thesis 3.3, the swap
// handshake): a rank is commanded onto a place only after the rank on it acknowledged
// leaving. A cycle of moves (a swap) goes through a free place of the same size when there is
// one (A -> free, B -> A's place, A -> B's place: no sharing at all); without one, both ranks
// of the cycle are commanded at once, so they share only between their two next MPI calls.
//
// A rank that makes no MPI call (RankControl::without_calls: a phase of its own work) would
// act on its command only when the phase ends; it is bound from outside at once instead, and
// acts on the command, already done, at its next call.
//
// Faults: a rank that dies, answers kFailed (its target left the allowed cpuset) or does not
// answer within ack_timeout stops the plan. The silent rank's command is superseded by one
// to stay where it is, and every rank the plan already moved is moved back, in the same
// sharing-free order. A rank that cannot go back (its core left the cpuset) goes to a free
// core instead; one that does not answer the way back either is bound from outside
// (RankControl::force_bind) when possible; the result names any core left shared.

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "symmer/analysis/planner.hpp"
#include "symmer/analysis/rank_control.hpp"

namespace symmer::analysis {

struct ActuatorOptions {
  /// How long a rank may take to answer (it answers at its next MPI call).
  std::chrono::nanoseconds ack_timeout = std::chrono::seconds(3);
};

struct ActuationResult {
  std::uint64_t plan_id = 0;
  bool completed = false;                       ///< every move of the plan done
  std::vector<Move> done;                       ///< moves in effect at the end (for page migration)
  std::vector<std::string> faults;              ///< what went wrong, one message each
  std::vector<int> dead_ranks;                  ///< local ranks found dead
  std::vector<int> shared_cores;                ///< cores still holding two live ranks at the end
  /// Ranks bound from outside because they made no MPI call, with the logical cores they were
  /// bound to: their published sets show the move only once they act on the command.
  std::map<int, std::vector<int>> bound_from_outside;
  std::chrono::nanoseconds longest_sharing{0};  ///< longest time two ranks shared a core
  TimePoint finished;

  nlohmann::json to_json() const;
};

class Actuator {
 public:
  Actuator(RankControl& control, ActuatorOptions options);

  /// Starts carrying out `plan`. `placement` is the place of every live local rank of the job
  /// (moves must start from it); `free_places` are allowed places no rank uses, with their
  /// logical cores (staging points). False, changing nothing, when a plan is already running
  /// or the plan does not start from `placement` (refusal() says why).
  bool start(const Plan& plan, const std::map<int, int>& placement,
             const std::map<int, std::vector<int>>& free_places, TimePoint now);
  /// Advances the running plan; returns its result once it is finished.
  std::optional<ActuationResult> poll(TimePoint now);
  bool busy() const { return running_; }
  /// Whether every rank told to stay after it did not answer in time has since answered that
  /// command (or died). Until then such a rank may still act on the move it was sent -- it
  /// read it just before the timeout -- and run on the move's target until its next MPI call:
  /// the windows in between show a placement no plan may start from.
  bool settled();
  /// Why the last start() returned false.
  const std::string& refusal() const { return refusal_; }

 private:
  struct InFlight {
    int core = -1;
    std::uint64_t generation = 0;
    TimePoint issued;
  };
  bool issue(int rank, int core, TimePoint now);
  void fault(const std::string& message, TimePoint now);
  bool core_taken(int core, int except_rank) const;
  void issue_ready(TimePoint now);
  void track_sharing(TimePoint now);
  ActuationResult finish(TimePoint now);

  RankControl& control_;
  ActuatorOptions options_;
  bool running_ = false;
  bool reverting_ = false;
  Plan plan_;
  std::map<int, int> placement_;  // live rank -> core it acknowledged (or started on)
  std::map<int, int> origin_;     // plan rank -> core before the plan
  std::map<int, int> target_;     // plan rank -> core it should end on (now)
  std::map<int, InFlight> in_flight_;
  std::set<int> excluded_;                // dead or silent ranks: no more commands
  std::set<std::pair<int, int>> failed_;  // (rank, place) binds the rank reported failing
  std::map<int, std::vector<int>> free_places_;  // staging places: key -> logical cores
  std::map<int, std::vector<int>> cores_of_;     // every place the plan names: key -> cores
  std::vector<int> cores(int key) const;
  std::map<int, TimePoint> sharing_since_;
  ActuationResult result_;
  std::string refusal_;
  std::map<int, std::uint64_t> told_to_stay_;  ///< rank -> generation of its "stay" command
};

}  // namespace symmer::analysis
