// SPDX-License-Identifier: BSD-3-Clause
// SYMMER_* parsing: defaults, accepted values, and an error naming the variable for bad ones.
#include "config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

namespace symmer::shim {
namespace {

using ::testing::HasSubstr;

// Sets variables for one test and clears every SYMMER_* it knows afterwards.
class Env {
 public:
  Env(std::initializer_list<std::pair<const char*, const char*>> vars) {
    clear();
    for (auto [k, v] : vars) ::setenv(k, v, 1);
  }
  ~Env() { clear(); }

 private:
  static void clear() {
    for (const char* k : {"SYMMER_MONITOR", "SYMMER_ANALYZER", "SYMMER_NODE_ID", "SYMMER_JOB_ID",
                          "SYMMER_EAGER_LIMIT", "SYMMER_PERIOD_MS", "SYMMER_EXCHANGE_MS",
                          "SYMMER_PAPI", "SYMMER_CLOCK", "SYMMER_DUMP", "SYMMER_SHM_DIR"})
      ::unsetenv(k);
  }
};

TEST(ShimConfig, Defaults) {
  Env env({});
  auto c = read_config();
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->monitor);
  EXPECT_TRUE(c->embedded_analyzer);
  EXPECT_FALSE(c->node_id);
  EXPECT_FALSE(c->job_id);
  EXPECT_FALSE(c->eager_limit);
  EXPECT_EQ(c->period_ms, 10u);
  EXPECT_EQ(c->exchange_ms, 1000u);
  EXPECT_TRUE(c->papi);
  EXPECT_EQ(c->clock, ClockChoice::kAuto);
  EXPECT_TRUE(c->dump_path.empty());
}

TEST(ShimConfig, AcceptedValues) {
  Env env({{"SYMMER_MONITOR", "On"},
           {"SYMMER_ANALYZER", "off"},
           {"SYMMER_NODE_ID", "2147483647"},
           {"SYMMER_JOB_ID", "0xABCdef"},
           {"SYMMER_EAGER_LIMIT", "64k"},
           {"SYMMER_PERIOD_MS", "60000"},
           {"SYMMER_EXCHANGE_MS", "10"},
           {"SYMMER_PAPI", "no"},
           {"SYMMER_CLOCK", "monotonic"},
           {"SYMMER_DUMP", "/tmp/x-{node}.json"},
           {"SYMMER_SHM_DIR", "/tmp"}});
  auto c = read_config();
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(c->embedded_analyzer);
  EXPECT_EQ(*c->node_id, 2147483647u);
  EXPECT_EQ(*c->job_id, 0xabcdefu);
  EXPECT_EQ(*c->eager_limit, 65536u);
  EXPECT_EQ(c->period_ms, 60000u);
  EXPECT_EQ(c->exchange_ms, 10u);
  EXPECT_FALSE(c->papi);
  EXPECT_EQ(c->clock, ClockChoice::kMonotonic);
  EXPECT_EQ(c->dump_path, "/tmp/x-{node}.json");
  EXPECT_EQ(c->shm_dir, "/tmp");
}

TEST(ShimConfig, DecimalJobId) {
  Env env({{"SYMMER_JOB_ID", "12345"}});
  EXPECT_EQ(*read_config()->job_id, 12345u);
}

struct Bad {
  const char* var;
  const char* value;
};

class ShimConfigRejects : public ::testing::TestWithParam<Bad> {};

TEST_P(ShimConfigRejects, NamesVariableAndValue) {
  const Bad b = GetParam();
  Env env({{b.var, b.value}});
  auto c = read_config();
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, Errc::kInvalidArgument);
  EXPECT_THAT(c.error().message, HasSubstr(b.var));
  EXPECT_THAT(c.error().message, HasSubstr(std::string("'") + b.value + "'"));
  EXPECT_THAT(c.error().message, HasSubstr("expected"));
}

INSTANTIATE_TEST_SUITE_P(
    Values, ShimConfigRejects,
    ::testing::Values(Bad{"SYMMER_MONITOR", "maybe"}, Bad{"SYMMER_ANALYZER", "daemon"},
                      Bad{"SYMMER_NODE_ID", "-1"}, Bad{"SYMMER_NODE_ID", "2147483648"},
                      Bad{"SYMMER_NODE_ID", "1x"}, Bad{"SYMMER_NODE_ID", ""},
                      Bad{"SYMMER_JOB_ID", "0"}, Bad{"SYMMER_JOB_ID", "0x"},
                      Bad{"SYMMER_JOB_ID", "job7"}, Bad{"SYMMER_EAGER_LIMIT", "lots"},
                      Bad{"SYMMER_EAGER_LIMIT", "2t"}, Bad{"SYMMER_EAGER_LIMIT", "k"},
                      Bad{"SYMMER_PERIOD_MS", "0"}, Bad{"SYMMER_PERIOD_MS", "60001"},
                      Bad{"SYMMER_PERIOD_MS", "1.5"}, Bad{"SYMMER_EXCHANGE_MS", "9"},
                      Bad{"SYMMER_PAPI", "2"}, Bad{"SYMMER_CLOCK", "rdtsc"},
                      Bad{"SYMMER_SHM_DIR", "/nonexistent/dir"},
                      Bad{"SYMMER_SHM_DIR", "/etc/passwd"}));

TEST(ShimConfig, ParsesByteCounts) {
  EXPECT_EQ(*parse_bytes("0"), 0u);
  EXPECT_EQ(*parse_bytes("1024"), 1024u);
  EXPECT_EQ(*parse_bytes("16k"), 16384u);
  EXPECT_EQ(*parse_bytes("2M"), 2u << 20);
  EXPECT_EQ(*parse_bytes("1g"), 1u << 30);
  EXPECT_FALSE(parse_bytes(""));
  EXPECT_FALSE(parse_bytes("-1"));
  EXPECT_FALSE(parse_bytes("1kb"));
  EXPECT_FALSE(parse_bytes("99999999999999999999"));
}

}  // namespace
}  // namespace symmer::shim
