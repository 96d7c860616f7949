// SPDX-License-Identifier: BSD-3-Clause
// TSAR_TRACE tells each participation trial's decision: a line {"trial": ..., "region": ...,
// "pass": ...} after the pass that decided it. TSAR_TRACE is read when the first region of a
// process opens the trace: a binary of its own.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "emulated_clock.hpp"
#include "tsar/tsar.hpp"

TEST(TraceTrials, ATrialThatTakesAnAcceleratorOutIsTraced) {
  // Two equal accelerators (1 ms a row, 48 rows), emulated: a pass both take part in costs
  // each 40 ms more (one more launch, halo copies): 64 ms against 48 ms for one alone. A
  // trial takes one out, and the trace says which, why, and the rounds it compared.
  const std::string path =
      ::testing::TempDir() + "/tsar-trace-trials-" + std::to_string(getpid()) + ".jsonl";
  ::setenv("TSAR_TRACE", path.c_str(), 1);
  tsar::set_devices("omphost:1,omphost:1");
  const std::int64_t rows = 48;
  std::vector<std::int64_t> last;
  {
    tsar::Region region("two accelerators", "adaptive");
    auto clock = emulated::emulate_time(region);
    ASSERT_EQ(region.num_devices(), 2);
    for (int pass = 0; pass < 80; ++pass) {
      region.parallel_for(rows, [&](const tsar::Chunk& c) {
        const double both = c.size() < rows ? 40e-3 : 0.0;
        clock->advance(c.worker(), both + 1e-3 * static_cast<double>(c.size()));
      });
    }
    last = region.split();
  }
  // The region's end flushed the trace.
  ASSERT_TRUE(last[0] == 0 || last[1] == 0) << "one accelerator sits out";

  std::ifstream in(path);
  std::vector<nlohmann::json> trials;
  int passes = 0;
  int first_out = -1;  // the first pass an accelerator ran no rows: the trial's move
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j.contains("trial")) {
      trials.push_back(j);
      continue;
    }
    ++passes;
    for (const auto& d : j["devices"])
      if (first_out < 0 && d["iterations"].get<int>() == 0) first_out = j["pass"].get<int>();
  }
  std::remove(path.c_str());
  EXPECT_EQ(passes, 80);
  ASSERT_FALSE(trials.empty());
  const auto& first = trials.front();
  EXPECT_EQ(first["region"], "two accelerators");
  // Decided by the pass that ran its fifth round, five passes after its move.
  EXPECT_EQ(first["pass"].get<int>(), first_out + 5);
  const auto& t = first["trial"];
  EXPECT_EQ(t["way"], "out");
  EXPECT_TRUE(t["switched"].get<bool>());
  EXPECT_EQ(t["why"], "faster");
  EXPECT_EQ(t["unit"].get<std::string>().rfind("omphost", 0), 0u) << t["unit"];
  ASSERT_EQ(t["rounds"].size(), 5u);
  for (const auto& r : t["rounds"]) EXPECT_LT(r.get<double>(), 0.95);
  EXPECT_EQ(t["baseline_rounds"].size(), 5u);
  EXPECT_LE(t["u"].get<int>(), t["critical_u"].get<int>());
}
