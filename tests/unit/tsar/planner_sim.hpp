// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Emulated devices for the pass planner (schedule/planner.hpp). Each device's time for a
// share is a model -- seconds per iteration, a start-up cost per pass, jitter, spikes, a
// slow-down from some pass on -- and a pass runs in emulated time, without threads or a
// clock: what is tested is the planner's decisions, the same on any machine under any load,
// and a seeded run repeats exactly.
//
// A pass as the region's worker pool runs it: the planner plans; every worker with work
// starts `start` seconds after the (sub-)pass begins (waking, launching, a fixed cost of its
// range) and then runs its share; CPU workers the planner makes stealing members balance
// their ranges among themselves and finish together; workers without work take no part; the
// pass ends with the last arrival; the planner learns every worker's iterations, busy time
// and finish time, then plans the next sub-pass or ends the pass.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "devices/host_device.hpp"
#include "schedule/planner.hpp"

namespace planner_sim {

using tsar::core::Device;
using tsar::core::DeviceDescription;
using tsar::core::PassPlanner;
using tsar::core::WorkerSample;

/// One emulated device.
struct Emulated {
  bool accelerator = false;
  double tpi = 1e-6;         ///< true seconds per iteration
  double start = 0.0;        ///< seconds before it runs anything in a (sub-)pass
  double peak_gflops = 1.0;  ///< what its prior is computed from (relative)
  double core_tpi = 1e-6;    ///< an accelerator's control core's tpi once it is retired
  int cores = 1;             ///< cores of a CPU device (a team: several)
  double jitter = 0.0;       ///< each pass's time is multiplied by U(1 - jitter, 1 + jitter)
  /// The device's time multiplier in pass p (spikes, cold passes, slow-downs).
  std::function<double(int pass)> factor = [](int) { return 1.0; };
  /// Seconds it starts later than `start` in pass p (a worker the system ran late).
  std::function<double(int pass)> delay = [](int) { return 0.0; };
  /// An accelerator with its own memory behind a link of these bytes per second (0: it
  /// computes on host memory, nothing is copied).
  std::size_t link_bytes_per_second = 0;
};

inline Emulated core(double tpi) {
  Emulated e;
  e.tpi = tpi;
  e.core_tpi = tpi;
  e.peak_gflops = 1.0;
  return e;
}

inline Emulated accelerator(double tpi, double peak_gflops, double core_tpi) {
  Emulated e;
  e.accelerator = true;
  e.tpi = tpi;
  e.peak_gflops = peak_gflops;
  e.core_tpi = core_tpi;
  return e;
}

/// What one pass did.
struct Pass {
  std::vector<std::int64_t> iterations;  ///< per worker, all sub-passes
  std::vector<std::int64_t> planned;     ///< the first (sub-)pass's plan (ratio plans)
  double seconds = 0.0;                  ///< emulated, plan to last arrival
};

class Sim {
 public:
  Sim(std::vector<Emulated> devices, std::uint64_t seed, const std::string& schedule = "adaptive",
      std::vector<double> given = {})
      : emulated_(std::move(devices)), rng_(seed) {
    std::vector<std::shared_ptr<Device>> planned;
    for (std::size_t w = 0; w < emulated_.size(); ++w) planned.push_back(make(w, false));
    given.resize(emulated_.size(), 0.0);
    planner_ =
        std::make_unique<PassPlanner>(tsar::core::parse_schedule(schedule), std::move(planned),
                                      std::move(given), [this](int w) { return retire(w); });
  }

  PassPlanner& planner() { return *planner_; }
  /// Without participation trials: tests of the split alone (a trial's passes run without a
  /// unit on purpose).
  Sim& without_trials() {
    planner_->set_participation_trials(false);
    return *this;
  }
  /// Seconds every unit with work starts later per other unit with work (each accelerator, the
  /// CPU workers together): what a pass of more participants costs beyond their shares --
  /// halo copies between their memories, launching and synchronising one more device.
  void set_coordination(double seconds) { coordination_ = seconds; }
  /// What the region's buffers cost to copy, as the copy engine would tell the planner each
  /// pass (CopyCosts; default: nothing to copy).
  void set_copies(std::function<tsar::core::CopyCosts(std::int64_t n)> copies) {
    copies_ = std::move(copies);
  }
  const std::vector<Emulated>& devices() const { return emulated_; }
  int passes() const { return pass_; }
  bool retired(int w) const { return planner_->retired(w); }

  /// The ideal pass time of n iterations: 1 / sum of 1 / each device's time alone (the CPU
  /// cores together as one device, each accelerator alone), by the devices' current models.
  double ideal(std::int64_t n) const {
    double cpu_rate = 0.0, cpu_start = 0.0, inverse = 0.0;
    for (std::size_t w = 0; w < emulated_.size(); ++w) {
      const Emulated& e = emulated_[w];
      const double f = e.factor(pass_);
      if (e.accelerator) {
        inverse += 1.0 / (e.start + static_cast<double>(n) * e.tpi * f);
      } else {
        cpu_rate += 1.0 / (e.tpi * f);
        cpu_start = std::max(cpu_start, e.start);
      }
    }
    if (cpu_rate > 0.0) inverse += 1.0 / (cpu_start + static_cast<double>(n) / cpu_rate);
    return 1.0 / inverse;
  }

