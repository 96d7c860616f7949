// SPDX-License-Identifier: BSD-3-Clause
// Planner: proposals -> plans, hysteresis, rollback (see planner.hpp).
#include "symmer/analysis/planner.hpp"

#include <algorithm>

#include "candidates.hpp"
#include "symmer/analysis/assignment.hpp"
#include "symmer/analysis/compute_model.hpp"
#include "symmer/topology/node_model.hpp"

namespace symmer::analysis {

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kAccepted:
      return "accepted";
    case Verdict::kLowConfidence:
      return "low_confidence";
    case Verdict::kBelowThreshold:
      return "below_threshold";
    case Verdict::kConflict:
      return "conflict";
    case Verdict::kHeld:
      return "held";
    case Verdict::kBanned:
      return "banned";
    case Verdict::kNumaRefused:
      return "numa_refused";
    case Verdict::kNotAllowed:
      return "not_allowed";
    case Verdict::kOverlap:
      return "overlap";
    case Verdict::kReversal:
      return "reversal";
  }
  return "unknown";
}

std::uint64_t least_calls(const WindowSample& window) {
  std::uint64_t least = window.ranks.empty() ? 0 : window.ranks.front().calls;
  for (const auto& r : window.ranks) least = std::min(least, r.calls);
  return least;
}

double progress_rate(const WindowSample& window) {
  if (window.duration_ns == 0 || window.ranks.empty()) return 0.0;
  return static_cast<double>(least_calls(window)) / window.duration_s();
}

Planner::Planner(PlannerOptions options, std::vector<std::unique_ptr<Metric>> metrics)
    : options_(options), metrics_(std::move(metrics)) {}

bool Planner::held(int local_rank, TimePoint now) const {
  const auto it = moved_at_.find(local_rank);
  return it != moved_at_.end() && now - it->second < options_.hold_off;
}

std::optional<Verdict> Planner::precheck(Proposal& p, const MetricContext& context,
                                         const std::vector<int>& allowed, TimePoint now) const {
  const auto& cores = context.node.cores();
  const auto numa = [&](int core) { return cores[static_cast<std::size_t>(core)].numa_node; };
  for (auto& m : p.moves) {
    if (held(m.local_rank, now)) return Verdict::kHeld;
    const auto ban = banned_.find({m.local_rank, m.to_core});
    if (ban != banned_.end() && now < ban->second) return Verdict::kBanned;
    // The whole sets the move exchanges, from the window: the rank's now, its target's.
    if (m.from_cores.empty())
      if (const RankWindow* r = context.evidence.find_local(m.local_rank); r && !r->cores.empty())
        m.from_cores = r->core >= 0 && r->cores.size() == context.evidence.place_cores(r->core).size()
                           ? context.evidence.place_cores(r->core)
                           : r->cores;
    if (m.to_cores.empty()) m.to_cores = context.evidence.place_cores(m.to_core);
    for (int c : m.to_cores)
      if (std::find(allowed.begin(), allowed.end(), c) == allowed.end())
        return Verdict::kNotAllowed;
    if (m.from_core >= 0 && numa(m.from_core) != numa(m.to_core)) {
      if (options_.numa_policy == NumaPolicy::kRefuse) return Verdict::kNumaRefused;
      m.migrate_pages = true;
    }
  }
  return std::nullopt;
}

