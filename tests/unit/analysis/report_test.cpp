// SPDX-License-Identifier: BSD-3-Clause
// The end-of-job report from decision-log events.
#include "symmer/analysis/report.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

namespace symmer::analysis {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(Report, SummarisesALog) {
  std::istringstream log(
      R"({"event":"config","config":{"min_gain":0.05,"min_confidence":0.6},"t_s":0}
{"event":"symptom","metric":"idleness","present":true,"severity":0.4,"t_s":1.0}
not json at all
{"event":"plan","plan":1,"t_s":1.2}
{"event":"actuation","plan":1,"completed":true,"rollback":false,"moves_in_effect":[{"rank":0,"from_core":0,"to_core":1,"from_cpus":"0","to_cpus":"1"},{"rank":1,"from_core":1,"to_core":0,"from_cpus":"1","to_cpus":"0"}],"faults":[],"reaction_s":0.45,"t_s":1.3}
{"event":"evaluation","plan":1,"progress_before":100,"progress_after":150,"t_s":2.3}
{"event":"actuation","plan":2,"completed":false,"rollback":false,"moves_in_effect":[],"faults":["local rank 3 died during the move"],"t_s":5}
{"event":"summary","symptoms":{"idleness":{"onset_s":0.8,"last_s":1.2,"duration_s":0.6,"wait_s":0.9,"max_severity":0.5}},"recovered":{"estimate_s":4.0,"plans":[{"plan":1,"calls_after":1200,"seconds_after":8.0,"rate_before":100.0,"estimate_s":4.0}]},"t_s":11.3}
)");
  const Report r = summarize(log);
  EXPECT_EQ(r.plans(), 1);
  EXPECT_EQ(r.moves(), 2);
  EXPECT_EQ(r.rollbacks(), 0);
  ASSERT_TRUE(r.reaction_s());
  EXPECT_DOUBLE_EQ(*r.reaction_s(), 0.45);
  // The analyzer's totals replace what the events suggest.
  const auto& s = r.symptoms().at("idleness");
  EXPECT_DOUBLE_EQ(s.max_severity, 0.5);
  EXPECT_DOUBLE_EQ(s.first_seen_s, 0.8);
  EXPECT_DOUBLE_EQ(s.duration_s, 0.6);
  EXPECT_DOUBLE_EQ(*s.wait_s, 0.9);
  EXPECT_NEAR(r.time_recovered_s(), 4.0, 1e-9);
  EXPECT_THAT(r.faults(), ::testing::ElementsAre("local rank 3 died during the move"));
  const std::string text = r.to_text();
  EXPECT_THAT(text, HasSubstr("moves made: 2 in 1 plan(s)"));
  EXPECT_THAT(text, HasSubstr("moved r0: CPUs 0 -> 1, r1: CPUs 1 -> 0"));
  EXPECT_THAT(text, HasSubstr("symptom idleness   lasted 0.6 s (from 0.8 s), ranks waited 0.90 s"));
  // The estimate says what it rests on.
  EXPECT_THAT(text, HasSubstr("time recovered (estimate): 4.00 s"));
  EXPECT_THAT(text, HasSubstr("made 1200 calls in 8.00 s after it; at 100.0 calls/s, its rate "
                              "before, they would have taken 12.00 s"));
  EXPECT_EQ(r.to_json()["moves"], 2);
}

TEST(Report, SymptomsLastFromOnsetToTheirEndNotFromFirstToLastLine) {
  // A symptom logged once and never said to end lasted until the end of the job.
  Report r;
  r.add({{"event", "symptom"}, {"metric", "idleness"}, {"present", true}, {"t_s", 0.2}});
  r.add({{"event", "symptom"}, {"metric", "outofsync"}, {"present", true}, {"t_s", 1.0}});
  r.add({{"event", "symptom"}, {"metric", "outofsync"}, {"present", false}, {"t_s", 3.5}});
  r.add({{"event", "summary"}, {"t_s", 20.2}});
  const auto j = r.to_json();
  EXPECT_DOUBLE_EQ(j["symptoms"]["idleness"]["duration_s"].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ(j["symptoms"]["outofsync"]["duration_s"].get<double>(), 2.5);
  EXPECT_TRUE(j["symptoms"]["idleness"]["wait_s"].is_null());  // the events do not say
  EXPECT_THAT(r.to_text(), HasSubstr("symptom idleness   lasted 20.0 s (from 0.2 s)"));
}

TEST(Report, EveryPlanNotMadeHasOneLineWithItsReason) {
  std::istringstream log(
      R"({"event":"config","config":{"min_gain":0.05,"min_confidence":0.6},"t_s":0}
{"event":"decision","metric":"idleness","moves":[{"rank":0,"from_core":0,"to_core":2,"from_cpus":"0","to_cpus":"2"}],"verdict":"below_threshold","gain":0.031,"confidence":0.9,"net_gain":0.031,"t_s":0.4}
{"event":"decision","metric":"idleness","moves":[{"rank":0,"from_core":0,"to_core":2,"from_cpus":"0","to_cpus":"2"}],"verdict":"below_threshold","gain":0.032,"confidence":0.9,"net_gain":0.032,"t_s":10.4}
{"event":"decision","metric":"outofsync","moves":[{"rank":1,"from_core":1,"to_core":0,"from_cpus":"1","to_cpus":"0"}],"verdict":"low_confidence","gain":0.2,"confidence":0.31,"net_gain":0.2,"t_s":0.6}
{"event":"decision","metric":"capability","moves":[],"verdict":"no_better_core","t_s":0.7}
{"event":"decision","metric":"idleness","moves":[],"verdict":"no_better_core","evidence":{"symptom":{"capability_resolution":0.1}},"t_s":0.75}
{"event":"decision","metric":"locality","moves":[{"rank":1,"from_core":1,"to_core":5}],"verdict":"not_allowed","gain":0.2,"t_s":0.8}
{"event":"decision","metric":"idleness","moves":[{"rank":1,"from_core":1,"to_core":3}],"verdict":"accepted","gain":0.2,"t_s":0.9}
{"event":"summary","t_s":12}
)");
  const Report r = summarize(log);
  ASSERT_EQ(r.rejections().size(), 5u);
  EXPECT_EQ(r.rejections()[0].times, 2);
  const std::string text = r.to_text();
  EXPECT_THAT(text, HasSubstr("not done:"));
  EXPECT_THAT(text, HasSubstr("idleness: r0: CPUs 0 -> 2: predicted gain 3.2% under min_gain "
                              "5.0% (2 times from 0.4 s)"));
  EXPECT_THAT(text, HasSubstr("outofsync: r1: CPUs 1 -> 0: confidence 0.31 under min_confidence "
                              "0.60"));
  EXPECT_THAT(text, HasSubstr("capability: no better core"));
  EXPECT_THAT(text, HasSubstr("idleness: no better core: no free place of the rank's size in the "
                              "domain offers more (capabilities within 10.0% of each other, the "
                              "figures' resolution, count as equal)"));
  EXPECT_THAT(text, HasSubstr("locality: r1: L:1 -> L:5: outside the domain"));
  EXPECT_THAT(text, HasSubstr("moves made: 0"));
  EXPECT_THAT(text, HasSubstr("time recovered: none estimated (no move made)"));
}

TEST(Report, TheResolutionNoteStaysOffARankOnADegradedCore) {
  // Equal work on a noisy and a clean core: no swap helps whoever sits where, and the cores are
  // not equal; the note that readings within the resolution count as equal would say they were.
  std::istringstream log(
      R"({"event":"decision","metric":"idleness","moves":[],"verdict":"no_better_core","evidence":{"symptom":{"capability_resolution":0.017,"ranks":[{"rank":0,"capability":1.0},{"rank":1,"capability":0.65}]}},"t_s":0.3}
{"event":"summary","t_s":12}
)");
  const std::string text = summarize(log).to_text();
  EXPECT_THAT(text, HasSubstr("idleness: no better core: no free place of the rank's size in the "
                              "domain offers more"));
  EXPECT_THAT(text, Not(HasSubstr("capabilities within")));
}

TEST(Report, ListsEveryMoveWithItsPredictionAndOutcome) {
  std::istringstream log(
      R"({"event":"plan","plan":1,"moves":[{"rank":0,"from_core":0,"to_core":1},{"rank":1,"from_core":1,"to_core":0}],"metrics":["idleness"],"predicted_gain":0.25,"rollback":false,"t_s":0.5}
{"event":"actuation","plan":1,"completed":true,"rollback":false,"moves_in_effect":[{"rank":0,"from_core":0,"to_core":1},{"rank":1,"from_core":1,"to_core":0}],"faults":[],"t_s":0.6}
{"event":"evaluation","plan":1,"progress_before":100,"progress_after":125,"observed_gain":0.2,"t_s":1.6}
{"event":"advice","plan":2,"moves":[{"rank":2,"from_core":2,"to_core":3}],"metrics":["locality"],"predicted_gain":0.1,"rollback":false,"t_s":7}
{"event":"plan","plan":3,"moves":[{"rank":4,"from_core":4,"to_core":5}],"metrics":["outofsync"],"predicted_gain":0.1,"rollback":false,"t_s":8}
{"event":"actuation","plan":3,"completed":false,"rollback":false,"moves_in_effect":[],"faults":["local rank 4 did not answer within 3 s"],"t_s":11}
)");
  const Report r = summarize(log);
  ASSERT_EQ(r.plan_lines().size(), 2u);  // the failed plan made no move
  // Without the CPUs in the log, logical numbers, said so.
  EXPECT_EQ(r.plan_lines()[0].moves, "r0: L:0 -> L:1, r1: L:1 -> L:0");
  ASSERT_TRUE(r.plan_lines()[0].observed_gain);
  EXPECT_DOUBLE_EQ(*r.plan_lines()[0].observed_gain, 0.2);
  EXPECT_TRUE(r.plan_lines()[1].advice);
  const std::string text = r.to_text();
  EXPECT_THAT(text, HasSubstr("moved r0: L:0 -> L:1, r1: L:1 -> L:0 (idleness), predicted 25.0%, "
                              "observed 20.0%"));
  EXPECT_THAT(text, HasSubstr("advised r2: L:2 -> L:3 (locality), predicted 10.0%"));
  EXPECT_THAT(text, HasSubstr("fault: local rank 4 did not answer within 3 s"));
  // No summary (the job ended before the analyzer could write one): no estimate either.
  EXPECT_FALSE(r.recovered());
  EXPECT_THAT(text, HasSubstr("time recovered: none estimated (no kept move measured)"));
}

TEST(Report, ShowsWhatTheAnalysisCost) {
  Report r;
  r.add({{"event", "summary"}, {"t_s", 8.0}});
  EXPECT_FALSE(r.analyzer_cost());  // a summary that does not say (symmerd's)
  EXPECT_THAT(r.to_text(), ::testing::Not(HasSubstr("analysis cost")));
  r.add({{"event", "summary"},
         {"cpu_s", 0.05},
         {"startup_cpu_s", 0.01},
         {"windows", 80},
         {"t_s", 8.0}});
  ASSERT_TRUE(r.analyzer_cost());
  EXPECT_EQ(r.analyzer_cost()->windows, 80);
  EXPECT_DOUBLE_EQ(r.to_json()["analyzer"]["cpu_s"].get<double>(), 0.05);
  // (0.05 - 0.01) s over 80 windows: 0.5 ms each.
  EXPECT_THAT(r.to_text(), HasSubstr("analysis cost: 0.050 s CPU (0.010 s start-up, 80 windows, "
                                     "0.50 ms each)"));
}

TEST(Report, EmptyLogIsAnEmptyReport) {
  std::istringstream log("");
  const Report r = summarize(log);
  EXPECT_EQ(r.plans(), 0);
  EXPECT_FALSE(r.reaction_s());
  EXPECT_THAT(r.to_text(), HasSubstr("symptoms: none seen"));
}

}  // namespace
}  // namespace symmer::analysis
