// End-of-job report from decision-log events (see report.hpp).
#include "symmer/analysis/report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace symmer::analysis {

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
  } else if (kind == "advice") {
    ++advised_;
  } else if (kind == "actuation") {
    for (const auto& f : e.value("faults", nlohmann::json::array()))
      faults_.push_back(f.get<std::string>());
    if (!e.value("completed", false)) return;
    const auto id = e.value("plan", std::uint64_t{0});
    if (e.value("rollback", false)) {
      ++rollbacks_;
      plan_records_[e.value("undoes", std::uint64_t{0})].undone_s = t;
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
  } else if (kind == "fault") {
    faults_.push_back(e.value("message", "?"));
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
  if (reaction_s_) {
    std::snprintf(buf, sizeof buf, "  reaction: %.2f s from first symptom to first move\n",
                  *reaction_s_);
    o << buf;
  }
  std::snprintf(buf, sizeof buf, "  time recovered: %.2f s\n", time_recovered_s());
  o << buf;
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
