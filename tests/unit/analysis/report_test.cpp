// SPDX-License-Identifier: BSD-3-Clause
// The end-of-job report from decision-log events.
#include "symmer/analysis/report.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

namespace symmer::analysis {
namespace {

TEST(Report, SummarisesALog) {
  std::istringstream log(R"({"event":"config","t_s":0}
{"event":"symptom","metric":"idleness","present":true,"severity":0.4,"t_s":1.0}
{"event":"symptom","metric":"idleness","present":true,"severity":0.5,"t_s":1.2}
not json at all
{"event":"plan","plan":1,"t_s":1.2}
{"event":"actuation","plan":1,"completed":true,"rollback":false,"moves_in_effect":[{"rank":0,"from":0,"to":1},{"rank":1,"from":1,"to":0}],"faults":[],"reaction_s":0.45,"t_s":1.3}
{"event":"evaluation","plan":1,"progress_before":100,"progress_after":150,"t_s":2.3}
{"event":"actuation","plan":2,"completed":false,"rollback":false,"moves_in_effect":[],"faults":["local rank 3 died during the move"],"t_s":5}
{"event":"summary","t_s":11.3}
)");
  const Report r = summarize(log);
  EXPECT_EQ(r.plans(), 1);
  EXPECT_EQ(r.moves(), 2);
  EXPECT_EQ(r.rollbacks(), 0);
  ASSERT_TRUE(r.reaction_s());
  EXPECT_DOUBLE_EQ(*r.reaction_s(), 0.45);
  // 10 s after the move at 1.5x the rate: the same work would have taken 15 s.
  EXPECT_NEAR(r.time_recovered_s(), 5.0, 1e-9);
  EXPECT_DOUBLE_EQ(r.symptoms().at("idleness").max_severity, 0.5);
  EXPECT_DOUBLE_EQ(r.symptoms().at("idleness").first_seen_s, 1.0);
  EXPECT_THAT(r.faults(), ::testing::ElementsAre("local rank 3 died during the move"));
  const std::string text = r.to_text();
  EXPECT_THAT(text, ::testing::HasSubstr("moves made: 2 in 1 plan(s)"));
  EXPECT_THAT(text, ::testing::HasSubstr("time recovered: 5.00 s"));
  EXPECT_EQ(r.to_json()["moves"], 2);
}

TEST(Report, RolledBackPlansCountOnlyUntilTheRollback) {
  Report r;
  r.add({{"event", "actuation"},
         {"plan", 1},
         {"completed", true},
         {"moves_in_effect", {1, 2}},
         {"t_s", 1.0}});
  r.add({{"event", "evaluation"},
         {"plan", 1},
         {"progress_before", 100.0},
         {"progress_after", 80.0},
         {"t_s", 2.0}});
  r.add({{"event", "actuation"},
         {"plan", 2},
         {"completed", true},
         {"rollback", true},
         {"undoes", 1},
         {"t_s", 3.0}});
  r.add({{"event", "summary"}, {"t_s", 100.0}});
  EXPECT_EQ(r.rollbacks(), 1);
  EXPECT_NEAR(r.time_recovered_s(), 2.0 * (0.8 - 1.0), 1e-9);  // lost, for 2 s
}

TEST(Report, ListsEveryMoveWithItsPredictionAndOutcome) {
  std::istringstream log(
      R"({"event":"plan","plan":1,"moves":[{"rank":0,"from":0,"to":1},{"rank":1,"from":1,"to":0}],"metrics":["idleness"],"predicted_gain":0.25,"rollback":false,"t_s":0.5}
{"event":"actuation","plan":1,"completed":true,"rollback":false,"moves_in_effect":[{"rank":0,"from":0,"to":1},{"rank":1,"from":1,"to":0}],"faults":[],"t_s":0.6}
{"event":"evaluation","plan":1,"progress_before":100,"progress_after":125,"observed_gain":0.2,"t_s":1.6}
{"event":"advice","plan":2,"moves":[{"rank":2,"from":2,"to":3}],"metrics":["locality"],"predicted_gain":0.1,"rollback":false,"t_s":7}
{"event":"plan","plan":3,"moves":[{"rank":4,"from":4,"to":5}],"metrics":["outofsync"],"predicted_gain":0.1,"rollback":false,"t_s":8}
{"event":"actuation","plan":3,"completed":false,"rollback":false,"moves_in_effect":[],"faults":["local rank 4 did not answer within 3 s"],"t_s":11}
)");
  const Report r = summarize(log);
  ASSERT_EQ(r.plan_lines().size(), 2u);  // the failed plan made no move
  EXPECT_EQ(r.plan_lines()[0].moves, "r0:c0->c1, r1:c1->c0");
  ASSERT_TRUE(r.plan_lines()[0].observed_gain);
  EXPECT_DOUBLE_EQ(*r.plan_lines()[0].observed_gain, 0.2);
  EXPECT_TRUE(r.plan_lines()[1].advice);
  const std::string text = r.to_text();
  EXPECT_THAT(text, ::testing::HasSubstr(
                        "moved r0:c0->c1, r1:c1->c0 (idleness), predicted 25.0%, observed 20.0%"));
  EXPECT_THAT(text, ::testing::HasSubstr("advised r2:c2->c3 (locality), predicted 10.0%"));
  EXPECT_THAT(text, ::testing::HasSubstr("fault: local rank 4 did not answer within 3 s"));
}

TEST(Report, ShowsWhatTheAnalysisCost) {
  Report r;
  r.add({{"event", "summary"}, {"t_s", 8.0}});
  EXPECT_FALSE(r.analyzer_cost());  // a summary that does not say (symmerd's)
  EXPECT_THAT(r.to_text(), ::testing::Not(::testing::HasSubstr("analysis cost")));
  r.add({{"event", "summary"},
         {"cpu_s", 0.05},
         {"startup_cpu_s", 0.01},
         {"windows", 80},
         {"t_s", 8.0}});
  ASSERT_TRUE(r.analyzer_cost());
  EXPECT_EQ(r.analyzer_cost()->windows, 80);
  EXPECT_DOUBLE_EQ(r.to_json()["analyzer"]["cpu_s"].get<double>(), 0.05);
  // (0.05 - 0.01) s over 80 windows: 0.5 ms each.
  EXPECT_THAT(r.to_text(), ::testing::HasSubstr(
                               "analysis cost: 0.050 s CPU (0.010 s start-up, 80 windows, 0.50 ms "
                               "each)"));
}

TEST(Report, EmptyLogIsAnEmptyReport) {
  std::istringstream log("");
  const Report r = summarize(log);
  EXPECT_EQ(r.plans(), 0);
  EXPECT_FALSE(r.reaction_s());
  EXPECT_THAT(r.to_text(), ::testing::HasSubstr("symptoms: none seen"));
}

}  // namespace
}  // namespace symmer::analysis
