// SPDX-License-Identifier: BSD-3-Clause
// Window validation (untrusted segment data) and aggregation.
#include "symmer/analysis/window_sample.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "symmer/topology/node_model.hpp"
#include "synthetic_job.hpp"

namespace symmer::analysis {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

const topology::NodeModel& four_cores() {
  static const auto node = topology::NodeModel::from_synthetic("pack:1 l3:1 core:4 pu:1");
  return node;
}

WindowSample sound_window() {
  return testing::paired_job({0.01, 0.01, 0.01, 0.01}, {1, 1, 1, 1}).window(0.2, 0);
}

std::string all(const std::vector<std::string>& problems) {
  std::string out;
  for (const auto& p : problems) out += p + "\n";
  return out;
}

TEST(WindowSample, SoundWindowHasNoProblems) {
  EXPECT_THAT(validate(sound_window(), four_cores()), IsEmpty());
}

TEST(WindowSample, NamesEachCorruption) {
  auto w = sound_window();
  w.ranks[1].local_rank = 0;                // duplicate
  w.ranks[2].core = 9;                      // not a core of the node
  w.ranks[3].idle_ns = 10 * w.duration_ns;  // longer than the window
  w.ranks[0].pid = -4;
  w.core_capability[2] = 1.7;
  w.capability_resolution = -0.1;
  const std::string problems = all(validate(w, four_cores()));
  EXPECT_THAT(problems, HasSubstr("local rank 0 appears twice"));
  EXPECT_THAT(problems, HasSubstr("local rank 2: core 9 is not a core of this node (0..3)"));
  EXPECT_THAT(problems, HasSubstr("local rank 3: idle + compute time exceeds the window"));
  EXPECT_THAT(problems, HasSubstr("pid -4"));
  EXPECT_THAT(problems, HasSubstr("core_capability[2] = 1.7"));
  EXPECT_THAT(problems, HasSubstr("capability_resolution = -0.1"));
}

TEST(WindowSample, PhaseCreditedAtItsEndIsNotCorruption) {
  // A rank computing 400 ms between MPI calls credits all of it to the 100 ms window in which
  // the phase ends; its publishes were 400 ms apart, so the window is sound.
  auto w = sound_window();
  w.duration_ns = 100'000'000;
  w.ranks[1].idle_ns = 0;
  w.ranks[1].compute_ns = 400'000'000;
  w.ranks[1].span_ns = 400'000'000;
  EXPECT_THAT(validate(w, four_cores()), IsEmpty());
  w.ranks[1].span_ns = 100'000'000;  // the same figures over one window's span are impossible
  EXPECT_THAT(all(validate(w, four_cores())),
              HasSubstr("local rank 1: idle + compute time exceeds the window"));
}

TEST(WindowSample, RejectsBadShapesAndPeers) {
  auto w = sound_window();
  w.duration_ns = 0;
  w.core_capability.resize(3);
  w.ranks[0].bytes_to_local[0] = 5;           // to itself
  w.ranks[1].late_sender_wait_local[-2] = 1;  // no such peer
  const std::string problems = all(validate(w, four_cores()));
  EXPECT_THAT(problems, HasSubstr("window duration is 0"));
  EXPECT_THAT(problems, HasSubstr("core_capability has 3 entries, the node has 4 cores"));
  EXPECT_THAT(problems, HasSubstr("bytes to invalid local peer 0"));
  EXPECT_THAT(problems, HasSubstr("late-sender wait on invalid local peer -2"));
}

TEST(WindowSample, NanCapabilityIsRejected) {
  auto w = sound_window();
  w.core_capability[0] = std::nan("");
  EXPECT_THAT(all(validate(w, four_cores())), HasSubstr("core_capability[0]"));
}

TEST(WindowSample, TicksOfAnotherLengthOrNotCountsAreRejected) {
  auto w = sound_window();
  w.core_ticks.resize(3);
  EXPECT_THAT(all(validate(w, four_cores())), HasSubstr("core_ticks and core_capability differ"));
  w.core_ticks.resize(4);
  w.core_ticks[1].job = -1;
  EXPECT_THAT(all(validate(w, four_cores())), HasSubstr("core_ticks[1].job"));
}

// A clean busy core in three 100 ms windows whose job time read a tick short, a tick over and
// right: readings of 0.9, 1.0 (1.1 clamped) and 1.0, whose mean is biased low. Read once from
// the summed ticks, the span gives 1.0, right to a tick of the span.
TEST(WindowSample, AggregateReadsCapabilityOnceFromTheSummedTicks) {
  std::vector<WindowSample> windows(3, sound_window());
  const double job_ticks[] = {9, 11, 10};
  for (std::size_t i = 0; i < windows.size(); ++i) {
    WindowSample& w = windows[i];
    w.duration_ns = 100'000'000;
    w.capability_resolution = 0.1;
    w.core_ticks.assign(4, {});
    for (auto& t : w.core_ticks) t.idle = 10;
    w.core_ticks[0] = {.busy = 10, .job = job_ticks[i]};
    w.core_ticks[1] = {.busy = 10, .job = 5};  // half taken by another process
    for (std::size_t c = 0; c < 4; ++c)
      w.core_capability[c] = topology::capability_of(w.core_ticks[c]);
  }
  EXPECT_DOUBLE_EQ(windows[0].core_capability[0], 0.9);
  EXPECT_DOUBLE_EQ(windows[1].core_capability[0], 1.0);
  const auto sum = aggregate(windows);
  EXPECT_DOUBLE_EQ(sum.core_capability[0], 1.0);
  EXPECT_DOUBLE_EQ(sum.core_capability[1], 0.5);
  EXPECT_DOUBLE_EQ(sum.core_capability[2], 1.0);
  EXPECT_NEAR(sum.capability_resolution, 1.0 / 30, 1e-12);
  EXPECT_DOUBLE_EQ(sum.core_ticks[0].job, 30.0);

  // A window without ticks among them: every reading is taken as it is, as a mean.
  windows[2].core_ticks.clear();
  const auto mixed = aggregate(windows);
  EXPECT_NEAR(mixed.core_capability[0], (0.9 + 1.0 + 1.0) / 3, 1e-12);
  EXPECT_NEAR(mixed.capability_resolution, 0.1, 1e-12);
  EXPECT_TRUE(mixed.core_ticks.empty());
}

TEST(WindowSample, AggregateSumsCountersAndWeighsCapability) {
  auto a = sound_window();
  auto b = sound_window();
  b.duration_ns = 3 * a.duration_ns;
  a.core_capability = {1, 1, 1, 1};
  b.core_capability = {0.2, 1, 1, 1};
  a.capability_resolution = 0.1;
  b.capability_resolution = 0.02;
  a.ranks[0].bytes_to_local = {{1, 100}};
  b.ranks[0].bytes_to_local = {{1, 50}, {2, 7}};
  a.ranks[0].cache_misses = 10;
  b.ranks[0].cache_misses = std::nullopt;  // counters vanished: no partial total
  const WindowSample windows[] = {a, b};
  const auto sum = aggregate(windows);
  EXPECT_EQ(sum.duration_ns, 4 * a.duration_ns);
  EXPECT_NEAR(sum.core_capability[0], (1.0 * 1 + 0.2 * 3) / 4, 1e-12);
  EXPECT_NEAR(sum.capability_resolution, (0.1 * 1 + 0.02 * 3) / 4, 1e-12);
  ASSERT_EQ(sum.ranks.size(), 4u);
  const RankWindow* r0 = sum.find_local(0);
  EXPECT_EQ(r0->compute_ns, a.ranks[0].compute_ns + b.ranks[0].compute_ns);
  EXPECT_EQ(r0->calls, a.ranks[0].calls + b.ranks[0].calls);
  EXPECT_EQ(r0->bytes_to_local.at(1), 150u);
  EXPECT_EQ(r0->bytes_to_local.at(2), 7u);
  EXPECT_FALSE(r0->cache_misses.has_value());
}

TEST(WindowSample, AggregateOfNothingIsEmpty) {
  EXPECT_TRUE(aggregate({}).ranks.empty());
  EXPECT_EQ(aggregate({}).duration_ns, 0u);
}

TEST(WindowSample, MappingChangeIsDetected) {
  const auto a = sound_window();
  auto b = a;
  EXPECT_FALSE(mapping_changed(a, b));
  b.ranks[2].core = 3;
  EXPECT_TRUE(mapping_changed(a, b));
  b = a;
  b.ranks[1].pid = 77;  // a restarted rank is a different process
  EXPECT_TRUE(mapping_changed(a, b));
  b = a;
  b.ranks.pop_back();
  EXPECT_TRUE(mapping_changed(a, b));
}

}  // namespace
}  // namespace symmer::analysis
