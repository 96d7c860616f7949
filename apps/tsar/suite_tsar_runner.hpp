// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// TSAR as a runner of the benchmark kernels: one region per parallel loop (named after the
// loop, so TSAR_CACHE and TSAR_TRACE tell the loops apart), created at the loop's first pass.
// On devices with their own memory a loop's buffers are registered and its offload body runs;
// loops without one are kept to host-memory devices.

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner.hpp"
#include "tsar/tsar.hpp"

namespace tsar::suite {

/// Sums over the passes TSAR recorded since the last TsarRunner::take_totals.
struct PassTotals {
  std::int64_t passes = 0;
  double pass_seconds = 0.0;       ///< split to the last arrival, summed
  double schedule_seconds = 0.0;   ///< computing splits and adapting
  double idle_seconds = 0.0;       ///< all devices' waiting at the end of (sub-)passes
  double busy_seconds = 0.0;       ///< all devices' time running their ranges
  double bytes_to_device = 0.0;    ///< copied into accelerators' memory, all devices
  double bytes_from_device = 0.0;  ///< copied back to host memory
};

class TsarRunner final : public peers::Runner {
 public:
  /// `schedule`: a TSAR schedule; chunk schedules without a size get one chunk of
  /// n / chunks iterations. `devices`: a TSAR device list (tsar_set_devices). Regions are
  /// named region_prefix + the loop's name.
  TsarRunner(std::string name, std::string schedule, std::string devices, int chunks,
             std::string region_prefix = "");
  ~TsarRunner() override;

  const std::string& name() const override { return name_; }
  void begin(kernels::Kernel& kernel) override;
  void parallel(const kernels::Loop& loop, std::int64_t n) override;
  void end() override;

  /// Totals of the passes run since the previous call (end() keeps them for it).
  PassTotals take_totals();
  /// Iterations per device in each loop's last pass before end(): {"gemm": [120, 136]}.
  const nlohmann::json& last_split() const { return split_; }
  const std::string& schedule() const { return schedule_; }

 private:
  struct LoopRegion {
    std::unique_ptr<Region> region;
    std::int64_t passes_taken = 0;
  };
  LoopRegion make_region(const kernels::Loop& loop, std::int64_t n) const;
  /// Adds the passes not yet counted to pending_.
  void collect();

  std::string name_, schedule_, devices_, region_prefix_;
  int chunks_;
  std::vector<LoopRegion> regions_;
  std::vector<std::string> loop_names_;
  PassTotals pending_;
  nlohmann::json split_ = nlohmann::json::object();
};

/// The devices a region gets from the device list `devices` (keys "cpu:0", "omp:0", ...).
std::vector<tsar_device_info> tsar_devices(const std::string& devices);

}  // namespace tsar::suite
