// SPDX-License-Identifier: BSD-3-Clause
// Analyzer orchestration (see analyzer.hpp).
#include "symmer/analysis/analyzer.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace symmer::analysis {
namespace {

double seconds(std::chrono::nanoseconds d) { return std::chrono::duration<double>(d).count(); }

// Decisions and symptoms that repeat unchanged are logged again only after this long.
constexpr auto kRepeatLog = std::chrono::seconds(10);

}  // namespace

Analyzer::Analyzer(AnalyzerConfig config, topology::NodeModel node, RankControl* control,
                   DecisionLog& decision_log, TimePoint start, AnalyzerHooks hooks)
    : config_(std::move(config)),
      node_(std::move(node)),
      control_(control),
      log_(decision_log),
      start_(start),
      hooks_(std::move(hooks)) {
  if (!hooks_.hot_ranges) hooks_.hot_ranges = topology::hot_ranges;
  if (!hooks_.move_pages) hooks_.move_pages = topology::system_move_pages();
  std::vector<std::unique_ptr<Metric>> metrics;
  for (const auto& name : config_.metrics)
    if (auto m = make_metric(name)) metrics.push_back(std::move(m));
  planner_ = std::make_unique<Planner>(config_.planner, std::move(metrics));
  if (control_ != nullptr) actuator_ = std::make_unique<Actuator>(*control_, config_.actuator);
  for (const auto& c : node_.cores()) allowed_.push_back(c.index);
  if (!log_.error().empty()) spdlog::warn("symmer: {} (decisions are not recorded)", log_.error());
  if (!config_.enabled) return;
  log({{"event", "config"},
       {"config", to_json(config_)},
       {"node", node_.source()},
       {"mode", config_.advice_only || control_ == nullptr ? "advice" : "act"}},
      start);
}

void Analyzer::set_allowed_cores(std::vector<int> cores) { allowed_ = std::move(cores); }

void Analyzer::log(nlohmann::json event, TimePoint now) {
  event["t_s"] = seconds(now - start_);
  log_.write(event);
  report_.add(event);
}

std::vector<int> Analyzer::free_cores(const WindowSample& window) const {
  std::vector<int> out;
  for (int c : allowed_) {
    const bool used = std::any_of(window.ranks.begin(), window.ranks.end(),
                                  [&](const RankWindow& r) { return r.core == c; });
    if (!used) out.push_back(c);
  }
  return out;
}

void Analyzer::on_window(const WindowSample& window, TimePoint now) {
  if (!config_.enabled) return;
  const auto problems = validate(window, node_);
  if (!problems.empty()) {
    std::string message = "window rejected:";
    for (const auto& p : problems) message += " " + p + ";";
    if (said_.first(message)) {  // a corrupt segment would repeat it every period
      spdlog::warn("symmer: {}", message);
      log({{"event", "fault"}, {"message", message}}, now);
    }
    return;
  }
  if (running_) {  // windows during moves describe no mapping
    history_.clear();
    return;
  }
  if (!history_.empty() && mapping_changed(history_.back(), window)) history_.clear();
  history_.push_back(window);
  while (static_cast<int>(history_.size()) > config_.evidence_windows) history_.pop_front();

  if (planner_->evaluating()) {
    if (auto e = planner_->observe(window, now)) {
      log({{"event", "evaluation"},
           {"plan", e->plan_id},
           {"progress_before", e->progress_before},
           {"progress_after", e->progress_after},
           {"observed_gain", e->observed_gain},
           {"harmful", e->harmful}},
          now);
      if (e->rollback) {
        spdlog::warn("symmer: plan {} slowed the job ({:.1f} -> {:.1f} calls/s); rolling back",
                     e->plan_id, e->progress_before, e->progress_after);
        start(*e->rollback, now);
      }
    }
    return;
  }
  if (history_.size() >= 2) plan(now);
}

void Analyzer::plan(TimePoint now) {
  const std::vector<WindowSample> span(history_.begin(), history_.end());
  const auto half = static_cast<std::ptrdiff_t>(span.size() / 2);
  const WindowSample evidence = aggregate(span);
  const WindowSample first = aggregate(std::span(span.begin(), span.begin() + half));
  const WindowSample second = aggregate(std::span(span.begin() + half, span.end()));
  MetricContext context{node_, evidence, &first, &second, free_cores(evidence)};
  const PlanningRound round = planner_->plan(context, allowed_, now);
  log_round(round, now);
  if (round.plan) start(*round.plan, now);
}

void Analyzer::log_round(const PlanningRound& round, TimePoint now) {
  const auto changed = [&](const std::string& key, const std::string& value) {
    const auto it = last_logged_.find(key);
    if (it != last_logged_.end() && it->second.first == value &&
        now - it->second.second < kRepeatLog)
      return false;
    last_logged_[key] = {value, now};
    return true;
  };
  const auto newest = std::chrono::nanoseconds(history_.back().duration_ns);
  for (const auto& [metric, symptom] : round.symptoms) {
    // A symptom counts as gone only after a whole evidence span without it: borderline
    // figures would otherwise flip it on and off every window.
    int& absent = absent_for_[metric];
    absent = symptom.present ? 0 : absent + 1;
    if (!symptom.present && absent < config_.evidence_windows) continue;
    if (symptom.present)
      onset_.try_emplace(metric, now - newest);  // it shows at least in the newest window
    else
      onset_.erase(metric);
    if (changed("symptom:" + metric, symptom.present ? "present" : "absent") &&
        (symptom.present || report_.symptoms().count(metric) != 0))
      log({{"event", "symptom"},
           {"metric", metric},
           {"present", symptom.present},
           {"severity", symptom.severity},
           {"evidence", symptom.evidence}},
          now);
  }
  // The best proposal of each source, and every accepted one.
  std::set<std::string> seen;
  for (const auto& d : round.decisions) {
    const bool first = seen.insert(d.proposal.metric).second;
    if (!first && d.verdict != Verdict::kAccepted) continue;
    const std::string value = std::string(to_string(d.verdict)) + " " + to_string(d.proposal.moves);
    if (d.verdict != Verdict::kAccepted && !changed("decision:" + d.proposal.metric, value))
      continue;
    log({{"event", "decision"},
         {"metric", d.proposal.metric},
         {"moves", to_json(d.proposal.moves)},
         {"verdict", to_string(d.verdict)},
         {"gain", d.proposal.gain},
         {"gain_s", d.proposal.gain_s},
         {"confidence", d.proposal.confidence},
         {"net_gain", d.net_gain},
         {"predictions", d.predictions},
         {"evidence", d.proposal.evidence}},
        now);
  }
}

