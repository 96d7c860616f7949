// SPDX-License-Identifier: BSD-3-Clause
// End-of-job report from decision-log events (see report.hpp).
#include "symmer/analysis/report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "symmer/analysis/capability_metric.hpp"

namespace symmer::analysis {
namespace {

// "r0: CPUs 0 -> 2" with the Linux CPUs the analyzer logged, else logical "r0: L:0 -> L:2".
std::string moves_text(const nlohmann::json& moves) {
  std::string out;
  if (!moves.is_array()) return out;
  for (const auto& m : moves) {
    if (!m.is_object()) continue;
    if (!out.empty()) out += ", ";
    out += "r" + std::to_string(m.value("rank", -1)) + ": ";
    if (m.contains("from_cpus") && m.contains("to_cpus"))
      out += "CPUs " + m.value("from_cpus", std::string("?")) + " -> " +
             m.value("to_cpus", std::string("?"));
    else
      out += "L:" + std::to_string(m.value("from_core", -1)) +
             " -> L:" + std::to_string(m.value("to_core", -1));
  }
  return out;
}

Report::PlanLine plan_line(const nlohmann::json& e) {
  Report::PlanLine l;
  l.id = e.value("plan", std::uint64_t{0});
  l.t_s = e.value("t_s", 0.0);
  l.moves = moves_text(e.value("moves", nlohmann::json::array()));
  for (const auto& m : e.value("metrics", nlohmann::json::array()))
    if (m.is_string()) l.metrics.push_back(m.get<std::string>());
  l.predicted_gain = e.value("predicted_gain", 0.0);
  l.rollback = e.value("rollback", false);
  return l;
}

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * share);
  return buf;
}

