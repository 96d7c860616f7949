// SPDX-License-Identifier: BSD-3-Clause
// The one CPU-list parser, its inverse, and where a thread goes when its rank's set moves.
#include "symmer/topology/cpu_list.hpp"

#include "symmer/topology/node_model.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace symmer::topology {
namespace {

using ::testing::HasSubstr;
using V = std::vector<int>;

TEST(CpuList, ParsesNumbersAndRanges) {
  EXPECT_EQ(parse_cpu_list("0").value(), V{0});
  EXPECT_EQ(parse_cpu_list("0-3,8").value(), (V{0, 1, 2, 3, 8}));
  EXPECT_EQ(parse_cpu_list("8,0-1,1").value(), (V{0, 1, 8}));
  EXPECT_EQ(parse_cpu_list("5-5").value(), V{5});
  EXPECT_EQ(parse_cpu_list("8191").value(), V{8191});
}

TEST(CpuList, RejectsEverythingElseNamingTheItem) {
  for (const char* bad : {"", ",", "0,", ",0", "0,,1", "0-", "-1", "3-1", "0x1", "1a", "0 ",
                          " 0", "0-3junk", "+1", "8192", "0-99999", "1.5", "0;1", "L:0"}) {
    const auto r = parse_cpu_list(bad);
    ASSERT_FALSE(r) << "'" << bad << "'";
    EXPECT_EQ(r.error().code, Errc::kParse);
  }
  EXPECT_THAT(parse_cpu_list("0-3,x").error().message, HasSubstr("'x'"));
  EXPECT_THAT(parse_cpu_list("3-1").error().message, HasSubstr("backwards"));
  EXPECT_THAT(parse_cpu_list("L:0-1").error().message, HasSubstr("Linux CPU numbers"));
}

TEST(CpuList, FormatsWithRangesAndRoundTrips) {
  EXPECT_EQ(format_cpu_list(V{}), "");
  EXPECT_EQ(format_cpu_list(V{3}), "3");
  EXPECT_EQ(format_cpu_list(V{8, 0, 1, 2, 3, 3}), "0-3,8");
  EXPECT_EQ(format_cpu_list(V{0, 2, 4, 5}), "0,2,4-5");
  for (const char* text : {"0", "0-3,8", "1,3,5-7,100-101"})
    EXPECT_EQ(format_cpu_list(parse_cpu_list(text).value()), text);
}

TEST(CpuList, ThreadsKeepTheirRelativePlacesWhenTheirSetMoves) {
  const V from = {0, 1, 2, 3}, to = {8, 9, 12, 13};
  EXPECT_EQ(map_relative(V{1}, from, to), V{9});
  EXPECT_EQ(map_relative(V{2, 3}, from, to), (V{12, 13}));
  EXPECT_EQ(map_relative(from, from, to), to);               // bound to the whole set
  EXPECT_EQ(map_relative(V{0, 1, 2, 3, 4}, from, to), to);   // or wider (unbound)
  EXPECT_EQ(map_relative(V{20}, from, to), to);              // outside the set: the whole set
  EXPECT_EQ(map_relative(V{1, 20}, from, to), V{9});         // the part inside counts
  // A rollback restores every place.
  EXPECT_EQ(map_relative(map_relative(V{3}, from, to), to, from), V{3});
  // Sets of different sizes (an unbound rank pinned): the whole target.
  EXPECT_EQ(map_relative(V{0, 1}, V{0, 1}, V{5}), V{5});
  EXPECT_EQ(map_relative(V{5}, V{5}, V{0, 1}), (V{0, 1}));
}

TEST(CpuList, SelectionsAreLinuxCpusOrPrefixedLogicalCores) {
  // 4 cores of 2 hardware threads: core c holds Linux CPUs 2c and 2c+1.
  const auto node = NodeModel::from_synthetic("pack:1 core:4 pu:2");
  EXPECT_EQ(parse_core_selection("3", node).value(), V{1});
  EXPECT_EQ(parse_core_selection("0-1,6", node).value(), (V{0, 3}));
  EXPECT_EQ(parse_core_selection("L:3", node).value(), V{3});
  EXPECT_EQ(parse_core_selection("L:0-1", node).value(), (V{0, 1}));
  EXPECT_THAT(parse_core_selection("8", node).error().message, HasSubstr("CPU 8"));
  EXPECT_THAT(parse_core_selection("L:4", node).error().message, HasSubstr("L:4"));
  EXPECT_FALSE(parse_core_selection("L:", node));
  EXPECT_FALSE(parse_core_selection("l:1", node));
}

TEST(CpuList, SelectionsDoNotReadLinuxNumbersAsLogicalOnes) {
  // hwloc numbers package 0's cores first; Linux alternates the packages: logical core 1
  // holds CPUs 2 and 6, core 2 holds CPUs 1 and 5.
  const auto node = NodeModel::from_synthetic("pack:2 core:2 pu:2(indexes=0,4,2,6,1,5,3,7)");
  EXPECT_EQ(parse_core_selection("1", node).value(), V{2});
  EXPECT_EQ(parse_core_selection("2", node).value(), V{1});
  EXPECT_EQ(parse_core_selection("L:1", node).value(), V{1});
  EXPECT_EQ(parse_core_selection("1,5,6", node).value(), (V{1, 2}));
}

}  // namespace
}  // namespace symmer::topology
