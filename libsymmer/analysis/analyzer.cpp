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

std::vector<int> Analyzer::allowed_in(const WindowSample& window) const {
  if (window.domain.empty()) return allowed_;
  std::vector<int> out;
  for (int c : allowed_)
    if (std::binary_search(window.domain.begin(), window.domain.end(), c)) out.push_back(c);
  return out;
}

std::map<int, std::vector<int>> Analyzer::free_places(const WindowSample& window) const {
  const std::vector<int> allowed = allowed_in(window);
  const auto ok = [&](int c) { return std::find(allowed.begin(), allowed.end(), c) != allowed.end(); };
  std::map<int, std::vector<int>> out;
  if (window.places.empty()) {  // a window without placement: every allowed core is a place
    for (int c : allowed)
      if (std::none_of(window.ranks.begin(), window.ranks.end(),
                       [&](const RankWindow& r) { return r.core == c; }))
        out[c] = {c};
    return out;
  }
  for (int key : window.free_places()) {
    const auto cores = window.place_cores(key);
    if (std::all_of(cores.begin(), cores.end(), ok)) out[key] = cores;
  }
  return out;
}

std::vector<int> Analyzer::free_keys(const WindowSample& window) const {
  std::vector<int> keys;
  for (const auto& [key, cores] : free_places(window)) keys.push_back(key);
  return keys;
}

WindowSample Analyzer::with_outside_binds(const WindowSample& window) {
  WindowSample w = window;
  for (auto it = bound_from_outside_.begin(); it != bound_from_outside_.end();) {
    const auto r = std::find_if(w.ranks.begin(), w.ranks.end(),
                                [&](const RankWindow& x) { return x.local_rank == it->first; });
    if (r == w.ranks.end() || r->cores == it->second || w.places.count(it->second.front()) == 0) {
      it = bound_from_outside_.erase(it);  // gone, caught up, or no longer a place of the job
      continue;
    }
    r->core = it->second.front();
    r->cores = it->second;
    ++it;
  }
  return w;
}

