// SPDX-License-Identifier: BSD-3-Clause
// The pass planner's back-off: accelerators that cannot pay are screened before they run,
// retired after K slow passes (thesis 5.4.1), and retired when they run out of memory
// (planner.hpp).
#include <algorithm>
#include <limits>

#include "schedule/planner.hpp"

namespace tsar::core {

const PassPlanner::CpuAggregates& PassPlanner::cpu_aggregates() {
  if (aggregates_epoch_ == cpu_epoch_) return cpu_aggregates_;
  aggregates_epoch_ = cpu_epoch_;
  CpuAggregates& a = cpu_aggregates_ = {};
  for (const std::size_t w : cpu_workers_) {
    a.any = true;
    if (!estimators_[w].measured()) continue;
    a.rate += 1.0 / estimators_[w].estimate();
    a.slowest = std::max(a.slowest, estimators_[w].estimate() * static_cast<double>(cores(w)));
  }
  return a;
}

PassPlanner::CpuSide PassPlanner::cpu_side(std::int64_t n) {
  const CpuAggregates& a = cpu_aggregates();
  CpuSide cpu;
  cpu.any = a.any;
  double rate = a.rate;  // iterations per second of the measured CPU devices together
  if (cpu.any && cpu_side_.measured()) rate = 1.0 / cpu_side_.estimate();  // measured as one
  cpu.seconds = rate > 0.0 ? static_cast<double>(n) / rate : 0.0;
  return cpu;
}

void PassPlanner::screen_accelerators(std::int64_t n, const CopyCosts& copies) {
  // Back-off learns from passes an accelerator ran; an accelerator that must copy a large
  // input whole every pass (a FULL, non-persistent table) pays for that copy with any share,
  // so even its probe pass can cost many CPU passes. What it copies is known before it runs
  // (registered buffers, its measured link): while the CPU devices' pass time is unknown it
  // sits out when those copies alone exceed kBlindProbeSeconds; once that time is known, an
  // accelerator whose copies alone take as long as the CPU devices' whole pass cannot help
  // and is retired unrun, as back-off would have after its probes. Measured accelerators
  // are back-off's.
  const double fixed_bytes = copies.fixed_bytes;
  if (!(fixed_bytes > 0.0)) return;
  const CpuSide cpu = cpu_side(n);
  if (!cpu.any) return;
  const double cpu_alone = cpu.seconds;
  for (std::size_t w = 0; w < devices_.size(); ++w) {
    Device& d = *devices_[w];
    if (!active_[w] || d.description().host_memory || estimators_[w].measured()) continue;
    const double seconds = fixed_bytes * d.link_seconds_per_byte();
    if (cpu_alone > 0.0 && seconds >= cpu_alone)
      retire(w);
    else if (cpu_alone <= 0.0 && seconds > kBlindProbeSeconds)
      sitting_out_[w] = 1;
  }
}

void PassPlanner::back_off(std::span<const WorkerSample> totals) {
  // Thesis 5.4.1: an accelerator slower per iteration than the slowest CPU core (chunk
  // passes: fewer iterations than the core that ran fewest) for K passes in a row. A team
  // (place, team:N-M) counts as its cores: per core it is num_cores times slower.
  // Also retired: an accelerator whose part alone took longer than the CPU devices would
  // have needed for the whole pass (by a margin: one noisy CPU sample skews a split), K
  // passes in a row, while it was the pass's straggler --
  // a fixed cost per pass (a large input copied every pass) that a smaller share does not
  // shrink. The per-iteration test alone meets it only once the share is small, several
  // slow passes later; a useful accelerator finishes its share before the CPUs alone would.
  // Without accelerators there is nothing to judge, nor any CPU side to work out for it.
  if (accelerators_.empty()) return;
  const CpuSide cpu = cpu_side(n_);
  if (!cpu.any) return;
  // Per core, at the rate the CPU side was planned at (current_times): scaling the slowest
  // time per core is scaling each (rounding is monotonic).
  const double slowest = cpu_aggregates().slowest;
  const double slowest_tpi = slowest > 0.0 ? slowest * cpu_scale_ : 0.0;
  // What the CPU devices did in this pass: read only when a test gets that far.
  const auto fewest = [&] {
    double f = std::numeric_limits<double>::max();
    for (const std::size_t w : cpu_workers_)
      f = std::min(f, static_cast<double>(totals[w].iterations) / static_cast<double>(cores(w)));
    return f;
  };
  const auto cpu_finish = [&] {  // when the last CPU device arrived
    double f = 0.0;
    for (const std::size_t w : cpu_workers_) f = std::max(f, totals[w].finish);
    return f;
  };
  // Retired once the walk is done: retire() regroups the accelerators walked.
  retiring_.clear();
  for (const std::size_t w : accelerators_) {
    // An accelerator holding rows the region's other loops keep on it (a data environment)
    // gives them up when retired: the cores then fetch them every pass, and the other loops
    // move them back. The cores are compared with that cost included -- per row and per pass
    // -- or a short loop whose launch outlasts the cores' pass retires the device that holds
    // the whole time step's data (tsar/README.md, "Time steps of short loops").
    const double fetch = held_[w] > 0 ? move_seconds_[w] : 0.0;
    const double cpu_alone =
        cpu.seconds > 0.0 ? cpu.seconds + static_cast<double>(held_[w]) * fetch : 0.0;
    // A pass mostly spent copying in rows the split just gave it is not learned
    // (copy_dominated), and for the same reason not judged: a GPU much faster than the cores
    // copies its whole range in its first pass, several CPU passes long, and one more slow
    // pass would retire it.
    if (skipped_[w]) continue;
    const WorkerSample& x = totals[w];
    const bool slower_per_iteration = pass_chunked_
                                          ? static_cast<double>(x.iterations) < fewest()
                                          : estimators_[w].measured() && slowest_tpi > 0.0 &&
                                                estimators_[w].estimate() > slowest_tpi + fetch;
    // A split kept for times to settle gave shares no measured time chose: how long a share
    // took is judged once they did (per iteration, the accelerator is judged all along).
    const bool slower_than_cpus_alone = !settling_ && cpu_alone > 0.0 && x.iterations > 0 &&
                                        x.finish > kBackoffMargin * cpu_alone &&
                                        x.finish >= cpu_finish();
    const bool slower = slower_per_iteration || slower_than_cpus_alone;
    backoff_streak_[w] = slower ? backoff_streak_[w] + 1 : 0;
    if (backoff_streak_[w] >= backoff_passes_) retiring_.push_back(w);
  }
  for (const std::size_t w : retiring_) retire(w);
}

void PassPlanner::retire(std::size_t w) {
  forget_trial_of(w);
  retired_[w] = 1;
  times_key_ = kStaleTimes;
  retired_tpi_[w] = estimators_[w].measured() ? estimators_[w].estimate() : 0.0;
  backoff_streak_[w] = 0;
  if (auto core = retire_(static_cast<int>(w))) {
    // Its worker becomes a CPU worker on the core that drove the accelerator: the CPU side
    // it joins is another device, measured anew.
    set_device(w, std::move(core));
    cpu_side_.reset();
    changing(w).reset();
    if (const double prior = joining_core_prior(w); prior > 0.0) changing(w).set_prior(prior);
  } else {
    active_[w] = 0;
  }
  regroup();
}

bool PassPlanner::device_lost(int worker, std::shared_ptr<Device> device) {
  const std::size_t w = sz(worker);
  forget_trial_of(w);
  retired_[w] = 1;
  times_key_ = kStaleTimes;
  retired_tpi_[w] = estimators_[w].estimate();
  backoff_streak_[w] = 0;
  set_device(w, std::move(device));
  // Its estimate described the accelerator: start over from a CPU core's.
  changing(w).reset();
  if (const double prior = joining_core_prior(w); prior > 0.0) changing(w).set_prior(prior);
  const bool cpu = is_cpu(w);
  if (cpu)
    cpu_side_.reset();  // the CPU side it joins is another device
  else
    active_[w] = 0;  // no CPU device could take over
  regroup();
  return cpu;
}

double PassPlanner::joining_core_prior(std::size_t joining) {
  // A core joining the CPU side (its estimator just reset) is planned at the slowest measured
  // CPU device's time per iteration per core -- a team's time times its cores: taking a
  // team's prior as a core's would hand the core as much as the whole team. Priors are
  // relative (effective_times scales them by the measured/prior ratio): divided by it here.
  double slowest = 0.0, prior = 0.0;
  for (std::size_t v = 0; v < devices_.size(); ++v) {
    if (v == joining || !active_[v] || !is_cpu(v)) continue;
    const auto c = static_cast<double>(cores(v));
    if (estimators_[v].measured()) slowest = std::max(slowest, estimators_[v].estimate() * c);
    if (prior == 0.0) prior = estimators_[v].prior() * c;
  }
  if (slowest <= 0.0) return prior;
  return slowest / prior_scale(estimators_, active_, ratio_scratch_);
}

}  // namespace tsar::core