PlanningRound Planner::plan(const MetricContext& context, const std::vector<int>& allowed_cores,
                            TimePoint now) {
  PlanningRound round;
  std::vector<int> allowed = allowed_cores;
  if (allowed.empty())
    for (const auto& c : context.node.cores()) allowed.push_back(c.index);

  std::vector<std::vector<Proposal>> per_source;
  bool any_symptom = false;
  for (const auto& metric : metrics_) {
    MetricResult r = metric->evaluate(context);
    any_symptom = any_symptom || r.symptom.present;
    round.symptoms[std::string(metric->name())] = std::move(r.symptom);
    per_source.push_back(std::move(r.proposals));
  }
  // The whole assignment places ranks core by core: with ranks of several cores (hybrid) the
  // pairwise proposals, which keep every set whole, are the only ones.
  const bool one_core_places =
      std::all_of(context.evidence.places.begin(), context.evidence.places.end(),
                  [](const auto& p) { return p.second.cores.size() == 1; });
  if (options_.mode == PlannerMode::kAssignment && any_symptom && one_core_places) {
    std::set<int> pinned;
    for (const auto& r : context.evidence.ranks)
      if (held(r.local_rank, now)) pinned.insert(r.local_rank);
    AssignmentOptions ao;
    ao.keep_numa_node = options_.numa_policy == NumaPolicy::kRefuse;
    const auto moves = whole_assignment(context.node, context.evidence, allowed, pinned, ao);
    if (!moves.empty()) {
      const auto gain = [](const WindowSample& w, std::span<const Move> m) {
        return ComputeModel(w).gain(cores_after(w, m));
      };
      auto priced = detail::price_candidates(
          context, "assignment", {moves}, gain, 1.0, [](std::span<const Move>) {
            return nlohmann::json{{"source", "whole assignment"}};
          });
      per_source.insert(per_source.begin(), std::move(priced));
    }
  }

  Plan plan;
  std::set<int> used_ranks;
  std::set<int> used_cores;
  for (auto& proposals : per_source) {
    for (auto& proposal : proposals) {
      Decision d;
      d.proposal = std::move(proposal);
      Proposal& p = d.proposal;
      bool accept = false;
      if (auto v = precheck(p, context, allowed, now)) {
        d.verdict = *v;
      } else {
        d.predictions = nlohmann::json::object();
        for (const auto& metric : metrics_) {
          const double g = metric->predict(context, p.moves);
          d.predictions[std::string(metric->name())] = g;
          d.net_gain += g;
        }
        if (p.metric == "assignment") {  // not one of the metrics: its own model counts too
          d.predictions["assignment"] = p.gain;
          if (!d.predictions.contains("idleness")) d.net_gain += p.gain;
        }
        double reversal_bar = options_.min_gain;  // a helpful move is undone only for more
        for (const auto& m : p.moves)
          if (const auto k = kept_.find({m.local_rank, m.to_core});
              k != kept_.end() && now < k->second.until)
            reversal_bar = std::max(reversal_bar, options_.min_gain + k->second.margin);
        bool overlap = false;
        for (const auto& m : p.moves)
          overlap = overlap || used_ranks.count(m.local_rank) != 0 ||
                    used_cores.count(m.from_core) != 0 || used_cores.count(m.to_core) != 0;
        if (p.confidence < options_.min_confidence)
          d.verdict = Verdict::kLowConfidence;
        else if (p.gain < options_.min_gain)
          d.verdict = Verdict::kBelowThreshold;
        else if (d.net_gain < options_.min_gain)
          d.verdict = Verdict::kConflict;
        else if (d.net_gain < reversal_bar)
          d.verdict = Verdict::kReversal;
        else if (overlap)
          d.verdict = Verdict::kOverlap;
        else
          accept = true;
      }
      if (accept) {
        d.verdict = Verdict::kAccepted;
        for (const auto& m : p.moves) {
          used_ranks.insert(m.local_rank);
          used_cores.insert(m.from_core);
          used_cores.insert(m.to_core);
          plan.moves.push_back(m);
        }
        plan.metrics.push_back(p.metric);
        plan.predicted_gain += d.net_gain;
      }
      round.decisions.push_back(std::move(d));
      if (accept) break;  // one proposal per metric and evaluation
    }
  }
  if (!plan.moves.empty()) {
    plan.id = next_id_++;
    plan.progress_before = progress_rate(context.evidence);
    plan.calls_before = least_calls(context.evidence);
    round.plan = std::move(plan);
  }
  return round;
}

std::map<std::string, Symptom> Planner::symptoms(const MetricContext& context) const {
  std::map<std::string, Symptom> out;
  for (const auto& metric : metrics_)
    out[std::string(metric->name())] = metric->evaluate(context).symptom;
  return out;
}

void Planner::hold(const Plan& plan, TimePoint now) {
  for (const auto& m : plan.moves) moved_at_[m.local_rank] = now;
}

void Planner::applied(const Plan& plan, TimePoint now) {
  hold(plan, now);
  if (!plan.rollback) watched_ = Watched{plan, 0, {}};
}

void Planner::abandoned(const Plan& plan, TimePoint now) { hold(plan, now); }

std::optional<PlanEvaluation> Planner::observe(const WindowSample& window, TimePoint now) {
  if (!watched_) return std::nullopt;
  if (watched_->skipped < 1) {  // the window the moves happened in is a transient
    ++watched_->skipped;
    return std::nullopt;
  }
  watched_->after.push_back(window);
  const int windows = static_cast<int>(watched_->after.size());
  if (windows < options_.evaluation_windows) return std::nullopt;
  const WindowSample after = aggregate(watched_->after);
  // Too few calls make the rate a coin toss: wait for more (within limits), unless the slowest
  // rank made none at all (a phase without MPI calls: its end is not in sight).
  const std::uint64_t least = least_calls(after);
  if (least > 0 && least < kMinEvaluationCalls && windows < 4 * options_.evaluation_windows)
    return std::nullopt;

  PlanEvaluation e;
  const Plan& plan = watched_->plan;
  e.plan_id = plan.id;
  e.progress_before = plan.progress_before;
  e.progress_after = progress_rate(after);
  e.conclusive = least >= kMinEvaluationCalls && plan.calls_before > 0;
  if (e.conclusive) {
    e.observed_gain = e.progress_after > 0.0 ? 1.0 - e.progress_before / e.progress_after : -1.0;
    e.harmful = e.progress_after < e.progress_before * (1.0 - options_.rollback_tolerance);
  }
  if (e.harmful) {
    Plan back;
    back.id = next_id_++;
    back.rollback = true;
    back.undoes = plan.id;
    back.metrics = plan.metrics;
    for (const auto& m : plan.moves) {
      back.moves.push_back({m.local_rank, m.to_core, m.from_core, m.migrate_pages, m.to_cores,
                            m.from_cores});
      banned_[{m.local_rank, m.to_core}] = now + options_.rollback_ban;
    }
    e.rollback = std::move(back);
  } else {
    // Its reversal must gain more than it did, and more than the model overestimated it by:
    // the model that misjudged this move misjudges its reverse alike.
    const double overestimate =
        e.conclusive ? std::max(0.0, plan.predicted_gain - e.observed_gain) : 0.0;
    for (const auto& m : plan.moves)
      if (m.from_core >= 0)
        kept_[{m.local_rank, m.from_core}] = {now + options_.rollback_ban,
                                              std::max(0.0, e.observed_gain) + overestimate};
  }
  watched_.reset();
  return e;
}

}  // namespace symmer::analysis
