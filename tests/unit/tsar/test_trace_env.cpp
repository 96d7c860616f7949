// SPDX-License-Identifier: BSD-3-Clause
// TSAR_TRACE: every pass of every region, queued as it ends and written in order. The sink
// opens on the first region of the process, so this binary's tests share one file (the exit
// test's child process has its own).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "emulated_clock.hpp"
#include "tsar/tsar.hpp"

namespace {

std::string csv_path() {
  return ::testing::TempDir() + "/tsar-trace-" + std::to_string(getpid()) + ".csv";
}

/// The rows of `region` in the CSV trace, as fields (names unquoted: the tests' have no commas
/// or quotes).
std::vector<std::vector<std::string>> rows_of(const std::string& region) {
  std::ifstream in(csv_path());
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("\"" + region + "\",", 0) != 0) continue;
    std::vector<std::string> fields;
    std::stringstream s(line);
    for (std::string f; std::getline(s, f, ',');)
      fields.push_back(f.size() >= 2 && f.front() == '"' ? f.substr(1, f.size() - 2) : f);
    rows.push_back(fields);
  }
  return rows;
}

class RemoveTrace : public ::testing::Environment {
  void TearDown() override { std::remove(csv_path().c_str()); }
};
const auto* const remove_trace = ::testing::AddGlobalTestEnvironment(new RemoveTrace);

}  // namespace

TEST(TraceEnvironment, EveryPassOfEveryRegionLandsInTheCsv) {
  setenv("TSAR_TRACE", csv_path().c_str(), 1);
  tsar::set_devices("cpu:0,cpu:1");
  {
    tsar::Region a("first", "adaptive");
    tsar::Region b("second", "chunk");
    for (int pass = 0; pass < 3; ++pass) {
      a.parallel_for(100, [](const tsar::Chunk&) {});
      b.parallel_for(100, [](const tsar::Chunk&) {});
    }
  }
  std::ifstream in(csv_path());
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("region,schedule,pass,n,", 0), 0u) << header;
  // In the order the passes ended: a region's rows, then the other's.
  std::string order;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("\"first\",\"adaptive\"", 0) == 0) order += 'a';
    if (line.rfind("\"second\",\"chunk\"", 0) == 0) order += 'b';
  }
  EXPECT_EQ(order, "aabbaabbaabb");  // 3 passes x 2 devices each
}

TEST(TraceEnvironment, ARetiredDevicesRowsNameTheCoreThatTookOver) {
  setenv("TSAR_TRACE", csv_path().c_str(), 1);
  tsar::set_devices("cpu:0,emul:1");
  {
    tsar::Region region("retiring", "adaptive");
    auto clock = emulated::emulate_time(region);
    for (int pass = 0; pass < 6; ++pass)
      region.parallel_for(60, [&](const tsar::Chunk& c) {
        // The emulated accelerator is 8x slower: back-off retires it after two passes.
        const bool accelerator = c.kind() != tsar::DeviceKind::cpu;
        clock->advance(c.worker(), 500e-6 * static_cast<double>(c.size()) * (accelerator ? 8 : 1));
      });
    ASSERT_EQ(region.device(1).retired, 1);
  }
  tsar::set_devices("");
  // Columns: ..., worker (9), device (10), kind (11).
  const auto rows = rows_of("retiring");
  ASSERT_EQ(rows.size(), 6u * 2);
  int emulated = 0, core = 0;
  for (const auto& r : rows) {
    if (r[9] != "1") continue;
    EXPECT_EQ(r[10], r[11] == "emul" ? "emul:0" : "cpu:1");  // the key of the pass's device
    (r[11] == "emul" ? emulated : core)++;
  }
  EXPECT_GE(emulated, 1);
  EXPECT_GE(core, 1);
  EXPECT_EQ(emulated + core, 6);
}

TEST(TraceEnvironment, PassesQueuedAtExitAreWritten) {
  // A region never destroyed: its passes are still queued when the process exits. More of them
  // than the queue holds (4096), so some were written before.
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the child runs this test alone
  // The child process inherits the parent's path.
  if (getenv("TSAR_TEST_EXIT_TRACE") == nullptr)
    setenv(
        "TSAR_TEST_EXIT_TRACE",
        (::testing::TempDir() + "/tsar-trace-exit-" + std::to_string(getpid()) + ".jsonl").c_str(),
        1);
  const std::string path = getenv("TSAR_TEST_EXIT_TRACE");
  EXPECT_EXIT(
      {
        setenv("TSAR_TRACE", path.c_str(), 1);
        tsar::set_devices("cpu:0,cpu:1");
        auto* leaked = new tsar::Region("leaked", "adaptive");
        for (int pass = 0; pass < 5000; ++pass)
          leaked->parallel_for(100, [](const tsar::Chunk&) {});
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  std::ifstream in(path);
  int passes = 0;
  for (std::string line; std::getline(in, line); ++passes) {
    const auto j = nlohmann::json::parse(line);
    ASSERT_EQ(j["region"], "leaked");
    ASSERT_EQ(j["pass"], passes);
    ASSERT_EQ(j["devices"].size(), 2u);
  }
  EXPECT_EQ(passes, 5000);
  std::remove(path.c_str());
}
