// SPDX-License-Identifier: BSD-3-Clause
// Compute model figures against hand-computed values.
#include "symmer/analysis/compute_model.hpp"

#include <gtest/gtest.h>

#include "symmer/analysis/move.hpp"
#include "synthetic_job.hpp"

namespace symmer::analysis {
namespace {

TEST(ComputeModel, DemandIsComputeTimesCapability) {
  // Rank 0 needs 40 ms of a full core per iteration but sits on a half core: 80 ms.
  auto job = testing::paired_job({0.040, 0.010}, {0.5, 1.0});
  const auto w = job.window(1.0, 0);
  const ComputeModel model(w);
  const double iterations = 1.0 / (0.080 + job.comm_s);
  EXPECT_NEAR(model.demand(0), iterations * 0.040, 1e-6);
  EXPECT_NEAR(model.demand(1), iterations * 0.010, 1e-6);
  EXPECT_NEAR(model.critical_path(), iterations * 0.080, 1e-6);
}

TEST(ComputeModel, SwapPredictionMatchesTheReferenceJob) {
  auto job = testing::paired_job({0.040, 0.010}, {0.5, 1.0});
  const auto w = job.window(1.0, 0);
  const ComputeModel model(w);
  const Move swap[] = {{0, 0, 1}, {1, 1, 0}};
  // Reference: after the swap the iteration takes max(40 ms, 20 ms) + comm instead of 80 ms +
  // comm; the model predicts the same share of time saved.
  auto swapped = job;
  swapped.core = {1, 0};
  const double expected = 1.0 - swapped.iteration(0) / job.iteration(0);
  EXPECT_NEAR(model.gain(cores_after(w, swap)), expected, 1e-3);
}

TEST(ComputeModel, UnchangedMappingPredictsNothing) {
  auto job = testing::paired_job({0.030, 0.010, 0.020, 0.020}, {0.5, 1.0, 0.9, 0.7});
  const auto w = job.window(1.0, 0);
  const ComputeModel model(w);
  EXPECT_DOUBLE_EQ(model.gain(cores_after(w, {})), 0.0);
}

TEST(ComputeModel, SharingACoreHalvesCapability) {
  auto job = testing::paired_job({0.010, 0.010}, {1.0, 1.0});
  const auto w = job.window(1.0, 0);
  const ComputeModel model(w);
  const Move onto_neighbour[] = {{1, 1, 0}};
  const auto times = model.compute_times(cores_after(w, onto_neighbour));
  EXPECT_NEAR(times.at(0), 2 * model.demand(0), 1e-9);
  EXPECT_LT(model.gain(cores_after(w, onto_neighbour)), 0.0);
}

// Rank 0 on a core that read 0.93, a free core that read 1.0: with exact figures a real
// difference; with readings right to a tick of a 100 ms window (0.1) possibly equal cores.
TEST(ComputeModel, ReadingsWithinTheResolutionCountAsEqual) {
  auto job = testing::paired_job({0.040, 0.010}, {0.93, 1.0, 1.0});
  auto w = job.window(1.0, 0);
  const Move to_free[] = {{0, 0, 2}};
  EXPECT_GT(ComputeModel(w).gain(cores_after(w, to_free)), 0.05);
  w.capability_resolution = 0.1;
  EXPECT_DOUBLE_EQ(ComputeModel(w).gain(cores_after(w, to_free)), 0.0);
}

TEST(ComputeModel, OfALargerDifferenceOnlyTheExcessCounts) {
  auto job = testing::paired_job({0.040, 0.010}, {0.5, 1.0, 1.0});
  auto w = job.window(1.0, 0);
  w.capability_resolution = 0.1;
  const ComputeModel model(w);
  const Move to_free[] = {{0, 0, 2}};
  EXPECT_NEAR(model.compute_times(cores_after(w, to_free)).at(0), model.demand(0) / 0.9, 1e-9);
  const Move swap[] = {{0, 0, 1}, {1, 1, 0}};
  const auto swapped = model.compute_times(cores_after(w, swap));
  EXPECT_NEAR(swapped.at(0), model.demand(0) / 0.9, 1e-9);
  EXPECT_NEAR(swapped.at(1), model.demand(1) / 0.6, 1e-9);
}

}  // namespace
}  // namespace symmer::analysis
