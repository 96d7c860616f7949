// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/planner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "schedule/upper_median.hpp"

namespace tsar::core {

PassPlanner::PassPlanner(const ScheduleSpec& spec, std::vector<std::shared_ptr<Device>> devices,
                         std::vector<double> given, Retire retire)
    : devices_(std::move(devices)),
      scheduler_(make_scheduler(spec, static_cast<int>(devices_.size()))),
      retire_(std::move(retire)),
      given_tpi_(std::move(given)) {
  const std::size_t n = devices_.size();
  cpu_.resize(n);
  cores_.resize(n);
  host_memory_.resize(n);
  for (std::size_t w = 0; w < n; ++w) set_device(w, devices_[w]);
  given_tpi_.resize(n, 0.0);
  for (const auto& d : devices_) {
    const double peak = d->description().peak_gflops;
    peak_tpi_.push_back(peak > 0.0 ? 1.0 / peak : 1.0);
    device_memory_ = device_memory_ || !d->description().host_memory;
  }
  estimators_.resize(n);
  const auto priors = consistent_priors(peak_tpi_, given_tpi_);
  for (std::size_t w = 0; w < n; ++w) estimators_[w].set_prior(priors[w]);
  balance_cpu_ = scheduler_->balances_cpu_share();
  active_.assign(n, 1);
  times_.resize(n);
  sampled_lo_.assign(n, 0.0);
  sampled_hi_.assign(n, 0.0);
  retired_.assign(n, 0);
  retired_tpi_.assign(n, 0.0);
  backoff_streak_.assign(n, 0);
  sitting_out_.assign(n, 0);
  sat_out_.assign(n, 0);
  move_seconds_.assign(n, 0.0);
  boundary_seconds_.assign(n, 0.0);
  held_.assign(n, 0);
  alone_times_.assign(n, 0.0);
  alone_counts_.assign(n, 0);
  pooled_.assign(n, 0);
  settled_.assign(n, 0);
  entering_.assign(n, 0);
  migration_seconds_.assign(n, 0.0);
  skipped_.assign(n, 0);
  cpu_pooled_.assign(n, 0);
  core_pool_.assign(n, 0);
  pool_next_.assign(n, 0);
  pool_candidates_.reserve(n);
  cpu_split_.reserve(n);
  share_member_.assign(n, 0);
  share_piece_.assign(n, 1);
  share_thief_.assign(n, 0);
  piece_samples_.assign(n, {});
  piece_sampled_.assign(n, 0);
  piece_seconds_.assign(n, 0.0);
  last_rows_.assign(n, 0);
  outs_ranked_.reserve(n);
  outs_.reserve(n);
  trial_ = std::make_shared<SharedTrial>();
  trial_slot_ = trial_->trial.join();
  retiring_.reserve(n);
  regroup();
}

void PassPlanner::regroup() {
  accelerators_.clear();
  cpu_workers_.clear();
  teams_.clear();
  linked_.clear();
  for (std::size_t w = 0; w < devices_.size(); ++w) {
    if (!active_[w]) continue;
    (is_cpu(w) ? cpu_workers_ : accelerators_).push_back(w);
    if (is_cpu(w) && cores(w) > 1) teams_.push_back(w);
    if (!host_memory_[w]) linked_.push_back(w);
  }
  single_cores_ = accelerators_.empty();
  for (const std::size_t w : cpu_workers_)
    single_cores_ = single_cores_ && device(w).description().cores.size() == 1;
  ++groups_epoch_;
  ++cpu_epoch_;
}

TimeEstimator& PassPlanner::changing(std::size_t w) {
  if (is_cpu(w)) ++cpu_epoch_;
  ++estimates_version_;
  return estimators_[w];
}

void PassPlanner::set_device(std::size_t w, std::shared_ptr<Device> device) {
  const DeviceDescription& d = device->description();
  cpu_[w] = d.accelerator ? 0 : 1;
  cores_[w] = std::max<std::size_t>(1, d.cores.size());
  host_memory_[w] = d.host_memory ? 1 : 0;
  devices_[w] = std::move(device);
}

void PassPlanner::set_given_time(int worker, double seconds) {
  given_tpi_[sz(worker)] = seconds;
  const auto priors = consistent_priors(peak_tpi_, given_tpi_);
  for (std::size_t w = 0; w < estimators_.size(); ++w) changing(w).set_prior(priors[w]);
}

std::vector<double> PassPlanner::learned_times() const {
  std::vector<double> times(devices_.size(), 0.0);
  for (std::size_t w = 0; w < devices_.size(); ++w)
    times[w] = retired_[w] ? retired_tpi_[w] : estimate(static_cast<int>(w));
  return times;
}

// ---------------------------------------------------------------------------------------
// A pass

void PassPlanner::plan_pass(std::int64_t n, const CopyCosts& copies, SubPassPlan& plan) {
  n_ = n;
  sat_out_.swap(sitting_out_);
  std::fill(sitting_out_.begin(), sitting_out_.end(), 0);
  if (device_memory_ && scheduler_->adapts()) screen_accelerators(n, copies);
  sit_out_trial();
  if (device_memory_) link_costs(copies);
  range_copies_ = copies.range_copies;
  host_written_ = copies.host_written;
  // A stolen piece's staging may move the thief's copy while a neighbour copies halo rows
  // straight into it (the copy engine's peer copies, planned for the split's ranges).
  steal_allowed_ = !(copies.resident_halos && linked_.size() >= 2);
  copying_ = std::find(host_memory_.begin(), host_memory_.end(), 0) != host_memory_.end();
  current_times();
  for (std::size_t w = 0; w < devices_.size(); ++w)
    if (sitting_out_[w]) {
      out_times_.emplace_back(w, times_[w]);
      times_[w] = std::numeric_limits<double>::infinity();
    }
  scheduler_->begin_pass(n, times_, plan);
  probe_unmeasured(plan);
  if (device_memory_)
    hold_split(n, copies, plan);
  else
    hold_cpu_ranges(n, plan);
  choose_share_mode(n, plan);
  pass_chunked_ = plan.chunked;
  plan_sharing(plan);
}

bool PassPlanner::finish_sub_pass(std::span<const WorkerSample> samples, bool learn,
                                  SubPassPlan& plan) {
  if (!learn) return false;
  std::int64_t at = plan.lo;  // ratio plans lay the workers' ranges out in worker order
  for (std::size_t w = 0; w < devices_.size(); ++w) {
    const Range range{at, at + (plan.chunked ? 0 : plan.counts[w])};
    at = range.end;
    const WorkerSample& s = samples[w];
    if (active_[w] && s.pieces > 0) learn_piece_cost(w, s);
    if (!active_[w] || s.iterations <= 0 || !(s.busy > 0.0)) continue;
    // An accelerator's time is the whole of its part of a ratio (sub-)pass, from the plan to
    // its arrival (waking, staging, launching, waiting included); a CPU device's own time
    // only shares the CPU side's out (learn_cpu_side), and chunks are timed one by one.
    const double seconds = plan.chunked || is_cpu(w) ? s.busy : std::max(s.busy, s.finish);
    // A sample not learned leaves the history alone: forgotten for a range that moved, it
    // would leave the device unmeasured, back at its prior, and the next split far off.
    if (copy_dominated(w, seconds)) continue;
    if (!plan.chunked) forget_if_moved(w, plan, range);
    changing(w).add(seconds / static_cast<double>(s.iterations));
  }
  if (!plan.chunked) learn_cpu_side(samples, plan);
  if (!scheduler_->next_sub_pass(current_times(), plan)) return false;
  plan_sharing(plan);
  return true;
}

void PassPlanner::end_pass(bool learn, double seconds, std::span<const WorkerSample> totals) {
  if (learn && probed_pass_) share_probe_.record(seconds, n_);
  record_trial(learn, seconds, totals);
  if (learn && scheduler_->adapts() && backoff_passes_ > 0) back_off(totals);
  ++passes_;
}

ChunkQueue::Result PassPlanner::take_chunk(int worker, const ChunkTiming& last, ChunkQueue& queue,
                                           Range& out) {
  if (share_chunk_ > 0) return queue.take(share_chunk_, out);  // a pass shared as chunks
  return scheduler_->take_chunk(worker, last, queue, out);
}

// ---------------------------------------------------------------------------------------
// Times per iteration

std::span<const double> PassPlanner::current_times() {
  // The times follow from what was learned alone: a pass planned right after the last one's
  // learning plans with the times that learning left, unless a device was retired since.
  for (const auto& [w, seconds] : out_times_) times_[w] = seconds;  // back from sitting out
  out_times_.clear();
  const std::uint64_t key = estimates_version_ + cpu_side_.version();  // both only grow
  if (key == times_key_) return times_;
  // Where only accelerators learned -- a pass that is all theirs -- the CPU devices' entries
  // stand: the idle cores cost nothing here.
  const bool cores_stand = times_key_ != kStaleTimes && cpu_times_epoch_ == cpu_epoch_ &&
                           cpu_times_side_ == cpu_side_.version() && !cpu_times_follow_;
  times_key_ = key;
  if (cores_stand) {
    effective_times(estimators_, active_, accelerators_, times_, ratio_scratch_);
    return times_;
  }
  cpu_times_epoch_ = cpu_epoch_;
  cpu_times_side_ = cpu_side_.version();
  cpu_times_follow_ = false;
  for (const std::size_t w : cpu_workers_)
    cpu_times_follow_ = cpu_times_follow_ || !estimators_[w].measured();
  effective_times(estimators_, active_, times_, ratio_scratch_);
  pool_indistinct_cores();
  // Beside accelerators the CPU devices are planned together at the CPU side's measured rate:
  // their own times only say how they share it. Per-core estimates, each from a sliver of the
  // pass and blind to the time a core took to start, would sum to a rate the CPU side does not
  // run at, and a core given one row of GEMM (reading all of B) would keep it while the GPU's
  // pass waits (tsar/README.md, "The default device model").
  cpu_scale_ = 1.0;
  if (!cpu_side_.measured() || !any_accelerator()) return times_;
  double rate = 0.0;
  for (const std::size_t w : cpu_workers_) rate += 1.0 / times_[w];
  if (!(rate > 0.0)) return times_;
  cpu_scale_ = rate * cpu_side_.estimate();
  for (const std::size_t w : cpu_workers_) times_[w] *= cpu_scale_;
  return times_;
}

void PassPlanner::pool_indistinct_cores() {
  // A core's time per iteration differs from the others' by what makes it faster or slower
  // (another program on it, the costlier iterations of a triangular loop) and by noise. Where
  // it lies within the spread of its recent samples from the cores' median time, the
  // difference is noise, and a split that followed it would move rows between cores every
  // pass and leave some idle: on Gram-Schmidt's short passes the learned split gave one core
  // 76 of 320 rows and another none (tsar/README.md, "CPU devices alone"). Such cores are
  // planned at their common rate -- the harmonic mean, so the cores' total rate, and the CPU
  // side's share beside accelerators, stay as measured.
  // The pool is the cores' estimators' alone: worked out again only when one of them changed,
  // not every (sub-)pass -- in a pass that is all an accelerator's no core learns anything.
  if (pool_epoch_ != cpu_epoch_) find_indistinct_cores();
  pool_epoch_ = cpu_epoch_;
  if (pooled_tpi_ > 0.0)
    for (const std::size_t w : cpu_workers_)
      if (core_pool_[w]) times_[w] = pooled_tpi_;
}

void PassPlanner::find_indistinct_cores() {
  pooled_tpi_ = 0.0;
  // core_pool_ holds the last pool until the new one is known: who was in it decides the band.
  const auto none = [&] { std::fill(core_pool_.begin(), core_pool_.end(), 0); };
  // The candidates: single active cores that were measured, found once (this runs every pass
  // in which the cores learned, for every core of the region).
  pool_candidates_.clear();
  for (const std::size_t w : cpu_workers_)
    if (cores(w) == 1 && estimators_[w].measured()) pool_candidates_.push_back(w);
  if (pool_candidates_.size() < 2) return none();
  // The cores' median time and median scatter. The noise is the node's as much as the core's:
  // a core whose few samples happened to lie close together, or that has too few to tell
  // (just re-trained), is judged by the median scatter.
  ratio_scratch_.clear();
  for (const std::size_t w : pool_candidates_) ratio_scratch_.push_back(times_[w]);
  const double reference = upper_median(ratio_scratch_);
  ratio_scratch_.clear();
  for (const std::size_t w : pool_candidates_)
    if (estimators_[w].scatter() > 0.0) ratio_scratch_.push_back(estimators_[w].scatter());
  if (ratio_scratch_.empty()) return none();
  const double node_scatter = upper_median(ratio_scratch_);
  // A core joins within its scatter of the reference and leaves beyond sqrt(2) times that: the
  // reference is an estimate too, and the difference of two scatters sqrt(2) times as far as
  // either. With one band, seven equal cores under 20% jitter left the pool on noise at some
  // pass in 19 of 80 seeded runs, and got hundreds of rows more or less than the others
  // (Planner.CoresWithinTheirOwnNoiseAreSplitEquallyAndASlowerCoreIsNot, seeds 12, 14, 15).
  pool_next_.assign(core_pool_.size(), 0);
  double rate = 0.0;
  int members = 0;
  for (const std::size_t w : pool_candidates_) {
    const double band =
        std::max(estimators_[w].scatter(), node_scatter) * (core_pool_[w] ? std::sqrt(2.0) : 1.0);
    if (std::abs(times_[w] - reference) > band * reference) continue;
    pool_next_[w] = 1;
    rate += 1.0 / times_[w];
    ++members;
  }
  if (members < 2) return none();
  core_pool_.swap(pool_next_);
  pooled_tpi_ = members / rate;
}

void PassPlanner::learn_cpu_side(std::span<const WorkerSample> samples, const SubPassPlan& plan) {
  // The CPU side's sample: from the (sub-)pass's start to its last worker's arrival -- waking
  // the workers, any core that started late or ran slow, stealing, all of it -- over the
  // iterations it ran. Only beside accelerators: alone, the CPU side runs the whole pass
  // whatever its rate.
  if (!any_accelerator()) return;
  std::int64_t iterations = 0;
  double finish = 0.0;
  for (const std::size_t w : cpu_workers_) {
    if (samples[w].iterations <= 0) continue;
    iterations += samples[w].iterations;
    finish = std::max(finish, samples[w].finish);
  }
  if (iterations <= 0 || !(finish > 0.0)) return;
  std::int64_t at = plan.lo, lo = plan.hi, hi = plan.lo;
  for (std::size_t w = 0; w < devices_.size(); ++w) {
    const std::int64_t begin = at;
    at += plan.counts[w];
    if (!active_[w] || !is_cpu(w) || plan.counts[w] <= 0) continue;
    lo = std::min(lo, begin);
    hi = std::max(hi, at);
  }
  // As for a device (forget_if_moved): times from other iterations do not predict these.
  const double size = static_cast<double>(std::max<std::int64_t>(1, plan.hi - plan.lo));
  const double rlo = static_cast<double>(lo - plan.lo) / size;
  const double rhi = static_cast<double>(hi - plan.lo) / size;
  const double overlap = std::min(rhi, cpu_side_hi_) - std::max(rlo, cpu_side_lo_);
  const double united = std::max(rhi, cpu_side_hi_) - std::min(rlo, cpu_side_lo_);
  if (cpu_side_.measured() && united > 0.0 && overlap < 0.5 * united) cpu_side_.reset();
  cpu_side_lo_ = rlo;
  cpu_side_hi_ = rhi;
  cpu_side_.add(finish / static_cast<double>(iterations));
}

void PassPlanner::forget_if_moved(std::size_t w, const SubPassPlan& plan, Range range) {
  // A time per iteration describes the iterations it was measured on. When a device's range
  // (relative to its sub-pass) overlaps its previous one by less than half, the history is
  // about other iterations -- work that varies with i, as in a triangular loop -- and only
  // the new sample predicts the next split. Stable splits keep the history, and with it the
  // protection against spikes.
  const double size = static_cast<double>(std::max<std::int64_t>(1, plan.hi - plan.lo));
  const double lo = static_cast<double>(range.begin - plan.lo) / size;
  const double hi = static_cast<double>(range.end - plan.lo) / size;
  const double overlap = std::min(hi, sampled_hi_[w]) - std::max(lo, sampled_lo_[w]);
  const double united = std::max(hi, sampled_hi_[w]) - std::min(lo, sampled_lo_[w]);
  if (estimators_[w].measured() && united > 0.0 && overlap < 0.5 * united) changing(w).reset();
  sampled_lo_[w] = lo;
  sampled_hi_[w] = hi;
}

void PassPlanner::probe_unmeasured(SubPassPlan& plan) {
  // A device the split gives nothing is never measured, and its prior -- scaled with the
  // measured devices' error (effective_times) -- goes on giving it nothing: the peak-based
  // priors gave OpenMP-offloaded 2MM's GPU every row and the cores none, pass after pass
  // (docs/results/archive/tsar/suite-gpu/2026-11-21-h200-0feb4bc.jsonl). Each active,
  // unmeasured device the plan leaves empty runs one iteration, taken from the largest count.
  // Beside accelerators the CPU devices are measured as one: while the CPU side is not, and
  // the plan leaves all of it empty, its first device runs the iteration.
  if (plan.chunked || !scheduler_->adapts()) return;
  const bool side = any_accelerator();
  const bool probe_side = side && !cpu_side_.measured() &&
                          std::all_of(cpu_workers_.begin(), cpu_workers_.end(),
                                      [&](std::size_t w) { return plan.counts[w] == 0; });
  const auto wanted = [&](std::size_t w) {
    if (sitting_out_[w] || plan.counts[w] > 0) return false;
    return side && is_cpu(w) ? probe_side && w == cpu_workers_.front() : !estimators_[w].measured();
  };
  const auto probe = [&](std::size_t w) {  // false: no count left to take it from
    const auto largest = std::max_element(plan.counts.begin(), plan.counts.end());
    if (*largest < 2) return false;
    --*largest;
    ++plan.counts[w];
    return true;
  };
  // Beside accelerators, once the CPU side is measured or has rows, only they can want one.
  if (side && !probe_side) {
    for (const std::size_t w : accelerators_)
      if (wanted(w) && !probe(w)) return;
    return;
  }
  for (std::size_t w = 0; w < devices_.size(); ++w)
    if (active_[w] && wanted(w) && !probe(w)) return;
}

// ---------------------------------------------------------------------------------------
// How the CPU workers share a plan

void PassPlanner::choose_share_mode(std::int64_t n, SubPassPlan& plan) {
  share_chunk_ = 0;
  share_mode_ = balance_cpu_ ? ShareMode::kSteal : ShareMode::kOwn;
  // The probe decides for cores alone, each its own device: next to accelerators the split
  // is what balances, and a team forks all its cores per chunk.
  const auto cores = static_cast<std::int64_t>(cpu_workers_.size());
  probed_pass_ =
      balance_cpu_ && !plan.chunked && plan.lo == 0 && plan.hi == n && single_cores_ && cores >= 2;
  if (!probed_pass_) return;
  share_mode_ = share_probe_.mode();
  if (share_mode_ != ShareMode::kChunks) return;
  chunked_plan(n, plan);
  share_chunk_ = std::max<std::int64_t>(1, n / (ShareProbe::kChunksPerCore * cores));
}

void PassPlanner::plan_sharing(const SubPassPlan& plan) {
  // Every active CPU device takes part (a core, or a team whose bodies spread their pieces).
  // Accelerators own their ranges; those whose pieces pay take over what remains of the
  // members' ranges once their own is done (thieves, planner_steal.cpp).
  if (!balance_cpu_ || plan.chunked) return;
  const bool thieves = plan_thieves(plan);
  // The members and single cores' pieces follow from the mode and the CPU devices' estimators
  // alone: worked out again when those changed. Teams' pieces follow their ranges too.
  if (sharing_epoch_ == cpu_epoch_ && sharing_mode_ == share_mode_ && sharing_thieves_ == thieves) {
    for (const std::size_t w : teams_)
      if (share_member_[w]) share_piece_[w] = share_piece(w, plan);
    return;
  }
  sharing_epoch_ = cpu_epoch_;
  sharing_mode_ = share_mode_;
  sharing_thieves_ = thieves;
  std::fill(share_member_.begin(), share_member_.end(), 0);
  // Without stealing, or with one member and no thief, every worker runs its own range as it is.
  if (cpu_workers_.size() < (thieves ? 1u : 2u) || share_mode_ != ShareMode::kSteal) return;
  for (const std::size_t w : cpu_workers_) {
    share_member_[w] = 1;
    share_piece_[w] = share_piece(w, plan);
  }
}

std::int64_t PassPlanner::share_piece(std::size_t w, const SubPassPlan& plan) const {
  const double tpi = estimate(static_cast<int>(w));
  const std::int64_t piece =
      tpi > 0.0 ? static_cast<std::int64_t>(std::min(1e15, std::ceil(kMinSharePieceSeconds / tpi)))
                : 1;
  // A team spreads whatever it takes over its cores itself, at the cost of a fork and join
  // of all of them per piece: it takes its range whole (and what it steals: the rest of a
  // range), so a retired accelerator's core beside it does not cut it into a dozen pieces.
  return cores(w) > 1 ? std::max<std::int64_t>(piece, plan.counts[w]) : piece;
}

}  // namespace tsar::core
