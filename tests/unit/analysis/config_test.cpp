// SPDX-License-Identifier: BSD-3-Clause
// Configuration: defaults, symmer.toml, SYMMER_* overrides; bad values named, analyzer off.
#include "symmer/analysis/config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>

namespace symmer::analysis {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Getenv env(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    const auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

std::string errors(const ConfigLoad& l) {
  std::string out;
  for (const auto& e : l.errors) out += e + "\n";
  return out;
}

TEST(Config, DefaultsWithNothingSet) {
  const auto l = load_config(env({{"SYMMER_CONFIG", ""}}));
  EXPECT_THAT(l.errors, IsEmpty());
  EXPECT_TRUE(l.config.enabled);
  EXPECT_EQ(l.config.period, 100ms);
  EXPECT_EQ(l.config.evidence_windows, 6);
  EXPECT_EQ(l.config.metrics,
            (std::vector<std::string>{"idleness", "outofsync", "locality", "capability"}));
  EXPECT_EQ(l.config.domain, Domain::kJob);
  EXPECT_FALSE(l.config.advice_only);
}

TEST(Config, DomainIsTheJobsOrTheNodes) {
  EXPECT_EQ(load_config(env({{"SYMMER_CONFIG", ""}, {"SYMMER_DOMAIN", "node"}})).config.domain,
            Domain::kNode);
  const auto bad = load_config(env({{"SYMMER_CONFIG", ""}, {"SYMMER_DOMAIN", "socket"}}));
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_THAT(bad.errors[0], HasSubstr("SYMMER_DOMAIN"));
  EXPECT_FALSE(bad.config.enabled);
}

TEST(Config, TheShippedFileIsValid) {
  const auto l = load_config(env({{"SYMMER_CONFIG", SYMMER_SOURCE_DIR "/configs/symmer.toml"}}));
  EXPECT_THAT(l.errors, IsEmpty()) << errors(l);
  EXPECT_TRUE(l.config.enabled);
  EXPECT_EQ(l.sources, std::vector<std::string>{SYMMER_SOURCE_DIR "/configs/symmer.toml"});
  // Every key the loader knows is documented in the shipped file.
  std::ifstream in(SYMMER_SOURCE_DIR "/configs/symmer.toml");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& key : config_keys()) EXPECT_THAT(text, HasSubstr(key + " =")) << key;
}

TEST(Config, TomlSetsEveryKey) {
  ConfigLoad l;
  apply_toml(l, R"([analyzer]
enabled = true
window_ms = 250
evidence_windows = 5
metrics = ["locality", "idleness"]
min_confidence = 0.7
min_gain = 0.1
hold_off_s = 2.5
evaluation_windows = 4
rollback_tolerance = 0.2
rollback_ban_s = 30
numa_moves = "refuse"
planner = "assignment"
ack_timeout_ms = 500
migrate_call_ms = 10
advice_only = true
decision_log = "/tmp/d.jsonl"
)",
             "t.toml");
  EXPECT_THAT(l.errors, IsEmpty()) << errors(l);
  const auto& c = l.config;
  EXPECT_EQ(c.period, 250ms);
  EXPECT_EQ(c.evidence_windows, 5);
  EXPECT_EQ(c.metrics, (std::vector<std::string>{"locality", "idleness"}));
  EXPECT_DOUBLE_EQ(c.planner.min_confidence, 0.7);
  EXPECT_DOUBLE_EQ(c.planner.min_gain, 0.1);
  EXPECT_EQ(c.planner.hold_off, 2500ms);
  EXPECT_EQ(c.planner.evaluation_windows, 4);
  EXPECT_DOUBLE_EQ(c.planner.rollback_tolerance, 0.2);
  EXPECT_EQ(c.planner.rollback_ban, 30s);
  EXPECT_EQ(c.planner.numa_policy, NumaPolicy::kRefuse);
  EXPECT_EQ(c.planner.mode, PlannerMode::kAssignment);
  EXPECT_EQ(c.actuator.ack_timeout, 500ms);
  EXPECT_EQ(c.migration.call_budget, 10ms);
  EXPECT_TRUE(c.advice_only);
  EXPECT_EQ(c.decision_log, "/tmp/d.jsonl");
  // The JSON view names the same keys.
  const auto j = to_json(c);
  for (const auto& key : config_keys()) EXPECT_TRUE(j.contains(key)) << key;
}

TEST(Config, EnvironmentOverridesTheFile) {
  const std::string path = ::testing::TempDir() + "symmer_env_test.toml";
  std::ofstream(path) << "[analyzer]\nwindow_ms = 100\nmin_gain = 0.2\n";
  const auto l = load_config(env({{"SYMMER_CONFIG", path},
                                  {"SYMMER_WINDOW_MS", "50"},
                                  {"SYMMER_METRICS", "outofsync, idleness"},
                                  {"SYMMER_ADVICE_ONLY", "yes"},
                                  {"SYMMER_ANALYZER", "embedded"}}));
  EXPECT_THAT(l.errors, IsEmpty()) << errors(l);
  EXPECT_EQ(l.config.period, 50ms);
  EXPECT_DOUBLE_EQ(l.config.planner.min_gain, 0.2);
  EXPECT_EQ(l.config.metrics, (std::vector<std::string>{"outofsync", "idleness"}));
  EXPECT_TRUE(l.config.advice_only);
  EXPECT_THAT(l.sources, ::testing::ElementsAre(path, "environment"));
  std::remove(path.c_str());
}

