// SPDX-License-Identifier: BSD-3-Clause
// TSAR_TRACE: every pass of every region, appended as it ends. The sink opens on the first
// region of the process, so this binary holds this one test only.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "tsar/tsar.hpp"

TEST(TraceEnvironment, EveryPassOfEveryRegionLandsInTheCsv) {
  const std::string path =
      ::testing::TempDir() + "/tsar-trace-" + std::to_string(getpid()) + ".csv";
  setenv("TSAR_TRACE", path.c_str(), 1);
  tsar::set_devices("cpu:0,cpu:1");
  {
    tsar::Region a("first", "adaptive");
    tsar::Region b("second", "chunk");
    for (int pass = 0; pass < 3; ++pass) {
      a.parallel_for(100, [](const tsar::Chunk&) {});
      b.parallel_for(100, [](const tsar::Chunk&) {});
    }
  }
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("region,schedule,pass,n,", 0), 0u) << header;
  int first = 0, second = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("\"first\",\"adaptive\"", 0) == 0) ++first;
    if (line.rfind("\"second\",\"chunk\"", 0) == 0) ++second;
  }
  EXPECT_EQ(first, 3 * 2);  // 3 passes x 2 devices
  EXPECT_EQ(second, 3 * 2);
  std::remove(path.c_str());
}
