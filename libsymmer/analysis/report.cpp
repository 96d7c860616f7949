// SPDX-License-Identifier: BSD-3-Clause
// End-of-job report from decision-log events (see report.hpp).
#include "symmer/analysis/report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace symmer::analysis {
namespace {

std::string moves_text(const nlohmann::json& moves) {
  std::string out;
  if (!moves.is_array()) return out;
  for (const auto& m : moves) {
    if (!m.is_object()) continue;
    if (!out.empty()) out += ", ";
    out += "r" + std::to_string(m.value("rank", -1)) + ":c" + std::to_string(m.value("from", -1)) +
           "->c" + std::to_string(m.value("to", -1));
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

}  // namespace

Report::PlanLine* Report::line_of(std::uint64_t id) {
  for (auto& l : lines_)
    if (l.id == id && !l.advice) return &l;
  return nullptr;
}

void Report::add(const nlohmann::json& e) {
  if (!e.is_object() || !e.contains("event")) return;
  const std::string kind = e.value("event", "");
  const double t = e.value("t_s", 0.0);
  end_s_ = std::max(end_s_, t);
  if (kind == "symptom" && e.value("present", false)) {
    auto& s = symptoms_[e.value("metric", "?")];
    if (s.first_seen_s < 0) s.first_seen_s = t;
    s.last_seen_s = t;
    s.max_severity = std::max(s.max_severity, e.value("severity", 0.0));
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
      const auto undoes = e.value("undoes", std::uint64_t{0});
      plan_records_[undoes].undone_s = t;
      if (PlanLine* undone = line_of(undoes)) undone->rolled_back = true;
      return;
    }
    ++plans_;
    moves_ += static_cast<int>(e.value("moves_in_effect", nlohmann::json::array()).size());
    plan_records_[id].applied_s = t;
    if (!reaction_s_ && e.contains("reaction_s")) reaction_s_ = e["reaction_s"].get<double>();
  } else if (kind == "evaluation") {
    auto& p = plan_records_[e.value("plan", std::uint64_t{0})];
    const double before = e.value("progress_before", 0.0);
    const double after = e.value("progress_after", 0.0);
    if (before > 0.0) {
      p.ratio = after / before;
      p.evaluated = true;
    }
    if (PlanLine* l = line_of(e.value("plan", std::uint64_t{0})))
      l->observed_gain = e.value("observed_gain", 0.0);
  } else if (kind == "fault") {
    faults_.push_back(e.value("message", "?"));
  } else if (kind == "summary" && e.contains("cpu_s")) {
    cost_ = AnalyzerCost{e.value("cpu_s", 0.0), e.value("startup_cpu_s", 0.0),
                         e.value("windows", 0)};
  }
}

double Report::time_recovered_s() const {
  double saved = 0.0;
  for (const auto& [id, p] : plan_records_) {
    if (!p.evaluated || p.applied_s < 0) continue;
    const double end = p.undone_s >= 0 ? p.undone_s : end_s_;
    saved += std::max(0.0, end - p.applied_s) * (p.ratio - 1.0);
  }
  return saved;
}

nlohmann::json Report::to_json() const {
  nlohmann::json symptoms = nlohmann::json::object();
  for (const auto& [name, s] : symptoms_)
    symptoms[name] = {{"first_seen_s", s.first_seen_s},
                      {"last_seen_s", s.last_seen_s},
                      {"max_severity", s.max_severity}};
  nlohmann::json j = {{"symptoms", symptoms},
                      {"plans", plans_},
                      {"moves", moves_},
                      {"advised", advised_},
                      {"rollbacks", rollbacks_},
                      {"faults", faults_},
                      {"time_recovered_s", time_recovered_s()},
                      {"end_s", end_s_}};
  j["reaction_s"] = reaction_s_ ? nlohmann::json(*reaction_s_) : nlohmann::json(nullptr);
  if (cost_)
    j["analyzer"] = {{"cpu_s", cost_->cpu_s},
                     {"startup_cpu_s", cost_->startup_cpu_s},
                     {"windows", cost_->windows}};
  return j;
}

std::string Report::to_text() const {
  std::ostringstream o;
  char buf[160];
  o << "symmer report (" << end_s_ << " s observed)\n";
  if (symptoms_.empty()) o << "  symptoms: none seen\n";
  for (const auto& [name, s] : symptoms_) {
    std::snprintf(buf, sizeof buf, "  symptom %-10s seen %.1f-%.1f s, worst %.0f%% of run time\n",
                  name.c_str(), s.first_seen_s, s.last_seen_s, 100.0 * s.max_severity);
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
  if (reaction_s_) {
    std::snprintf(buf, sizeof buf, "  reaction: %.2f s from first symptom to first move\n",
                  *reaction_s_);
    o << buf;
  }
  std::snprintf(buf, sizeof buf, "  time recovered: %.2f s\n", time_recovered_s());
  o << buf;
  if (cost_) {
    std::snprintf(buf, sizeof buf,
                  "  analysis cost: %.3f s CPU (%.3f s start-up, %d windows, %.2f ms each)\n",
                  cost_->cpu_s, cost_->startup_cpu_s, cost_->windows,
                  cost_->windows > 0
                      ? 1e3 * (cost_->cpu_s - cost_->startup_cpu_s) / cost_->windows
                      : 0.0);
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
