// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One job symmerd has adopted: its node segment, the claim that keeps the job's embedded
// analyzer standing by, the job's analyzer (the same Analyzer the embedded mode runs: window
// -> metrics -> planner -> actuator), its decision log, and the coscheduler's moves for it.
//
// Each period the daemon calls sample() on every job, then hands each the cores it may use
// and its windows (analyze()), and carries out coscheduling moves (coschedule()); tick()
// advances moves in flight in between.

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "private_directory.hpp"
#include "symmer/analysis/analyzer.hpp"
#include "symmer/analysis/segment_rank_control.hpp"
#include "symmer/analysis/segment_window.hpp"
#include "symmer/said_once.hpp"
#include "symmer/segment/claim.hpp"

namespace symmer::daemon {

/// CLOCK_REALTIME in seconds (times shown to people: started_at, adopted_at, a decision's "at").
inline double wall_clock_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// What a job's analysis runs with; the daemon-wide settings plus the job's own.
struct JobSettings {
  analysis::AnalyzerConfig analyzer;  ///< daemon config + the job's policy overrides
  bool paused = false;                ///< no analysis and no moves (still sampled)
};

/// Per-rank figures of the latest window, for status replies and the coscheduler.
struct RankView {
  int local_rank = -1;
  int global_rank = -1;
  int pid = 0;
  int cpu = -1;                   ///< Linux CPU it last published from
  std::vector<int> cpus_allowed;  ///< its affinity (/proc/<pid>/status)
  int bound_core = -1;            ///< logical core its affinity is confined to, -1 if none
  std::optional<analysis::RankWindow> window;  ///< latest window, when there is one
};

class ManagedJob {
 public:
  /// Opens the segment at `path` for its claim and commands and takes the first sample, read
  /// within `read` (the daemon's bounds). `log_dir` (when open) receives the job's decision
  /// log, <segment name>.jsonl; `order` is the adoption order.
  static Expected<std::unique_ptr<ManagedJob>> open(
      const std::string& path, const DirectoryFd& log_dir, const topology::NodeModel& node,
      JobSettings settings, int order, analysis::TimePoint now, const segment::ReadOptions& read);
  ~ManagedJob();

  const std::string& path() const { return path_; }
  const std::string& key() const { return key_; }  ///< segment file name
  const segment::SegmentSnapshot& snapshot() const { return previous_.segment; }
  std::uint64_t job_id() const { return snapshot().header.job_id; }
  uid_t owner_uid() const { return static_cast<uid_t>(snapshot().header.owner_uid); }
  int order() const { return order_; }

  /// Takes or renews the job's claim for this daemon for `lease_ns` (segment/claim.hpp);
  /// `found` (may be null) receives the claim as it was.
  segment::ClaimOutcome claim(std::uint64_t lease_ns, segment::Claim* found = nullptr);
  /// The claim in the segment now.
  segment::Claim holder() const { return claim_.recorded(); }
  /// True while this daemon holds the job (it analyses and moves it).
  bool claimed() const { return claimed_; }
  /// Lets the next analyzer (the embedded one) take over at once.
  void release();
  /// Removes the segment of an ended job (when its name still leads to this file).
  void remove_segment() const { claim_.file().remove(); }

  enum class SampleOutcome { kOk, kGone, kDead, kUnreadable, kSkipped };
  /// Takes a new sample, read within `read`; the window since the previous one becomes
  /// `ranks()`' windows. kSkipped: `read.admit` refused it for this period (its error).
  SampleOutcome sample(const topology::ProcReader& proc, analysis::TimePoint now,
                       const segment::ReadOptions& read);
  /// Why the last sample failed (kUnreadable).
  const std::string& sample_error() const { return sample_error_; }

