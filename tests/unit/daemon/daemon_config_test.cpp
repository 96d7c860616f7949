// SPDX-License-Identifier: BSD-3-Clause
// symmerd.toml: defaults, every key's bad values named by key, the [analyzer] table through
// the analyzer's own checks, and policy changes.
#include "daemon_config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "../segment/segment_test_util.hpp"

namespace symmer::daemon {
namespace {

using segment::testing::TempSegmentDir;
using ::testing::HasSubstr;

// 4 single-PU cores in two L3 domains, and 2 cores of 2 PUs (SMT).
const topology::NodeModel& flat() {
  static const auto node = topology::NodeModel::from_synthetic("pack:1 l3:2 core:2 pu:1");
  return node;
}
const topology::NodeModel& smt() {
  static const auto node = topology::NodeModel::from_synthetic("pack:1 core:2 pu:2");
  return node;
}

DaemonConfigLoad parse(const std::string& text, const topology::NodeModel& node = flat()) {
  return parse_daemon_config(text, "t.toml", node);
}

std::string one_error(const std::string& text, const topology::NodeModel& node = flat()) {
  const auto load = parse(text, node);
  EXPECT_EQ(load.errors.size(), 1u) << text;
  return load.errors.empty() ? "" : load.errors.front();
}

TEST(DaemonConfig, EmptyFileGivesDefaults) {
  const auto load = parse("");
  EXPECT_TRUE(load.errors.empty());
  EXPECT_TRUE(load.config.socket.empty());
  EXPECT_TRUE(load.config.cores.empty());
  EXPECT_TRUE(load.config.coschedule);
  EXPECT_EQ(load.config.analyzer.period, analysis::AnalyzerConfig{}.period);
}

TEST(DaemonConfig, ShippedFileIsValid) {
  std::ifstream in(std::string(SYMMER_SOURCE_DIR) + "/configs/symmerd.toml");
  std::stringstream text;
  text << in.rdbuf();
  const auto load = parse(text.str());
  EXPECT_TRUE(load.errors.empty()) << ::testing::PrintToString(load.errors);
}

TEST(DaemonConfig, ReadsEveryKey) {
  const TempSegmentDir dir;  // private: decision logs go only where nobody else may write
  const auto& tmp = dir.path();
  const auto load = parse(
      "[daemon]\nsocket = \"/tmp/s/d.sock\"\nlog_level = \"debug\"\n"
      "cores = \"1-2\"\nsegment_dir = \"" +
      tmp +
      "\"\n"
      "decision_log_dir = \"" +
      tmp +
      "\"\ncoschedule = false\n"
      "nic_bytes_per_s = 1000\nnic_wait_saving = 0.3\nstart_paused = true\n"
      "[analyzer]\nwindow_ms = 50\nmin_gain = 0.2\nmetrics = [\"locality\"]\n");
  ASSERT_TRUE(load.errors.empty()) << ::testing::PrintToString(load.errors);
  const auto& c = load.config;
  EXPECT_EQ(c.socket, "/tmp/s/d.sock");
  EXPECT_EQ(c.log_level, LogLevel::kDebug);
  EXPECT_EQ(c.cores, (std::vector<int>{1, 2}));
  EXPECT_EQ(c.segment_dir, tmp);
  EXPECT_EQ(c.decision_log_dir, tmp);
  EXPECT_FALSE(c.coschedule);
  EXPECT_EQ(c.nic_bytes_per_s, 1000);
  EXPECT_EQ(c.nic_wait_saving, 0.3);
  EXPECT_TRUE(c.start_paused);
  EXPECT_EQ(c.analyzer.period, std::chrono::milliseconds(50));
  EXPECT_EQ(c.analyzer.planner.min_gain, 0.2);
  EXPECT_EQ(c.analyzer.metrics, (std::vector<std::string>{"locality"}));
}

TEST(DaemonConfig, CoresAsArrayAndAll) {
  EXPECT_EQ(parse("[daemon]\ncores = [3, 0]\n").config.cores, (std::vector<int>{0, 3}));
  EXPECT_TRUE(parse("[daemon]\ncores = \"all\"\n").config.cores.empty());
  // SMT: CPUs 0,1 are core 0.
  EXPECT_EQ(parse("[daemon]\ncores = \"0-1\"\n", smt()).config.cores, (std::vector<int>{0}));
}

TEST(DaemonConfig, EveryBadValueNamesItsKey) {
  const std::pair<std::string, std::string> cases[] = {
      {"[daemon]\nsocket = \"rel.sock\"", "daemon.socket"},
      {"[daemon]\nsocket = 3", "daemon.socket"},
      {"[daemon]\nsocket = \"/nonexistent/a/b.sock\"", "daemon.socket"},
      {"[daemon]\nlog_level = \"loud\"", "daemon.log_level"},
      {"[daemon]\ncores = \"0-x\"", "daemon.cores"},
      {"[daemon]\ncores = \"3-1\"", "daemon.cores"},
      {"[daemon]\ncores = \"9\"", "daemon.cores"},
      {"[daemon]\ncores = []", "daemon.cores"},
      {"[daemon]\ncores = [\"a\"]", "daemon.cores"},
      {"[daemon]\ncores = 2", "daemon.cores"},
      {"[daemon]\nsegment_dir = \"/nonexistent\"", "daemon.segment_dir"},
      {"[daemon]\nsegment_dir = \"relative\"", "daemon.segment_dir"},
      {"[daemon]\ndecision_log_dir = \"/nonexistent\"", "daemon.decision_log_dir"},
      {"[daemon]\ncoschedule = 1", "daemon.coschedule"},
      {"[daemon]\nnic_bytes_per_s = -5", "daemon.nic_bytes_per_s"},
      {"[daemon]\nnic_bytes_per_s = \"many\"", "daemon.nic_bytes_per_s"},
      {"[daemon]\nnic_wait_saving = 1.5", "daemon.nic_wait_saving"},
      {"[daemon]\nstart_paused = \"no\"", "daemon.start_paused"},
      {"[daemon]\nsurprise = 1", "daemon.surprise: unknown key"},
      {"[analyzer]\nmin_gain = 2", "analyzer.min_gain"},
      {"[analyzer]\nwindow_ms = 0", "analyzer.window_ms"},
      {"[analyzer]\nmetrics = [\"nope\"]", "analyzer.metrics"},
      // Escapes decode to what the text check refuses; the key is still the one named.
      {"[analyzer]\nmetrics = [\"n\\u00e9\"]", "analyzer.metrics"},
      {"[analyzer]\nmetrics = [\"a\\nb\"]", "analyzer.metrics"},
      {"[analyzer]\nwhatever = 1", "analyzer.whatever"},
      {"[analyzer]\ndecision_log = \"/tmp/x\"", "analyzer.decision_log"},
      {"[other]\na = 1", "other: unknown table"},
      {"daemon = 1", "daemon must be a table"},
      {"[daemon\n", "t.toml:1"},
  };
  for (const auto& [text, key] : cases) EXPECT_THAT(one_error(text), HasSubstr(key)) << text;
}

TEST(DaemonConfig, HalfASmtCoreIsRefused) {
  EXPECT_THAT(one_error("[daemon]\ncores = \"0\"", smt()), HasSubstr("list whole cores"));
}

// Linux CPU 1 is on logical core 2 here, with CPU 5: "cores" takes Linux CPUs, or logical
// cores with the prefix L:, and says which core a half-listed one is.
TEST(DaemonConfig, CoresAreLinuxCpusOrPrefixedLogicalCores) {
  const auto node = topology::NodeModel::from_synthetic("pack:2 core:2 pu:2(indexes=0,4,2,6,1,5,3,7)");
  EXPECT_EQ(parse("[daemon]\ncores = \"1,5\"\n", node).config.cores, (std::vector<int>{2}));
  EXPECT_EQ(parse("[daemon]\ncores = [5, 1]\n", node).config.cores, (std::vector<int>{2}));
  EXPECT_EQ(parse("[daemon]\ncores = \"L:2\"\n", node).config.cores, (std::vector<int>{2}));
  EXPECT_EQ(parse("[daemon]\ncores = \"0-1,4-5\"\n", node).config.cores,
            (std::vector<int>{0, 2}));
  EXPECT_THAT(one_error("[daemon]\ncores = \"1\"", node),
              HasSubstr("CPU 5 is missing: list whole cores (core L:2 has CPUs 1,5)"));
  EXPECT_THAT(one_error("[daemon]\ncores = \"L:4\"", node), HasSubstr("L:4 does not exist"));
}

TEST(DaemonConfig, AllErrorsAreReported) {
  const auto load = parse("[daemon]\nlog_level = 1\ncores = \"x\"\n[analyzer]\nmin_gain = -1\n");
  ASSERT_EQ(load.errors.size(), 3u);
  EXPECT_THAT(load.errors[0] + load.errors[1] + load.errors[2],
              ::testing::AllOf(HasSubstr("daemon.log_level"), HasSubstr("daemon.cores"),
                               HasSubstr("analyzer.min_gain")));
}

TEST(DaemonConfig, DecisionLogsGoWhereNobodyElseMayWrite) {
  const TempSegmentDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0777), 0);
  EXPECT_THAT(one_error("[daemon]\ndecision_log_dir = \"" + dir.path() + "\""),
              ::testing::AllOf(HasSubstr("daemon.decision_log_dir"),
                               HasSubstr("writable by others (mode 0777)")));
}

