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

TEST(Report, EmptyLogIsAnEmptyReport) {
  std::istringstream log("");
  const Report r = summarize(log);
  EXPECT_EQ(r.plans(), 0);
  EXPECT_FALSE(r.reaction_s());
  EXPECT_THAT(r.to_text(), ::testing::HasSubstr("symptoms: none seen"));
}

}  // namespace
}  // namespace symmer::analysis
