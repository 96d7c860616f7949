// SPDX-License-Identifier: BSD-3-Clause
// TSAR_TRACE with partitions: each pass a JSON line with its places' placement statistics,
// next to the inner loops' region lines. The sink opens once per process: its own binary.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tsar/tsar.hpp"

TEST(PartitionTrace, EveryPassWithItsPlacesLandsInTheJsonLines) {
  const std::string path =
      ::testing::TempDir() + "/tsar-partition-trace-" + std::to_string(getpid()) + ".jsonl";
  setenv("TSAR_TRACE", path.c_str(), 1);
  std::vector<double> a(10000, 1.0);
  {
    tsar::Partition part("traced", "cpu:0|cpu:1", "static");
    part.map_array(a.data(), tsar::Partition::vector(a.size(), TSAR_MEM_INOUT, "a"));
    part.set_policy(tsar::MemPolicy::replicate);
    for (int pass = 0; pass < 3; ++pass)
      part.run(static_cast<std::int64_t>(a.size()), [&](tsar::Place& place) {
        double* ap = place.mem(a.data());
        place.for_each(0, place.begin(), place.end(), [&](std::int64_t i) { ap[i] += 1.0; });
      });
  }
  EXPECT_EQ(a[0], 4.0);
  std::ifstream in(path);
  int partition_lines = 0, loop_lines = 0;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j.contains("partition")) {
      EXPECT_EQ(j["partition"], "traced");
      EXPECT_EQ(j["policy"], "replicate");
      EXPECT_EQ(j["pass"], partition_lines);
      ASSERT_EQ(j["places"].size(), 2u);
      EXPECT_EQ(j["places"][1]["end"], 10000);
      EXPECT_EQ(j["places"][0]["bytes_replicated"], 5000 * 8);
      EXPECT_EQ(j["places"][0]["bytes_merged"], 5000 * 8);
      ++partition_lines;
    } else if (j.value("region", "").rfind("traced/place:", 0) == 0) {
      ++loop_lines;
    }
  }
  EXPECT_EQ(partition_lines, 3);
  EXPECT_EQ(loop_lines, 3 * 2);  // one inner loop per place per pass
  std::remove(path.c_str());
}