std::string fixed(double v, const char* format) {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

Report::PlanLine* Report::line_of(std::uint64_t id) {
  for (auto& l : lines_)
    if (l.id == id && !l.advice) return &l;
  return nullptr;
}

void Report::note_symptom(const std::string& metric, bool present, double t, double severity) {
  if (totals_from_summary_) return;
  if (present) {
    auto& s = symptoms_[metric];
    if (s.first_seen_s < 0) s.first_seen_s = t;
    s.last_seen_s = t;
    s.max_severity = std::max(s.max_severity, severity);
    episode_start_.try_emplace(metric, t);
  } else if (const auto it = episode_start_.find(metric); it != episode_start_.end()) {
    symptoms_[metric].duration_s += t - it->second;
    symptoms_[metric].last_seen_s = t;
    episode_start_.erase(it);
  }
}

void Report::note_rejection(const nlohmann::json& e, double t) {
  const std::string verdict = e.value("verdict", "");
  const std::string metric = e.value("metric", "?");
  const std::string moves = moves_text(e.value("moves", nlohmann::json::array()));
  std::string reason;
  const double gain = e.value("gain", 0.0);
  if (verdict == "below_threshold")
    reason = "predicted gain " + percent(gain) + " under min_gain " +
             (min_gain_ >= 0 ? percent(min_gain_) : std::string("?"));
  else if (verdict == "low_confidence")
    reason = "confidence " + fixed(e.value("confidence", 0.0), "%.2f") + " under min_confidence " +
             (min_confidence_ >= 0 ? fixed(min_confidence_, "%.2f") : std::string("?"));
  else if (verdict == "conflict")
    reason = "other metrics predict a loss: net gain " + percent(e.value("net_gain", 0.0)) +
             " of " + percent(gain);
  else if (verdict == "held")
    reason = "a rank of it moved within the hold-off";
  else if (verdict == "banned")
    reason = "the same move was rolled back recently";
  else if (verdict == "numa_refused")
    reason = "it crosses NUMA nodes (numa_moves = refuse)";
  else if (verdict == "not_allowed")
    reason = "outside the domain";
  else if (verdict == "overlap")
    reason = "a plan of a higher-priority metric moves the same rank or place";
  else if (verdict == "reversal")
    reason =
        "it would undo a kept move for less than that move gained plus what its "
        "prediction overestimated";
  else if (verdict == "unplaced")
    reason =
        "no rank has a place: each was launched unbound with several threads, so which cores "
        "they use is unknown; bind the ranks (e.g. mpiexec -bind-to core:N) to let symmer move "
        "them";
  else if (verdict == "no_better_core") {
    reason = "no better core: no free place of the rank's size in the domain offers more";
    const double resolution =
        e.value(nlohmann::json::json_pointer("/evidence/symptom/capability_resolution"), 0.0);
    // The note explains a verdict on clean cores whose readings differ by noise; beside a rank
    // on a degraded core (equal work: whoever sits there is the slow one) it would read as a
    // claim that the cores are equal.
    bool degraded = false;
    for (const auto& r :
         e.value(nlohmann::json::json_pointer("/evidence/symptom/ranks"), nlohmann::json::array()))
      degraded = degraded || r.value("capability", 1.0) < CapabilityMetric::kDegraded;
    if (resolution > 0.0 && !degraded)
      reason += " (capabilities within " + percent(resolution) +
                " of each other, the figures' resolution, count as equal)";
  } else
    reason = verdict;
  for (auto& r : rejections_)
    if (r.metric == metric && r.moves == moves && r.verdict == verdict) {
      ++r.times;
      r.reason = reason;  // the latest figures
      return;
    }
  rejections_.push_back({metric, moves, verdict, reason, 1, t});
}

void Report::add(const nlohmann::json& e) {
  if (!e.is_object() || !e.contains("event")) return;
  const std::string kind = e.value("event", "");
  const double t = e.value("t_s", 0.0);
  end_s_ = std::max(end_s_, t);
  if (kind == "config") {
    const auto& c = e.value("config", nlohmann::json::object());
    min_gain_ = c.value("min_gain", -1.0);
    min_confidence_ = c.value("min_confidence", -1.0);
  } else if (kind == "symptom") {
    note_symptom(e.value("metric", "?"), e.value("present", false), t, e.value("severity", 0.0));
  } else if (kind == "decision") {
    if (e.value("verdict", "") != "accepted") note_rejection(e, t);
  } else if (kind == "plan") {
    const PlanLine l = plan_line(e);
    proposed_[l.id] = l;
  } else if (kind == "advice") {
    ++advised_;
    PlanLine l = plan_line(e);
    l.advice = true;
    lines_.push_back(std::move(l));
  } else if (kind == "actuation") {
    for (const auto& f : e.value("faults", nlohmann::json::array()))
      faults_.push_back(f.get<std::string>());
    if (!e.value("completed", false)) return;
    const auto id = e.value("plan", std::uint64_t{0});
    PlanLine l = proposed_.count(id) != 0 ? proposed_[id] : PlanLine{};
    l.id = id;
    l.t_s = t;
    l.moves = moves_text(e.value("moves_in_effect", nlohmann::json::array()));
    l.rollback = e.value("rollback", false);
    lines_.push_back(std::move(l));
    proposed_.erase(id);
    if (e.value("rollback", false)) {
      ++rollbacks_;
      if (PlanLine* undone = line_of(e.value("undoes", std::uint64_t{0})))
        undone->rolled_back = true;
      return;
    }
    ++plans_;
    moves_ += static_cast<int>(e.value("moves_in_effect", nlohmann::json::array()).size());
    if (!reaction_s_ && e.contains("reaction_s")) reaction_s_ = e["reaction_s"].get<double>();
  } else if (kind == "evaluation") {
    // An inconclusive evaluation (too few MPI calls to compare rates) observed nothing.
    if (PlanLine* l = line_of(e.value("plan", std::uint64_t{0})); l && e.value("conclusive", true))
      l->observed_gain = e.value("observed_gain", 0.0);
  } else if (kind == "fault") {
    faults_.push_back(e.value("message", "?"));
  } else if (kind == "summary") {
    if (e.contains("cpu_s"))
      cost_ =
          AnalyzerCost{e.value("cpu_s", 0.0), e.value("startup_cpu_s", 0.0), e.value("windows", 0)};
    // The analyzer's own totals are exact: they replace what the events suggested.
    if (const auto& s = e.value("symptoms", nlohmann::json()); s.is_object()) {
      totals_from_summary_ = true;
      symptoms_.clear();
      episode_start_.clear();
      for (const auto& [metric, v] : s.items())
        symptoms_[metric] = {v.value("onset_s", -1.0), v.value("last_s", -1.0),
                             v.value("duration_s", 0.0), v.value("wait_s", 0.0),
                             v.value("max_severity", 0.0)};
    }
    if (const auto& r = e.value("recovered", nlohmann::json()); r.is_object()) {
      Recovered rec;
      rec.estimate_s = r.value("estimate_s", 0.0);
      for (const auto& p : r.value("plans", nlohmann::json::array()))
        rec.plans.push_back({p.value("plan", std::uint64_t{0}), p.value("calls_after", 0.0),
                             p.value("seconds_after", 0.0), p.value("rate_before", 0.0),
                             p.value("estimate_s", 0.0)});
      recovered_ = rec;
    }
  }
  // Episodes still open last until the latest event.
  for (const auto& [metric, start] : episode_start_) {
    auto& s = symptoms_[metric];
    s.last_seen_s = std::max(s.last_seen_s, t);
  }
}

nlohmann::json Report::to_json() const {
  nlohmann::json symptoms = nlohmann::json::object();
  for (const auto& [name, s] : symptoms_) {
    double duration = s.duration_s;
    if (const auto it = episode_start_.find(name); it != episode_start_.end())
      duration += end_s_ - it->second;
    symptoms[name] = {{"first_seen_s", s.first_seen_s},
                      {"last_seen_s", s.last_seen_s},
                      {"duration_s", duration},
                      {"wait_s", s.wait_s ? nlohmann::json(*s.wait_s) : nlohmann::json(nullptr)},
                      {"max_severity", s.max_severity}};
  }
  nlohmann::json rejected = nlohmann::json::array();
  for (const auto& r : rejections_)
    rejected.push_back({{"metric", r.metric},
                        {"moves", r.moves},
                        {"verdict", r.verdict},
                        {"reason", r.reason},
                        {"times", r.times},
                        {"first_s", r.first_s}});
  nlohmann::json j = {{"symptoms", symptoms}, {"plans", plans_},         {"moves", moves_},
                      {"advised", advised_},  {"rollbacks", rollbacks_}, {"faults", faults_},
                      {"not_done", rejected}, {"end_s", end_s_}};
  j["time_recovered_s"] =
      recovered_ ? nlohmann::json(recovered_->estimate_s) : nlohmann::json(nullptr);
  j["reaction_s"] = reaction_s_ ? nlohmann::json(*reaction_s_) : nlohmann::json(nullptr);
  if (cost_)
    j["analyzer"] = {{"cpu_s", cost_->cpu_s},
                     {"startup_cpu_s", cost_->startup_cpu_s},
                     {"windows", cost_->windows}};
  return j;
}

std::string Report::to_text() const {
  std::ostringstream o;
  char buf[256];
  const nlohmann::json j = to_json();
  o << "symmer report (" << end_s_ << " s observed; CPUs are Linux CPU numbers)\n";
  if (symptoms_.empty()) o << "  symptoms: none seen\n";
  for (const auto& [name, s] : j["symptoms"].items()) {
    std::snprintf(buf, sizeof buf, "  symptom %-10s lasted %.1f s (from %.1f s)", name.c_str(),
                  s["duration_s"].get<double>(), s["first_seen_s"].get<double>());
    o << buf;
    if (!s["wait_s"].is_null()) {
      std::snprintf(buf, sizeof buf, ", ranks waited %.2f s in MPI meanwhile",
                    s["wait_s"].get<double>());
      o << buf;
    }
    std::snprintf(buf, sizeof buf, ", worst %.0f%% of run time\n",
                  100.0 * s["max_severity"].get<double>());
    o << buf;
  }
  o << "  moves made: " << moves_ << " in " << plans_ << " plan(s)";
  if (rollbacks_ > 0) o << ", " << rollbacks_ << " rolled back";
  if (advised_ > 0) o << ", " << advised_ << " advised only";
  o << "\n";
  for (const auto& l : lines_) {
    std::string from;
    for (const auto& m : l.metrics) from += (from.empty() ? "" : ", ") + m;
    if (l.rollback) {
      std::snprintf(buf, sizeof buf, "    %6.2f s  rolled back: %s\n", l.t_s, l.moves.c_str());
    } else {
      std::snprintf(buf, sizeof buf, "    %6.2f s  %s %s (%s), predicted %.1f%%", l.t_s,
                    l.advice ? "advised" : "moved", l.moves.c_str(), from.c_str(),
                    100.0 * l.predicted_gain);
      o << buf;
      if (l.observed_gain) {
        std::snprintf(buf, sizeof buf, ", observed %.1f%%", 100.0 * *l.observed_gain);
        o << buf;
      }
      std::snprintf(buf, sizeof buf, "%s\n", l.rolled_back ? " (rolled back)" : "");
    }
    o << buf;
  }
  if (!rejections_.empty()) o << "  not done:\n";
  for (const auto& r : rejections_) {
    o << "    " << r.metric << ": " << (r.moves.empty() ? "" : r.moves + ": ") << r.reason;
    if (r.times > 1) o << " (" << r.times << " times from " << fixed(r.first_s, "%.1f") << " s)";
    o << "\n";
  }
  if (reaction_s_) {
    std::snprintf(buf, sizeof buf, "  reaction: %.2f s from first symptom to first move\n",
                  *reaction_s_);
    o << buf;
  }
  if (recovered_ && !recovered_->plans.empty()) {
    std::snprintf(buf, sizeof buf, "  time recovered (estimate): %.2f s\n", recovered_->estimate_s);
    o << buf;
    for (const auto& p : recovered_->plans) {
      std::snprintf(buf, sizeof buf,
                    "    plan %llu: the slowest rank made %.0f calls in %.2f s after it; at "
                    "%.1f calls/s, its rate before, they would have taken %.2f s\n",
                    static_cast<unsigned long long>(p.plan), p.calls_after, p.seconds_after,
                    p.rate_before, p.seconds_after + p.estimate_s);
      o << buf;
    }
  } else {
    o << "  time recovered: none estimated ("
      << (plans_ == 0 ? "no move made" : "no kept move measured") << ")\n";
  }
  if (cost_) {
    std::snprintf(
        buf, sizeof buf,
        "  analysis cost: %.3f s CPU (%.3f s start-up, %d windows, %.2f ms each)\n", cost_->cpu_s,
        cost_->startup_cpu_s, cost_->windows,
        cost_->windows > 0 ? 1e3 * (cost_->cpu_s - cost_->startup_cpu_s) / cost_->windows : 0.0);
    o << buf;
  }
  for (const auto& f : faults_) o << "  fault: " << f << "\n";
  return o.str();
}

Report summarize(std::istream& in) {
  Report r;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) r.add(j);
  }
  return r;
}

}  // namespace symmer::analysis