  /// Runs one pass of n iterations.
  Pass run(std::int64_t n) {
    const std::size_t count = emulated_.size();
    std::vector<double> factor(count);
    for (std::size_t w = 0; w < count; ++w) {
      const Emulated& e = emulated_[w];
      const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
      factor[w] = e.factor(pass_) * (1.0 + e.jitter * (2.0 * u - 1.0));
    }
    Pass out;
    out.iterations.assign(count, 0);
    std::vector<WorkerSample> samples(count), totals(count);
    planner_->plan_pass(n, copies_ ? copies_(n) : tsar::core::CopyCosts{}, plan_);
    out.planned.assign(plan_.counts.begin(), plan_.counts.end());
    do {
      const double seconds = sub_pass(factor, samples);
      out.seconds += seconds;
      for (std::size_t w = 0; w < count; ++w) {
        out.iterations[w] += samples[w].iterations;
        totals[w].iterations += samples[w].iterations;
        totals[w].busy += samples[w].busy;
        totals[w].finish = out.seconds - seconds + samples[w].finish;
      }
    } while (planner_->finish_sub_pass(samples, true, plan_));
    planner_->end_pass(true, out.seconds, totals);
    ++pass_;
    return out;
  }

  /// The share of worker w in a pass (0..1).
  static double share(const Pass& p, std::size_t w) {
    std::int64_t n = 0;
    for (auto i : p.iterations) n += i;
    return n > 0 ? static_cast<double>(p.iterations[w]) / static_cast<double>(n) : 0.0;
  }

 private:
  std::shared_ptr<Device> make(std::size_t w, bool as_core) {
    const Emulated& e = emulated_[w];
    DeviceDescription d;
    d.kind = e.accelerator && !as_core ? tsar::core::DeviceKind::kEmulated
                                       : tsar::core::DeviceKind::kCpu;
    d.accelerator = e.accelerator && !as_core;
    d.id = static_cast<int>(w);
    d.key = (d.accelerator ? "emul:" : "cpu:") + std::to_string(w);
    d.cores.assign(static_cast<std::size_t>(as_core ? 1 : e.cores), static_cast<int>(w));
    d.control_core = static_cast<int>(w);
    d.peak_gflops = as_core ? 1.0 : e.peak_gflops * (e.accelerator ? 1 : e.cores);
    d.host_memory = !d.accelerator || e.link_bytes_per_second == 0;
    auto device = std::make_shared<tsar::core::HostDevice>(std::move(d));
    if (!device->description().host_memory) device->set_link_bandwidth(e.link_bytes_per_second);
    return device;
  }

  std::shared_ptr<Device> retire(int w) {
    Emulated& e = emulated_[static_cast<std::size_t>(w)];
    e.accelerator = false;
    e.tpi = e.core_tpi;
    e.start = 0.0;
    return make(static_cast<std::size_t>(w), true);
  }

  /// One (sub-)pass of plan_ in emulated time; returns its seconds.
  double sub_pass(const std::vector<double>& factor, std::vector<WorkerSample>& samples) {
    const std::size_t count = emulated_.size();
    std::fill(samples.begin(), samples.end(), WorkerSample{});
    std::vector<std::int64_t> counts(count, 0);
    std::vector<unsigned char> pooled(count, 0);
    if (plan_.chunked) {  // chunks taken in order by every CPU worker: they finish together
      counts[0] = plan_.hi - plan_.lo;
      for (std::size_t w = 0; w < count; ++w) pooled[w] = emulated_[w].accelerator ? 0 : 1;
    } else {
      counts.assign(plan_.counts.begin(), plan_.counts.end());
      const auto members = planner_->share_members();
      for (std::size_t w = 0; w < count; ++w)
        pooled[w] = planner_->balances_cpu_share() && members[w] ? 1 : 0;
    }
    double seconds = 0.0;
    int units = 0;
    bool cpu_unit = false;
    for (std::size_t w = 0; w < count; ++w) {
      if (counts[w] <= 0) continue;
      if (emulated_[w].accelerator)
        ++units;
      else
        cpu_unit = true;
    }
    const double extra = coordination_ * std::max(0, units + (cpu_unit ? 1 : 0) - 1);
    // Pooled workers: their iterations go to whoever is free first, so they finish together;
    // each runs a part proportional to its speed, after its start-up.
    std::int64_t pool = 0;
    double rate = 0.0, start = 0.0;
    for (std::size_t w = 0; w < count; ++w)
      if (pooled[w]) {
        pool += counts[w];
        rate += 1.0 / (emulated_[w].tpi * factor[w]);
        start = std::max(start, emulated_[w].start + emulated_[w].delay(pass_) + extra);
      }
    std::int64_t handed = 0;
    std::size_t last = count;
    for (std::size_t w = 0; w < count; ++w) {
      const Emulated& e = emulated_[w];
      if (!pooled[w]) {
        if (counts[w] <= 0) continue;
        const double busy = static_cast<double>(counts[w]) * e.tpi * factor[w];
        samples[w] = {counts[w], busy, e.start + e.delay(pass_) + extra + busy};
      } else if (pool > 0) {
        const double part = static_cast<double>(pool) / (e.tpi * factor[w]) / rate;
        samples[w].iterations = static_cast<std::int64_t>(std::floor(part));
        handed += samples[w].iterations;
        last = w;
      }
      seconds = std::max(seconds, samples[w].finish);
    }
    if (pool > 0) {
      samples[last].iterations += pool - handed;  // the rounding remainder
      const double finish = start + static_cast<double>(pool) / rate;
      for (std::size_t w = 0; w < count; ++w)
        if (pooled[w]) samples[w] = {samples[w].iterations, finish - start, finish};
      seconds = std::max(seconds, finish);
    }
    return seconds;
  }

  std::vector<Emulated> emulated_;
  std::mt19937_64 rng_;
  std::unique_ptr<PassPlanner> planner_;
  tsar::core::SubPassPlan plan_;
  int pass_ = 0;
  double coordination_ = 0.0;
  std::function<tsar::core::CopyCosts(std::int64_t n)> copies_;
};

}  // namespace planner_sim