TEST(Config, AnalyzerCanBeSwitchedOff) {
  const auto l = load_config(env({{"SYMMER_ANALYZER", "off"}}));
  EXPECT_THAT(l.errors, IsEmpty());
  EXPECT_FALSE(l.config.enabled);
}

TEST(Config, EveryBadValueIsNamedAndTurnsTheAnalyzerOff) {
  ConfigLoad l;
  apply_toml(l, R"([analyzer]
window_ms = 0
min_gain = 1.5
min_confidence = "high"
metrics = ["idleness", "psychic"]
numa_moves = "sometimes"
planner = 3
advice_only = "maybe"
hold_off_s = -1
colour = "blue"
)",
             "bad.toml");
  const std::string e = errors(l);
  EXPECT_THAT(e, HasSubstr("bad.toml: analyzer.window_ms = 0: out of range [10, 60000]"));
  EXPECT_THAT(e, HasSubstr("bad.toml: analyzer.min_gain = 1.5: out of range [0, 1]"));
  EXPECT_THAT(e, HasSubstr("analyzer.min_confidence = high: expected a number"));
  EXPECT_THAT(e, HasSubstr("analyzer.metrics = idleness,psychic: unknown metric 'psychic'"));
  EXPECT_THAT(e, HasSubstr("analyzer.numa_moves = sometimes: expected \"refuse\" or \"migrate\""));
  EXPECT_THAT(e, HasSubstr("analyzer.planner = 3: expected \"pairwise\" or \"assignment\""));
  EXPECT_THAT(e, HasSubstr("analyzer.advice_only = maybe: expected true/false"));
  EXPECT_THAT(e, HasSubstr("analyzer.hold_off_s = -1: out of range"));
  EXPECT_THAT(e, HasSubstr("bad.toml: analyzer.colour: unknown key"));
  EXPECT_EQ(l.errors.size(), 9u);
  EXPECT_FALSE(l.config.enabled);
  EXPECT_EQ(l.config.period, 100ms);  // bad values never replace good ones
}

TEST(Config, BadEnvironmentValuesAreNamed) {
  const auto l = load_config(env({{"SYMMER_MIN_GAIN", "lots"},
                                  {"SYMMER_EVIDENCE_WINDOWS", "1"},
                                  {"SYMMER_METRICS", "idleness,idleness"},
                                  {"SYMMER_WINDOW_MS", "100ms"}}));
  const std::string e = errors(l);
  EXPECT_THAT(e, HasSubstr("environment: SYMMER_MIN_GAIN=lots: expected a number"));
  EXPECT_THAT(e, HasSubstr("SYMMER_EVIDENCE_WINDOWS=1: out of range [2, 64]"));
  EXPECT_THAT(e, HasSubstr("SYMMER_METRICS=idleness,idleness: metric 'idleness' listed twice"));
  EXPECT_THAT(e, HasSubstr("SYMMER_WINDOW_MS=100ms: expected an integer"));
  EXPECT_FALSE(l.config.enabled);
}

TEST(Config, SyntaxErrorsGiveTheLine) {
  ConfigLoad l;
  apply_toml(l, "[analyzer]\nwindow_ms = 100\nmin_gain = = 3\n", "broken.toml");
  ASSERT_EQ(l.errors.size(), 1u);
  EXPECT_THAT(l.errors[0], HasSubstr("broken.toml:3:"));
  EXPECT_FALSE(l.config.enabled);
}

// A job's own symmer.toml gets the check symmerd's files get: text on which toml++ 3.3.0
// reaches undefined behaviour is an error naming the place, and the job runs on.
TEST(Config, TextTheParserMishandlesIsAnErrorNotACrash) {
  ConfigLoad l;
  apply_toml(l, "[analyzer]\nwindow_ms = 1\xc8\x88\n", "mine.toml");
  ASSERT_EQ(l.errors.size(), 1u);
  EXPECT_THAT(l.errors[0], HasSubstr("mine.toml:2:14: a non-ASCII byte"));
  EXPECT_FALSE(l.config.enabled);
}

TEST(Config, MissingConfigFileNamedBySymmerConfigIsAnError) {
  const auto l = load_config(env({{"SYMMER_CONFIG", "/nonexistent/symmer.toml"}}));
  EXPECT_THAT(errors(l), HasSubstr("SYMMER_CONFIG=/nonexistent/symmer.toml: cannot read the file"));
  EXPECT_FALSE(l.config.enabled);
}

TEST(Config, OtherTablesAreLeftToTheirOwners) {
  ConfigLoad l;
  apply_toml(l, "[shim]\nwhatever = 1\n[analyzer]\nmin_gain = 0.2\n", "x.toml");
  EXPECT_THAT(l.errors, IsEmpty());
  EXPECT_DOUBLE_EQ(l.config.planner.min_gain, 0.2);
}

TEST(Config, EnvironmentNames) {
  EXPECT_EQ(environment_name("min_gain"), "SYMMER_MIN_GAIN");
  EXPECT_EQ(environment_name("enabled"), "SYMMER_ANALYZER");
}

}  // namespace
}  // namespace symmer::analysis
