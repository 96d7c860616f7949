// SPDX-License-Identifier: BSD-3-Clause
// Analyzer configuration: defaults, symmer.toml, SYMMER_* (see config.hpp).
#include "symmer/analysis/config.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "symmer/analysis/metric.hpp"

#ifndef SYMMER_SYSCONFDIR
#define SYMMER_SYSCONFDIR "/etc"
#endif

namespace symmer::analysis {
namespace {

// A key's value arrives as text from either source; the setter validates it and returns an
// error description ("" when fine).
struct Key {
  const char* name;
  std::function<std::string(AnalyzerConfig&, std::string_view)> set;
};

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

std::string parse_bool(std::string_view text, bool& out) {
  std::string t = trim(text);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool yes = t == "1" || t == "true" || t == "on" || t == "yes";
  const bool no = t == "0" || t == "false" || t == "off" || t == "no";
  if (!yes && !no) return "expected true/false (or 1/0, on/off, yes/no)";
  out = yes;
  return "";
}

std::string parse_int(std::string_view text, long lo, long hi, long& out) {
  const std::string t = trim(text);
  long v = 0;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size())
    return "expected an integer";
  if (v < lo || v > hi)
    return "out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  out = v;
  return "";
}

std::string parse_double(std::string_view text, double lo, double hi, double& out) {
  const std::string t = trim(text);
  double v = 0;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(v))
    return "expected a number";
  if (v < lo || v > hi) {
    std::ostringstream s;
    s << "out of range [" << lo << ", " << hi << "]";
    return s.str();
  }
  out = v;
  return "";
}

template <typename Field>
Key int_key(const char* name, long lo, long hi, Field field) {
  return {name, [=](AnalyzerConfig& c, std::string_view t) {
            long v = 0;
            std::string e = parse_int(t, lo, hi, v);
            if (e.empty()) field(c, v);
            return e;
          }};
}

template <typename Field>
Key double_key(const char* name, double lo, double hi, Field field) {
  return {name, [=](AnalyzerConfig& c, std::string_view t) {
            double v = 0;
            std::string e = parse_double(t, lo, hi, v);
            if (e.empty()) field(c, v);
            return e;
          }};
}

std::chrono::nanoseconds seconds(double s) {
  return std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(s * 1e9)));
}

const std::vector<Key>& keys() {
  static const std::vector<Key> k = {
      // SYMMER_ANALYZER is shared with the PMPI shim, which knows "embedded" and "off".
      {"enabled",
       [](AnalyzerConfig& c, std::string_view t) {
         if (trim(t) != "embedded") return parse_bool(t, c.enabled);
         c.enabled = true;
         return std::string();
       }},
      int_key("window_ms", 10, 60000,
              [](AnalyzerConfig& c, long v) { c.period = std::chrono::milliseconds(v); }),
      int_key("evidence_windows", 2, 64,
              [](AnalyzerConfig& c, long v) { c.evidence_windows = static_cast<int>(v); }),
      {"metrics",
       [](AnalyzerConfig& c, std::string_view t) -> std::string {
         std::vector<std::string> names;
         std::string text(t);
         std::stringstream s(text);
         for (std::string item; std::getline(s, item, ',');) {
           item = trim(item);
           if (make_metric(item) == nullptr) {
             std::string known;
             for (auto n : metric_names()) known += (known.empty() ? "" : ", ") + std::string(n);
             return "unknown metric '" + item + "' (known: " + known + ")";
           }
           if (std::find(names.begin(), names.end(), item) != names.end())
             return "metric '" + item + "' listed twice";
           names.push_back(item);
         }
         if (names.empty()) return "expected at least one metric";
         c.metrics = std::move(names);
         return "";
       }},
      double_key("min_confidence", 0.0, 1.0,
                 [](AnalyzerConfig& c, double v) { c.planner.min_confidence = v; }),
      double_key("min_gain", 0.0, 1.0, [](AnalyzerConfig& c, double v) { c.planner.min_gain = v; }),
      double_key("hold_off_s", 0.0, 3600.0,
                 [](AnalyzerConfig& c, double v) { c.planner.hold_off = seconds(v); }),
      int_key(
          "evaluation_windows", 1, 64,
          [](AnalyzerConfig& c, long v) { c.planner.evaluation_windows = static_cast<int>(v); }),
      double_key("rollback_tolerance", 0.0, 1.0,
                 [](AnalyzerConfig& c, double v) { c.planner.rollback_tolerance = v; }),
      double_key("rollback_ban_s", 0.0, 86400.0,
                 [](AnalyzerConfig& c, double v) { c.planner.rollback_ban = seconds(v); }),
      {"numa_moves",
       [](AnalyzerConfig& c, std::string_view t) -> std::string {
         const std::string v = trim(t);
         if (v != "refuse" && v != "migrate") return "expected \"refuse\" or \"migrate\"";
         c.planner.numa_policy = v == "refuse" ? NumaPolicy::kRefuse : NumaPolicy::kMigrate;
         return "";
       }},
      {"planner",
       [](AnalyzerConfig& c, std::string_view t) -> std::string {
         const std::string v = trim(t);
         if (v != "pairwise" && v != "assignment") return "expected \"pairwise\" or \"assignment\"";
         c.planner.mode = v == "pairwise" ? PlannerMode::kPairwise : PlannerMode::kAssignment;
         return "";
       }},
      int_key(
          "ack_timeout_ms", 10, 600000,
          [](AnalyzerConfig& c, long v) { c.actuator.ack_timeout = std::chrono::milliseconds(v); }),
      int_key("migrate_call_ms", 1, 1000,
              [](AnalyzerConfig& c, long v) {
                c.migration.call_budget = std::chrono::milliseconds(v);
              }),
      {"domain",
       [](AnalyzerConfig& c, std::string_view t) -> std::string {
         const auto d = parse_domain(trim(t));
         if (!d) return "expected \"job\" (the ranks' launch sets) or \"node\"";
         c.domain = *d;
         return "";
       }},
      {"advice_only",
       [](AnalyzerConfig& c, std::string_view t) { return parse_bool(t, c.advice_only); }},
      {"decision_log",
       [](AnalyzerConfig& c, std::string_view t) {
         c.decision_log = trim(t);
         return std::string();
       }},
  };
  return k;
}