void Analyzer::on_window(const WindowSample& published, TimePoint now) {
  if (!config_.enabled) return;
  const auto problems = validate(published, node_);
  if (!problems.empty()) {
    std::string message = "window rejected:";
    for (const auto& p : problems) message += " " + p + ";";
    if (said_.first(message)) {  // a corrupt segment would repeat it every period
      spdlog::warn("symmer: {}", message);
      log({{"event", "fault"}, {"message", message}}, now);
    }
    return;
  }
  const WindowSample window = with_outside_binds(published);
  // Windows during moves describe no mapping, nor those while a rank that did not answer in
  // time may still act on its move (Actuator::settled).
  if (running_ || (actuator_ != nullptr && !actuator_->settled())) {
    history_.clear();
    return;
  }
  if (!history_.empty() && mapping_changed(history_.back(), window)) history_.clear();
  history_.push_back(window);
  while (static_cast<int>(history_.size()) > config_.evidence_windows) history_.pop_front();
  account_progress(window);

  if (planner_->evaluating()) {
    if (history_.size() >= 2) account_symptoms(planner_->symptoms(context()), now);
    if (auto e = planner_->observe(window, now)) {
      log({{"event", "evaluation"},
           {"plan", e->plan_id},
           {"progress_before", e->progress_before},
           {"progress_after", e->progress_after},
           {"observed_gain", e->observed_gain},
           {"conclusive", e->conclusive},
           {"harmful", e->harmful}},
          now);
      // Rates that said nothing about the plan estimate nothing of what it recovered either.
      if (!e->conclusive && recovering_ && recovering_->plan == e->plan_id) recovering_.reset();
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

Analyzer::Evidence::Evidence(const std::deque<WindowSample>& history) {
  const std::vector<WindowSample> span(history.begin(), history.end());
  const auto half = static_cast<std::ptrdiff_t>(span.size() / 2);
  all = aggregate(span);
  first = aggregate(std::span(span.begin(), span.begin() + half));
  second = aggregate(std::span(span.begin() + half, span.end()));
}

MetricContext Analyzer::context() {
  evidence_ = Evidence(history_);
  return MetricContext{node_, evidence_.all, &evidence_.first, &evidence_.second,
                       free_keys(evidence_.all)};
}

void Analyzer::plan(TimePoint now) {
  const MetricContext ctx = context();
  const PlanningRound round = planner_->plan(ctx, allowed_in(evidence_.all), now);
  account_symptoms(round.symptoms, now);
  log_round(round, now);
  if (round.plan) start(*round.plan, now);
}

void Analyzer::account_symptoms(const std::map<std::string, Symptom>& symptoms, TimePoint now) {
  const double t = seconds(now - start_);
  const auto idle_s = [](const WindowSample& w) {
    double sum = 0.0;
    for (const auto& r : w.ranks) sum += static_cast<double>(r.idle_ns) * 1e-9;
    return sum;
  };
  for (const auto& [metric, symptom] : symptoms) {
    SymptomTotal& s = symptom_totals_[metric];
    if (!symptom.present) continue;
    s.max_severity = std::max(s.max_severity, symptom.severity);
    // It shows over the whole evidence span: it began at least that long ago. A window an
    // earlier evaluation counted is not counted again (told by its middle: consecutive
    // windows' edges may differ by a rounding).
    double span_s = 0.0;
    for (const auto& w : history_) {
      if (w.start_ns + w.duration_ns / 2 < s.counted_until_ns) continue;
      span_s += w.duration_s();
      s.wait_s += idle_s(w);
    }
    s.duration_s += span_s;
    if (s.onset_s < 0) s.onset_s = std::max(0.0, t - span_s);
    s.counted_until_ns = history_.back().start_ns + history_.back().duration_ns;
    s.last_s = t;
  }
}

void Analyzer::account_progress(const WindowSample& window) {
  if (!recovering_) return;
  std::uint64_t least = window.ranks.empty() ? 0 : window.ranks.front().calls;
  for (const auto& r : window.ranks) least = std::min(least, r.calls);
  recovering_->calls_after += static_cast<double>(least);
  recovering_->seconds_after += window.duration_s();
}

nlohmann::json Analyzer::totals_json() const {
  nlohmann::json symptoms = nlohmann::json::object();
  for (const auto& [metric, s] : symptom_totals_)
    if (s.onset_s >= 0)
      symptoms[metric] = {{"onset_s", s.onset_s},
                          {"last_s", s.last_s},
                          {"duration_s", s.duration_s},
                          {"wait_s", s.wait_s},
                          {"max_severity", s.max_severity}};
  nlohmann::json plans = nlohmann::json::array();
  double estimate = 0.0;
  for (const auto& r : recoveries_) {
    if (r.rate_before <= 0.0 || r.seconds_after <= 0.0) continue;
    // The work done after the plan, at the pace before it, against the time it took.
    const double would_take = r.calls_after / r.rate_before;
    plans.push_back({{"plan", r.plan},
                     {"calls_after", r.calls_after},
                     {"seconds_after", r.seconds_after},
                     {"rate_before", r.rate_before},
                     {"estimate_s", would_take - r.seconds_after}});
    estimate += would_take - r.seconds_after;
  }
  return {{"symptoms", symptoms},
          {"recovered", {{"estimate_s", estimate}, {"plans", plans}}}};
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
  // A symptom without any remedy to weigh: say so once (the report names it). With no rank
  // placed (all launched unbound with several threads each) that, not the cores, is why.
  const auto& ranks = history_.back().ranks;
  const bool unplaced =
      !ranks.empty() &&
      std::all_of(ranks.begin(), ranks.end(), [](const RankWindow& r) { return r.core < 0; });
  const char* verdict = unplaced ? "unplaced" : "no_better_core";
  for (const auto& [metric, symptom] : round.symptoms) {
    if (!symptom.present) continue;
    // clang 14 cannot capture a structured binding: name it.
    const bool proposed =
        std::any_of(round.decisions.begin(), round.decisions.end(),
                    [&m = metric](const Decision& d) { return d.proposal.metric == m; });
    if (!proposed && changed("decision:" + metric, verdict))
      log({{"event", "decision"},
           {"metric", metric},
           {"moves", nlohmann::json::array()},
           {"verdict", verdict},
           {"gain", 0.0},
           {"confidence", 0.0},
           {"evidence",
            {{"symptom", symptom.evidence}, {"free_places", free_keys(history_.back()).size()}}}},
          now);
  }
  // The best proposal of each source, and every accepted one.
  std::set<std::string> seen;
  for (const auto& d : round.decisions) {
    const bool first = seen.insert(d.proposal.metric).second;
    if (!first && d.verdict != Verdict::kAccepted) continue;
    const std::string value =
        std::string(to_string(d.verdict)) + " " + to_string(d.proposal.moves, &node_);
    if (d.verdict != Verdict::kAccepted && !changed("decision:" + d.proposal.metric, value))
      continue;
    log({{"event", "decision"},
         {"metric", d.proposal.metric},
         {"moves", to_json(d.proposal.moves, &node_)},
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
                          {"moves", to_json(plan.moves, &node_)},
                          {"metrics", plan.metrics},
                          {"predicted_gain", plan.predicted_gain},
                          {"rollback", plan.rollback}};
  if (plan.rollback) event["undoes"] = plan.undoes;
  if (config_.advice_only || actuator_ == nullptr) {
    event["event"] = "advice";
    std::string from;
    for (const auto& m : plan.metrics) from += (from.empty() ? "" : ", ") + m;
    spdlog::info("symmer advice: {} (predicted gain {:.1f}%, from {})", to_string(plan.moves, &node_),
                 100.0 * plan.predicted_gain, from);
    log(event, now);
    planner_->abandoned(plan, now);  // the hold-off keeps the advice from repeating
    return;
  }
  const WindowSample& latest = history_.back();
  std::map<int, int> placement;
  for (const auto& r : latest.ranks)
    if (r.core >= 0) placement[r.local_rank] = r.core;
  if (!actuator_->start(plan, placement, free_places(latest), now)) {
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
  event["moves_in_effect"] = to_json(result.done, &node_);
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
  for (const auto& m : result.done)
    if (const auto b = result.bound_from_outside.find(m.local_rank);
        b != result.bound_from_outside.end() && b->second == m.to_cores)
      bound_from_outside_[m.local_rank] = b->second;
  log(event, now);
  if (result.completed)
    planner_->applied(plan, now);
  else
    planner_->abandoned(plan, now);
  // What each kept plan recovers is measured from here to the next plan (or the end).
  if (recovering_) recoveries_.push_back(*recovering_);
  recovering_.reset();
  // (A plan rolled back keeps what it cost until the rollback.)
  if (!plan.rollback && result.completed)
    recovering_ = Recovery{plan.id, plan.progress_before, 0.0, 0.0};
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
  if (recovering_) recoveries_.push_back(*recovering_);
  recovering_.reset();
  event.update(totals_json());
  if (details.is_object()) event.update(details);
  log(std::move(event), now);
  return report_;
}

}  // namespace symmer::analysis
