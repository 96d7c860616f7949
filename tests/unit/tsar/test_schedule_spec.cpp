// SPDX-License-Identifier: BSD-3-Clause
#include <gtest/gtest.h>
#include <stdlib.h>

#include "api/error.hpp"
#include "schedule/schedule_spec.hpp"

namespace {

using namespace tsar::core;

TEST(ScheduleSpec, ParsesEveryScheduleAndRoundTrips) {
  const char* texts[] = {"static",       "adaptive",       "split",         "split:4",
                         "quick",        "quick:20",       "chunk",         "chunk:500",
                         "chunk-static", "chunk-static:8", "chunk-dynamic", "chunk-dynamic:3",
                         "hybrid",       "hybrid:100",     "hguided",       "hguided:16"};
  for (const char* t : texts) {
    const ScheduleSpec s = parse_schedule(t);
    EXPECT_EQ(s.to_string(), t);
    EXPECT_EQ(parse_schedule(s.to_string()).to_string(), t);
  }
  EXPECT_EQ(parse_schedule("split:4").div, 4);
  EXPECT_EQ(parse_schedule("chunk:500").chunk, 500);
  EXPECT_EQ(parse_schedule(" Chunk_Dynamic : 3 ").kind, ScheduleKind::kChunkDynamic);
}

TEST(ScheduleSpec, RejectsBadNamesAndParametersWithAClearMessage) {
  for (const char* t : {"", "dynamic", "split:0", "split:-1", "split:x", "chunk:1.5", "static:3",
                        "adaptive:2", "split:2000000", "chunk:"}) {
    try {
      parse_schedule(t);
      ADD_FAILURE() << "accepted '" << t << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), TSAR_ERR_SCHEDULE);
      EXPECT_NE(std::string(e.what()).find("valid:"), std::string::npos) << e.what();
    }
  }
}

TEST(ScheduleSpec, ApiBeatsEnvironmentBeatsDefault) {
  unsetenv("TSAR_SCHEDULE");
  EXPECT_EQ(resolve_schedule(nullptr, 0).kind, ScheduleKind::kAdaptive);
  setenv("TSAR_SCHEDULE", "quick:5", 1);
  EXPECT_EQ(resolve_schedule(nullptr, 0).to_string(), "quick:5");
  EXPECT_EQ(resolve_schedule("", 0).to_string(), "quick:5");
  EXPECT_EQ(resolve_schedule("static", 0).kind, ScheduleKind::kStatic);
  EXPECT_EQ(resolve_schedule(nullptr, 7).div, 7);  // the div argument overrides
  setenv("TSAR_SCHEDULE", "bogus", 1);
  try {
    resolve_schedule(nullptr, 0);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("TSAR_SCHEDULE"), std::string::npos);
  }
  unsetenv("TSAR_SCHEDULE");
  EXPECT_THROW(resolve_schedule("split", -1), Error);
}

}  // namespace