const Key* find_key(std::string_view name) {
  for (const auto& k : keys())
    if (name == k.name) return &k;
  return nullptr;
}

// A TOML value as the text the key setters parse; "" plus an error for unsupported types.
std::string toml_text(const toml::node& node, std::string& error) {
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return std::to_string(i->get());
  if (const auto* f = node.as_floating_point()) {
    std::ostringstream o;
    o.precision(17);
    o << f->get();
    return o.str();
  }
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  if (const auto* a = node.as_array()) {
    std::string out;
    for (const auto& e : *a) {
      const auto* s = e.as_string();
      if (s == nullptr) {
        error = "expected an array of strings";
        return "";
      }
      out += (out.empty() ? "" : ",") + s->get();
    }
    if (a->empty()) error = "expected at least one metric";
    return out;
  }
  error = "unsupported value type";
  return "";
}

void finish(ConfigLoad& load) {
  if (!load.errors.empty()) load.config.enabled = false;
}

}  // namespace

std::vector<std::string> config_keys() {
  std::vector<std::string> out;
  for (const auto& k : keys()) out.emplace_back(k.name);
  return out;
}

std::string environment_name(std::string_view key) {
  if (key == "enabled") return "SYMMER_ANALYZER";
  std::string out = "SYMMER_";
  for (char c : key) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

void apply_toml(ConfigLoad& load, std::string_view text, const std::string& source) {
  if (const auto problem = toml_text_problem(text); !problem.empty()) {
    load.errors.push_back(source + ":" + problem);
    finish(load);
    return;
  }
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    std::ostringstream s;
    s << source << ":" << e.source().begin.line << ":" << e.source().begin.column << ": "
      << e.description();
    load.errors.push_back(s.str());
    finish(load);
    return;
  }
  load.sources.push_back(source);
  const toml::node* section = root.get("analyzer");
  if (section == nullptr) return;
  const toml::table* table = section->as_table();
  if (table == nullptr) {
    load.errors.push_back(source + ": analyzer must be a table ([analyzer])");
    finish(load);
    return;
  }
  for (const auto& [name, node] : *table) {
    const std::string key(name.str());
    const std::string where = source + ": analyzer." + key;
    const Key* k = find_key(key);
    if (k == nullptr) {
      load.errors.push_back(where + ": unknown key");
      continue;
    }
    std::string error;
    const std::string value = toml_text(node, error);
    if (error.empty()) error = k->set(load.config, value);
    if (!error.empty()) load.errors.push_back(where + " = " + value + ": " + error);
  }
  finish(load);
}

void apply_environment(ConfigLoad& load, const Getenv& getenv) {
  bool any = false;
  for (const auto& k : keys()) {
    const std::string var = environment_name(k.name);
    const char* value = getenv(var.c_str());
    if (value == nullptr) continue;
    any = true;
    const std::string error = k.set(load.config, value);
    if (!error.empty()) load.errors.push_back("environment: " + var + "=" + value + ": " + error);
  }
  if (any) load.sources.emplace_back("environment");
  finish(load);
}

ConfigLoad load_config(const Getenv& getenv_in) {
  const Getenv getenv =
      getenv_in ? getenv_in : Getenv([](const char* n) { return std::getenv(n); });
  ConfigLoad load;
  std::string path;
  bool must_exist = false;
  if (const char* p = getenv("SYMMER_CONFIG"); p != nullptr && *p != '\0') {
    path = p;
    must_exist = true;
  } else {
    path = std::string(SYMMER_SYSCONFDIR) + "/symmer/symmer.toml";
  }
  std::ifstream in(path);
  if (in) {
    std::ostringstream text;
    text << in.rdbuf();
    apply_toml(load, text.str(), path);
  } else if (must_exist) {
    load.errors.push_back("SYMMER_CONFIG=" + path + ": cannot read the file");
  }
  apply_environment(load, getenv);
  finish(load);
  return load;
}

nlohmann::json to_json(const AnalyzerConfig& c) {
  const auto s = [](std::chrono::nanoseconds d) {
    return std::chrono::duration<double>(d).count();
  };
  return {{"enabled", c.enabled},
          {"window_ms", c.period.count()},
          {"evidence_windows", c.evidence_windows},
          {"metrics", c.metrics},
          {"min_confidence", c.planner.min_confidence},
          {"min_gain", c.planner.min_gain},
          {"hold_off_s", s(c.planner.hold_off)},
          {"evaluation_windows", c.planner.evaluation_windows},
          {"rollback_tolerance", c.planner.rollback_tolerance},
          {"rollback_ban_s", s(c.planner.rollback_ban)},
          {"numa_moves", c.planner.numa_policy == NumaPolicy::kRefuse ? "refuse" : "migrate"},
          {"planner", c.planner.mode == PlannerMode::kPairwise ? "pairwise" : "assignment"},
          {"ack_timeout_ms",
           std::chrono::duration_cast<std::chrono::milliseconds>(c.actuator.ack_timeout).count()},
          {"migrate_call_ms",
           std::chrono::duration_cast<std::chrono::milliseconds>(c.migration.call_budget).count()},
          {"domain", to_string(c.domain)},
          {"advice_only", c.advice_only},
          {"decision_log", c.decision_log}};
}

}  // namespace symmer::analysis
