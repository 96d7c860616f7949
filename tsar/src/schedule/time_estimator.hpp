// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One device's time per iteration, robust to spikes (a page-fault storm, a preempted worker).
//
// The estimate is the lower median of the last kHistory per-pass samples: one outlier pass
// cannot move it, and with an even count the faster sample wins, so a device that had one
// bad first pass gets the benefit of the doubt instead of starving. When kRetrainStreak
// samples in a row miss the estimate by more than kRetrainFactor, the device really changed
// speed (noise started, data became resident): the history is dropped and re-trained from
// those samples.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace tsar::core {

class TimeEstimator {
 public:
  static constexpr int kHistory = 5;
  static constexpr double kRetrainFactor = 1.5;
  static constexpr int kRetrainStreak = 2;

  /// Seconds per iteration to use before any measurement; 0 = unknown.
  void set_prior(double seconds) {
    prior_ = seconds;
    ++version_;
  }
  double prior() const { return prior_; }

  /// Adds one pass's measurement (seconds per iteration, > 0).
  void add(double seconds_per_iteration);
  /// Lower median of the history; the prior while nothing was measured.
  double estimate() const { return count_ > 0 ? median_ : prior_; }
  bool measured() const { return count_ > 0; }
  /// Measurements since the last re-training (at most kHistory kept).
  std::int64_t samples() const { return count_; }
  /// How far apart the kept samples lie: (largest - smallest) / estimate, the estimate's own
  /// noise; 0 with fewer than kScatterSamples kept (too few to tell noise from speed).
  double scatter() const { return scatter_; }
  static constexpr int kScatterSamples = 3;
  /// Re-trainings so far (large, persistent prediction errors).
  std::int64_t retrains() const { return retrains_; }
  /// Forgets every measurement (the prior stays).
  void reset();
  /// Changes with every sample, reset and prior: what was computed from this estimator alone
  /// still holds while it is the same.
  std::uint64_t version() const { return version_; }

 private:
  void update_median();
  void insert_sorted(double sample);
  void replace_sorted(double leaving, double sample);

  std::array<double, kHistory> ring_{};
  std::array<double, kHistory> sorted_window_{};  ///< the kept samples in ascending order
  int sorted_ = 0;                                ///< how many: min(count_, kHistory)
  double median_ = 0.0;
  double scatter_ = 0.0;
  std::int64_t count_ = 0;
  int streak_ = 0;
  std::int64_t retrains_ = 0;
  double prior_ = 0.0;
  std::uint64_t version_ = 0;
};

/// Times per iteration in one unit for all workers, into out: measured workers give their
/// estimate; a worker not measured yet gets its prior scaled by the median measured/prior
/// ratio of the measured ones (priors from peaks are only relative). Inactive workers get
/// +inf. `scratch` is working storage (reused: no allocation in steady state).
/// The median measured/prior ratio of the measured active workers (1 when none): what
/// effective_times multiplies the priors of workers not measured yet by.
double prior_scale(std::span<const TimeEstimator> estimators, std::span<const unsigned char> active,
                   std::vector<double>& scratch);
void effective_times(std::span<const TimeEstimator> estimators,
                     std::span<const unsigned char> active, std::span<double> out,
                     std::vector<double>& scratch);
/// The same for `workers` alone: out[j] for each j of them; the others' entries stay.
void effective_times(std::span<const TimeEstimator> estimators,
                     std::span<const unsigned char> active, std::span<const std::size_t> workers,
                     std::span<double> out, std::vector<double>& scratch);

/// Initial times per iteration: given[j] > 0 where the user or the cache knew it, else the
/// peak-based relative time scaled by the median given/peak ratio of the known ones.
std::vector<double> consistent_priors(std::span<const double> peak_based,
                                      std::span<const double> given);

}  // namespace tsar::core
