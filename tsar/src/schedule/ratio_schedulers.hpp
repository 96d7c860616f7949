// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Schedules that give each worker one contiguous range per (sub-)pass (thesis 4.3, 5.3.2):
// static (default times, once), adaptive (measured times, every pass), split (div adapting
// sub-passes every pass) and quick (a 1/div training sub-pass in the first pass only). The
// adapting ones let CPU cores balance their ranges among themselves within a (sub-)pass;
// static keeps the split it was given.

#include "schedule/scheduler.hpp"

namespace tsar::core {

class StaticScheduler final : public Scheduler {
 public:
  void begin_pass(std::int64_t n, std::span<const double> tpi, SubPassPlan& plan) override;
  bool adapts() const override { return false; }

 private:
  std::vector<double> frozen_;  ///< the default times of the first pass
};

class AdaptiveScheduler final : public Scheduler {
 public:
  enum class Mode { kAdaptive, kSplit, kQuick };
  AdaptiveScheduler(Mode mode, int div);

  void begin_pass(std::int64_t n, std::span<const double> tpi, SubPassPlan& plan) override;
  bool next_sub_pass(std::span<const double> tpi, SubPassPlan& plan) override;
  bool last_sub_pass() const override;
  bool balances_cpu_share() const override { return true; }

 private:
  /// Size of sub-pass `k` (0-based) of this pass; 0 when the pass is complete.
  std::int64_t sub_pass_size(int k) const;

  Mode mode_;
  int div_;
  std::int64_t passes_ = 0;
  std::int64_t n_ = 0;
  std::int64_t next_lo_ = 0;
  int sub_pass_ = 0;
};

}  // namespace tsar::core