TEST(DaemonConfig, OnlyARegularFileOfBoundedSizeIsRead) {
  const TempSegmentDir dir;
  const std::string big = dir.path() + "/big.toml";
  std::ofstream(big) << std::string(kMaxConfigBytes + 1, '#');
  const std::pair<std::string, std::string> cases[] = {
      {dir.path(), "is a directory"},
      {"/dev/null", "not a regular file"},
      {"/dev/zero", "not a regular file"},
      {big, "at most 1048576"},
  };
  for (const auto& [path, why] : cases) {
    const auto load = load_daemon_config(path, flat());
    ASSERT_EQ(load.errors.size(), 1u) << path;
    EXPECT_THAT(load.errors[0], ::testing::AllOf(HasSubstr(path), HasSubstr(why)));
  }
}

// Inputs on which toml++ 3.3.0 reaches an "unreachable" point (undefined behaviour) are
// refused before it sees them, with where and why; what symmerd.toml needs still parses.
TEST(DaemonConfig, TextTheParserMishandlesIsRefusedFirst) {
  const std::pair<std::string, std::string> refused[] = {
      {"x\xce\x90 = 1\n", "t.toml:1:2: a non-ASCII byte outside a comment"},
      {"[\nx]\n", "t.toml:1:2: a table name starts with"},
      {"[[[a]]]\n", "t.toml:1:3: a table name starts with"},
      {"[ ]\n", "a table name starts with"},
      {"a = " + std::string(20, '[') + std::string(20, ']') + "\n", "nested deeper than 8"},
      {"a = \"\xff\"\n", "t.toml:1:6: a non-ASCII byte outside a comment"},
      {"a = \"\xc3\xa9\" # \xc3\xa9\n", "t.toml:1:6: a non-ASCII byte outside a comment"},
      {"a = 1 # \xc3\xa9\n", "t.toml:1:9: a non-ASCII byte outside a comment"},
      {"a = 1\x01\n", "control character 1"},
      {"s = \"\"\"\\\n# x\"\"\"\n", "t.toml:1:5: a multi-line string"},
      {"s = '''\n'''\n", "t.toml:1:5: a multi-line string"},
      {"s = \"a\\\n\"\n", "t.toml:1:5: a string not closed on its line"},
      // Found by tests/fuzz/daemon_config: the parser reads the value 0, then the rest
      // outside any string.
      {"socket =0\"/tmp/s\"\n", "t.toml:1:10: a quote inside a bare key or value"},
      // Found by tests/fuzz/daemon_config: a quote after a '.' inside a value, then U+0208.
      {"2=[+/yG=){R.\"\xc8\x88\" x\"\n", "t.toml:1:14: a non-ASCII byte"},
  };
  for (const auto& [text, why] : refused) EXPECT_THAT(one_error(text), HasSubstr(why)) << text;
  // Non-ASCII in comments on lines of their own, brackets in strings, nested arrays in values.
  const auto fine = parse(
      "# r\xc3\xa9glages\n[daemon] # [\n  # \xc3\xa9\nsocket = \"/tmp/[x]/\\\"s.sock\"\n"
      "[analyzer]\nmetrics = [\n  \"locality\", # ]\n]\n");
  EXPECT_TRUE(fine.errors.empty()) << ::testing::PrintToString(fine.errors);
  EXPECT_EQ(fine.config.socket, "/tmp/[x]/\"s.sock");
  // A fuzzer's find: toml++ 3.3.0 reached undefined behaviour on it.
  EXPECT_NE(analysis::toml_text_problem("i=+{\"\xd2\x90n\xd2\x91'\xd2\x91" "a"), "");
  EXPECT_NE(analysis::toml_text_problem("socket = \"/run/x\n"), "");
  // Quotes where TOML starts strings: quoted and dotted keys, inline tables, arrays.
  EXPECT_EQ(analysis::toml_text_problem("\"q\".k = 'x'\nt = { \"a\" = \"b\", 'c' = [\"d\",\n\"e\"] }\n"
                              "[\"s\".u]\n"),
            "");
}