  /// Feeds the latest window to the analyzer (unless paused or a coscheduling move runs),
  /// with the cores the job may use.
  void analyze(const std::vector<int>& allowed_cores, analysis::TimePoint now);
  /// Advances moves in flight; true while some are.
  bool tick(analysis::TimePoint now);
  /// Ends the analysis of a job that goes: its summary event (what each symptom lasted, the
  /// time recovered) joins the new events.
  void finish(analysis::TimePoint now);
  /// True while the analyzer or the coscheduler has moves in flight.
  bool busy() const { return analyzer_busy_ || coschedule_running_.has_value(); }
  /// True when local rank `r` moved (by the coscheduler) within the hold-off.
  bool held(int local_rank, analysis::TimePoint now) const;

  /// Carries out coscheduling moves (or only logs them as advice when advice_only): false,
  /// starting nothing, when the job is paused, busy, or the actuator refused.
  bool coschedule(const std::vector<analysis::Move>& moves, const nlohmann::json& evidence,
                  analysis::TimePoint now);

  const JobSettings& settings() const { return settings_; }
  /// Replaces the settings; the analyzer restarts with them when the analysis changed.
  void set_settings(JobSettings settings, analysis::TimePoint now);

  const std::vector<RankView>& ranks() const { return ranks_; }
  const std::optional<analysis::WindowSample>& window() const { return window_; }
  const analysis::Analyzer& analyzer() const { return *analyzer_; }
  /// Decision-log events written since the previous call, oldest first.
  std::vector<nlohmann::json> take_new_events();
  /// The job as JSON (jobs replies).
  nlohmann::json to_json(analysis::TimePoint now) const;
  /// Its ranks as JSON (ranks replies).
  nlohmann::json ranks_json() const;

 private:
  ManagedJob(std::string path, const DirectoryFd& log_dir, const topology::NodeModel& node,
             segment::JobClaim claim, segment::SegmentControl commands,
             analysis::SegmentSample first, JobSettings settings, int order,
             analysis::TimePoint now);
  void build_analyzer(analysis::TimePoint now);
  void log(nlohmann::json event, analysis::TimePoint now);
  /// Says `problem` once (log line and decision-log fault).
  void say(const std::string& problem);
  void update_ranks();
  /// Whether the process of a slot is one of the job's (checked once per process).
  bool verified(int pid, std::uint64_t start_ticks);

  std::string path_;
  std::string key_;
  topology::NodeModel node_;
  segment::JobClaim claim_;
  analysis::DecisionLog log_;
  SaidOnce said_;
  analysis::SegmentRankControl ranks_control_;
  JobSettings settings_;
  int order_;
  double adopted_realtime_s_ = 0;
  analysis::TimePoint start_;
  std::unique_ptr<analysis::Analyzer> analyzer_;
  bool analyzer_busy_ = false;
  bool rebuild_pending_ = false;  // new settings wait for the analyzer's moves to finish
  bool finished_ = false;         // the analyzer wrote its summary
  bool claimed_ = false;
  analysis::SegmentSample previous_;
  std::optional<analysis::WindowSample> window_;
  std::vector<RankView> ranks_;
  std::string sample_error_;
  std::map<std::pair<int, std::uint64_t>, bool> verified_;  // (pid, start ticks) -> a member
  bool said_foreign_pid_ = false;
  // Coscheduling: its own actuator on the same ranks, used only while the analyzer is idle.
  std::unique_ptr<analysis::Actuator> coschedule_actuator_;
  std::optional<analysis::Plan> coschedule_running_;
  std::uint64_t next_coschedule_plan_ = 1'000'000;  // apart from the planner's plan ids
  struct Evaluation {
    std::uint64_t plan = 0;
    double progress_before = 0;
    int windows_seen = 0;
  };
  std::optional<Evaluation> evaluating_;
  std::map<int, analysis::TimePoint> moved_at_;
  int coschedule_moves_ = 0;
  int coschedule_advice_ = 0;
  std::optional<nlohmann::json> last_seen_event_;
};

/// The Linux CPUs process `pid` may run on (/proc/<pid>/status Cpus_allowed_list); empty when
/// it cannot be read.
std::vector<int> cpus_allowed(int pid);

}  // namespace symmer::daemon
