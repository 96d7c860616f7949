// SPDX-License-Identifier: BSD-3-Clause
// The analyzer on a node segment (see segment_analysis.hpp).
#include "symmer/analysis/segment_analysis.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>

#include "symmer/topology/page_migration.hpp"

namespace symmer::analysis {

AnalyzerHooks guarded_hooks(const SegmentRankControl& control) {
  AnalyzerHooks hooks;
  hooks.hot_ranges = [&control](int pid, int node) {
    if (!control.may_act_on(pid)) return std::vector<topology::MemoryRange>{};
    return topology::hot_ranges(pid, node);
  };
  hooks.move_pages = [&control, move = topology::system_move_pages()](
                         int pid, unsigned long count, void** pages, const int* nodes, int* status,
                         int flags) -> long {
    if (!control.may_act_on(pid)) {
      errno = EPERM;
      return -1;
    }
    return move(pid, count, pages, nodes, status, flags);
  };
  return hooks;
}

Expected<std::unique_ptr<SegmentAnalysis>> SegmentAnalysis::open(const std::string& path,
                                                                 AnalyzerConfig config,
                                                                 topology::NodeModel node,
                                                                 TimePoint now,
                                                                 const segment::JobClaim* claim) {
  auto control = segment::SegmentControl::open(path);
  if (!control) return std::move(control).error();
  auto first = read_segment_sample(path, topology::ProcReader("/proc"));
  if (!first) return std::move(first).error();
  return std::unique_ptr<SegmentAnalysis>(new SegmentAnalysis(path, std::move(config),
                                                              std::move(node), std::move(*control),
                                                              std::move(*first), now, claim));
}

SegmentAnalysis::SegmentAnalysis(std::string path, AnalyzerConfig config, topology::NodeModel node,
                                 segment::SegmentControl control, SegmentSample first,
                                 TimePoint now, const segment::JobClaim* claim)
    : path_(std::move(path)),
      node_(node),
      proc_("/proc"),
      control_(std::move(control), node, claim, [this](const std::string& why) { say(why); }),
      log_(config.decision_log, 256, published_log_path(path_)),
      previous_(std::move(first)) {
  control_.update(previous_.segment);
  RankControl* actuate = config.advice_only ? nullptr : &control_;
  analyzer_ = std::make_unique<Analyzer>(std::move(config), std::move(node), actuate, log_, now,
                                         guarded_hooks(control_));
}

void SegmentAnalysis::say(const std::string& problem) {
  if (said_.first(problem)) spdlog::warn("symmer: {}", problem);
}

void SegmentAnalysis::sample(TimePoint now) {
  auto next = read_segment_sample(path_, proc_);
  if (!next) {
    say("cannot sample the node segment: " + next.error().message);
    return;
  }
  control_.update(next->segment);
  note_rank_cores(next->segment);
  std::vector<std::string> notes;
  auto window = window_between(previous_, *next, node_, &notes, analyzer_->config().domain);
  previous_ = std::move(*next);
  for (const auto& n : notes) spdlog::debug("symmer: {}", n);
  if (!window) {
    say(window.error().message);
    return;
  }
  analyzer_->on_window(*window, now);
}

void SegmentAnalysis::note_rank_cores(const segment::SegmentSnapshot& snapshot) {
  // From every slot, not from the window: a rank still registering, or without an earlier
  // sample, is missing from the window, and its core is not spare.
  rank_cores_.clear();
  ranks_placed_ = true;
  for (const auto& slot : snapshot.slots) {
    if (slot.state() == segment::SlotState::kFinished) continue;
    const int cpu = slot.state() == segment::SlotState::kActive
                        ? static_cast<int>(slot.identity.cpu)
                        : -1;  // not registered yet
    const int core = cpu >= 0 ? node_.core_of_pu(cpu) : -1;
    if (core < 0) ranks_placed_ = false;
    rank_cores_.push_back(core);
  }
}

std::vector<int> SegmentAnalysis::spare_pus() const {
  std::vector<int> pus;
  if (!ranks_placed_) return pus;
  for (const auto& core : node_.cores()) {
    if (std::find(rank_cores_.begin(), rank_cores_.end(), core.index) != rank_cores_.end())
      continue;
    pus.insert(pus.end(), core.pus.begin(), core.pus.end());
  }
  return pus;
}

}  // namespace symmer::analysis