void Analyzer::start(const Plan& plan, TimePoint now) {
  nlohmann::json event = {{"event", "plan"},
                          {"plan", plan.id},
                          {"moves", to_json(plan.moves)},
                          {"metrics", plan.metrics},
                          {"predicted_gain", plan.predicted_gain},
                          {"rollback", plan.rollback}};
  if (plan.rollback) event["undoes"] = plan.undoes;
  if (config_.advice_only || actuator_ == nullptr) {
    event["event"] = "advice";
    std::string from;
    for (const auto& m : plan.metrics) from += (from.empty() ? "" : ", ") + m;
    spdlog::info("symmer advice: {} (predicted gain {:.1f}%, from {})", to_string(plan.moves),
                 100.0 * plan.predicted_gain, from);
    log(event, now);
    planner_->abandoned(plan, now);  // the hold-off keeps the advice from repeating
    return;
  }
  const WindowSample& latest = history_.back();
  std::map<int, int> placement;
  for (const auto& r : latest.ranks)
    if (r.core >= 0) placement[r.local_rank] = r.core;
  if (!actuator_->start(plan, placement, free_cores(latest), now)) {
    const std::string message =
        "plan " + std::to_string(plan.id) + " not started: " + actuator_->refusal();
    spdlog::warn("symmer: {}", message);
    log({{"event", "fault"}, {"message", message}}, now);
    planner_->abandoned(plan, now);
    return;
  }
  log(event, now);
  running_ = plan;
}

void Analyzer::finished(const ActuationResult& result, TimePoint now) {
  const Plan plan = *running_;
  running_.reset();
  nlohmann::json event = result.to_json();
  event["event"] = "actuation";
  event["rollback"] = plan.rollback;
  if (plan.rollback) event["undoes"] = plan.undoes;
  if (result.completed && !plan.rollback) {
    std::optional<TimePoint> onset;
    for (const auto& m : plan.metrics)
      if (const auto it = onset_.find(m); it != onset_.end())
        onset = onset ? std::min(*onset, it->second) : it->second;
    if (onset) event["reaction_s"] = seconds(now - *onset);
  }
  for (const auto& f : result.faults) spdlog::warn("symmer: plan {}: {}", plan.id, f);
  log(event, now);
  if (result.completed)
    planner_->applied(plan, now);
  else
    planner_->abandoned(plan, now);
  // Memory follows ranks that crossed NUMA nodes.
  const WindowSample* latest = history_.empty() ? nullptr : &history_.back();
  for (const auto& m : result.done) {
    if (!m.migrate_pages || latest == nullptr) continue;
    const RankWindow* r = latest->find_local(m.local_rank);
    if (r == nullptr) continue;
    const auto& core = node_.cores()[static_cast<std::size_t>(m.to_core)];
    const int os_node = node_.numa_nodes()[static_cast<std::size_t>(core.numa_node)].os_index;
    migrations_.emplace_back(r->pid, os_node, hooks_.hot_ranges(r->pid, os_node), config_.migration,
                             hooks_.move_pages);
    log({{"event", "migration"},
         {"rank", m.local_rank},
         {"pid", r->pid},
         {"node", os_node},
         {"state", "started"}},
        now);
  }
  history_.clear();
}

bool Analyzer::tick(TimePoint now) {
  if (!config_.enabled) return false;
  if (running_ && actuator_ != nullptr)
    if (auto result = actuator_->poll(now)) finished(*result, now);
  for (auto it = migrations_.begin(); it != migrations_.end();) {
    it->step();  // one bounded call per tick: the rank is never stalled for long
    if (!it->done()) {
      ++it;
      continue;
    }
    const auto& s = it->stats();
    log({{"event", "migration"},
         {"pid", it->pid()},
         {"node", it->node()},
         {"state", s.error.empty() ? "done" : "failed"},
         {"pages_requested", s.pages_requested},
         {"pages_on_target", s.pages_on_target},
         {"pages_absent", s.pages_absent},
         {"pages_failed", s.pages_failed},
         {"calls", s.calls},
         {"longest_call_s", seconds(s.longest_call)},
         {"error", s.error}},
        now);
    if (!s.error.empty()) spdlog::warn("symmer: {}", s.error);
    it = migrations_.erase(it);
  }
  return running_.has_value() || !migrations_.empty();
}

const Report& Analyzer::finish(TimePoint now, const nlohmann::json& details) {
  if (!config_.enabled) return report_;
  nlohmann::json event = {{"event", "summary"}};
  if (details.is_object()) event.update(details);
  log(std::move(event), now);
  return report_;
}

}  // namespace symmer::analysis
