// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The analyzer attached to one job's node segment: every `window` it samples the segment,
// /proc and the ranks' CPU time, hands the window to the Analyzer, and carries out moves
// through the segment's command words. The embedded analyzer thread (local rank 0) and
// symmerd drive it; it never calls MPI and never blocks.

#include <memory>
#include <string>
#include <vector>

#include "symmer/analysis/analyzer.hpp"
#include "symmer/analysis/segment_rank_control.hpp"
#include "symmer/analysis/segment_window.hpp"
#include "symmer/expected.hpp"
#include "symmer/said_once.hpp"

namespace symmer::analysis {

/// Page migration hooks that act on a process only when `control` may act on it
/// (SegmentRankControl::may_act_on): a segment may name any pid.
AnalyzerHooks guarded_hooks(const SegmentRankControl& control);

class SegmentAnalysis {
 public:
  /// Opens the segment at `path` for commands and takes the first sample; `claim` (may be
  /// null) is the job's claim, which must be held for the analysis to act. Errors: the segment
  /// cannot be read.
  static Expected<std::unique_ptr<SegmentAnalysis>> open(const std::string& path,
                                                         AnalyzerConfig config,
                                                         topology::NodeModel node, TimePoint now,
                                                         const segment::JobClaim* claim = nullptr);

  /// Takes a sample and feeds the window since the previous one to the analyzer. An
  /// unreadable segment is reported (once per distinct message) and skipped.
  void sample(TimePoint now);
  /// Advances moves in flight; true while the caller should tick again soon.
  bool tick(TimePoint now) { return analyzer_->tick(now); }
  /// Ends the analysis: the summary event (with `details`, see Analyzer::finish), and the
  /// report.
  const Report& finish(TimePoint now, const nlohmann::json& details = nlohmann::json::object()) {
    return analyzer_->finish(now, details);
  }
  const Analyzer& analyzer() const { return *analyzer_; }
  /// OS indices of the PUs of cores no rank of the job ran on at the latest sample (where the
  /// analysis can run without taking time from a rank); empty when none, or while a rank's
  /// core is not known (not registered yet).
  std::vector<int> spare_pus() const;

 private:
  SegmentAnalysis(std::string path, AnalyzerConfig config, topology::NodeModel node,
                  segment::SegmentControl control, SegmentSample first, TimePoint now,
                  const segment::JobClaim* claim);
  void say(const std::string& problem);

  std::string path_;
  topology::NodeModel node_;
  topology::ProcReader proc_;
  SegmentRankControl control_;
  DecisionLog log_;
  std::unique_ptr<Analyzer> analyzer_;
  SegmentSample previous_;
  SaidOnce said_;
  void note_rank_cores(const segment::SegmentSnapshot& snapshot);

  std::vector<int> rank_cores_;  // cores of the ranks at the latest sample
  bool ranks_placed_ = false;    // every rank's core known at the latest sample
};

}  // namespace symmer::analysis
