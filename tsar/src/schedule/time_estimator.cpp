// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/time_estimator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tsar::core {
namespace {

double median(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

void TimeEstimator::add(double sample) {
  if (!(sample > 0.0)) return;
  ++version_;
  if (measured()) {
    const double est = estimate();
    const bool outlier = sample > est * kRetrainFactor || sample < est / kRetrainFactor;
    streak_ = outlier ? streak_ + 1 : 0;
    if (streak_ >= kRetrainStreak) {
      // Keep only the streak (the newest kRetrainStreak - 1 samples) plus this one.
      std::array<double, kHistory> kept{};
      const int keep = kRetrainStreak - 1;
      for (int k = 0; k < keep; ++k) kept[k] = ring_[(count_ - keep + k) % kHistory];
      ring_ = kept;
      count_ = keep;
      streak_ = 0;
      ++retrains_;
      sorted_ = 0;
      for (int k = 0; k < keep; ++k) insert_sorted(ring_[k]);
    }
  }
  // The planner learns every core's sample every pass: the sorted window is edited in place
  // (the sample leaving it replaced by the new one), not sorted anew.
  if (count_ >= kHistory)
    replace_sorted(ring_[count_ % kHistory], sample);
  else
    insert_sorted(sample);
  ring_[count_ % kHistory] = sample;
  ++count_;
  update_median();
}

void TimeEstimator::insert_sorted(double sample) {
  int k = sorted_++;
  for (; k > 0 && sorted_window_[k - 1] > sample; --k) sorted_window_[k] = sorted_window_[k - 1];
  sorted_window_[k] = sample;
}

void TimeEstimator::replace_sorted(double leaving, double sample) {
  int k = 0;
  while (k < sorted_ - 1 && sorted_window_[k] != leaving) ++k;
  // The gap moves toward the new sample's place, one neighbour at a time.
  for (; k + 1 < sorted_ && sorted_window_[k + 1] < sample; ++k)
    sorted_window_[k] = sorted_window_[k + 1];
  for (; k > 0 && sorted_window_[k - 1] > sample; --k) sorted_window_[k] = sorted_window_[k - 1];
  sorted_window_[k] = sample;
}

void TimeEstimator::update_median() {
  const int n = sorted_;
  median_ = sorted_window_[(n - 1) / 2];
  // The planner reads the scatter of every core every pass: worked out here, once per sample.
  scatter_ = n >= kScatterSamples && median_ > 0.0
                 ? (sorted_window_[n - 1] - sorted_window_[0]) / median_
                 : 0.0;
}

void TimeEstimator::reset() {
  ++version_;
  ring_ = {};
  sorted_window_ = {};
  sorted_ = 0;
  count_ = 0;
  streak_ = 0;
  median_ = 0.0;
  scatter_ = 0.0;
}

double prior_scale(std::span<const TimeEstimator> estimators, std::span<const unsigned char> active,
                   std::vector<double>& ratios) {
  ratios.clear();
  for (std::size_t j = 0; j < estimators.size(); ++j)
    if (active[j] && estimators[j].measured() && estimators[j].prior() > 0.0)
      ratios.push_back(estimators[j].estimate() / estimators[j].prior());
  return ratios.empty() ? 1.0 : median(ratios);
}

namespace {

/// Worker j's effective time; `scale` < 0 until a worker not measured needed prior_scale.
double effective_time(std::span<const TimeEstimator> estimators,
                      std::span<const unsigned char> active, std::size_t j, double& scale,
                      std::vector<double>& ratios) {
  if (!active[j]) return std::numeric_limits<double>::infinity();
  if (estimators[j].measured()) return estimators[j].estimate();
  if (scale < 0.0) scale = prior_scale(estimators, active, ratios);
  return estimators[j].prior() * scale;
}

}  // namespace

void effective_times(std::span<const TimeEstimator> estimators,
                     std::span<const unsigned char> active, std::span<double> out,
                     std::vector<double>& ratios) {
  double scale = -1.0;  // computed for the first worker not measured: once all are, never
  for (std::size_t j = 0; j < estimators.size(); ++j)
    out[j] = effective_time(estimators, active, j, scale, ratios);
}

void effective_times(std::span<const TimeEstimator> estimators,
                     std::span<const unsigned char> active, std::span<const std::size_t> workers,
                     std::span<double> out, std::vector<double>& ratios) {
  double scale = -1.0;
  for (const std::size_t j : workers) out[j] = effective_time(estimators, active, j, scale, ratios);
}

std::vector<double> consistent_priors(std::span<const double> peak_based,
                                      std::span<const double> given) {
  std::vector<double> ratios;
  for (std::size_t j = 0; j < peak_based.size(); ++j)
    if (j < given.size() && given[j] > 0.0 && peak_based[j] > 0.0)
      ratios.push_back(given[j] / peak_based[j]);
  const double scale = ratios.empty() ? 1.0 : median(ratios);
  std::vector<double> out(peak_based.size());
  for (std::size_t j = 0; j < peak_based.size(); ++j)
    out[j] = (j < given.size() && given[j] > 0.0) ? given[j] : peak_based[j] * scale;
  return out;
}

}  // namespace tsar::core