TEST(DaemonConfig, MissingFile) {
  const auto load = load_daemon_config("/nonexistent/symmerd.toml", flat());
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_THAT(load.errors[0], HasSubstr("cannot read"));
}

TEST(DaemonConfig, PolicyAppliesAnalyzerKeys) {
  analysis::AnalyzerConfig base;
  const auto load = apply_policy(base, {{"min_gain", 0.3},
                                        {"planner", "assignment"},
                                        {"metrics", {"locality", "idleness"}},
                                        {"advice_only", true}});
  ASSERT_TRUE(load.errors.empty()) << ::testing::PrintToString(load.errors);
  EXPECT_EQ(load.config.planner.min_gain, 0.3);
  EXPECT_EQ(load.config.planner.mode, analysis::PlannerMode::kAssignment);
  EXPECT_EQ(load.config.metrics, (std::vector<std::string>{"locality", "idleness"}));
  EXPECT_TRUE(load.config.advice_only);
}

TEST(DaemonConfig, PolicyRefusesBadValuesAndTheLogPath) {
  analysis::AnalyzerConfig base;
  EXPECT_THAT(apply_policy(base, {{"min_gain", 3}}).errors.at(0), HasSubstr("analyzer.min_gain"));
  EXPECT_THAT(apply_policy(base, {{"nope", 1}}).errors.at(0), HasSubstr("analyzer.nope"));
  EXPECT_THAT(apply_policy(base, {{"decision_log", "/etc/passwd"}}).errors.at(0),
              HasSubstr("decision_log"));
  EXPECT_THAT(apply_policy(base, {{"min_gain", nullptr}}).errors.at(0), HasSubstr("min_gain"));
  EXPECT_THAT(apply_policy(base, {{"a\nb", 1}}).errors.at(0), HasSubstr("unknown key"));
  EXPECT_FALSE(apply_policy(base, nlohmann::json::array()).errors.empty());
}

}  // namespace
}  // namespace symmer::daemon
