// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The pass planner: every decision about how a region's passes are split, behind one
// interface, as a StarPU scheduling policy owns push, pop and its post-execution learning.
// The region runs the pass protocol (workers, barrier, staging) and asks the planner
//
//   plan_pass(n, copies, plan)      once per pass, before any worker runs: the first
//                                   (sub-)pass's plan and how the CPU workers share it;
//   finish_sub_pass(samples, plan)  after each (sub-)pass was measured: learns the times and
//                                   writes the next sub-pass, or says the pass is done;
//   end_pass(...)                   once the pass is over: what it teaches about the whole
//                                   pass (back-off, the CPU sharing probe);
//
// and reads back what it learned (estimates, retirements) for statistics and the cache.
//
// What the planner decides, each in its own file:
//   planner.cpp          times per iteration (estimators, priors, the CPU devices as one
//                        device beside accelerators, cores within their noise as equal),
//                        the schedule family's split,
//                        unmeasured devices' probe iteration, the CPU sharing mode
//                        (share_probe.hpp)
//   planner_holds.cpp    what moving data costs (link_costs), when a split may move
//                        (split_hysteresis.hpp, cpu_split_hold.hpp), when the host side's
//                        rows cannot pay their boundaries' copies, and which samples are not
//                        learned (copies of rows a new split moved)
//   planner_back_off.cpp accelerators that cannot pay: screened before they run, retired
//                        after K slow passes (thesis 5.4.1) -- counting the copies retiring
//                        one that holds a data environment's rows would make --, retired
//                        when they run out of memory
//   planner_steal.cpp    which accelerators, once their own range is done, take over pieces
//                        of what remains of the cores' ranges, and the smallest piece that
//                        pays for its launch and copies
//   planner_trial.cpp    which unit of the pass (an accelerator, or the CPU devices together)
//                        to try the passes without, and keeping it out while they run faster
//                        so (participation_trial.hpp)
//
// It never asks a device what kind it is: what it needs are properties of the device
// interface (DeviceDescription: accelerator, host_memory, cores, control_core, peak; the
// device's link speed). It reads no clock: times come in as samples, so it runs unchanged on
// emulated time (tests/unit/tsar/test_planner*.cpp drive it with emulated devices).
//
// Threads: everything but take_chunk runs on one thread at a time (the region's planner or
// leader); take_chunk runs on the workers concurrently, each touching its own state only.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "devices/device.hpp"
#include "memory/copy_costs.hpp"
#include "queue/chunk_queue.hpp"
#include "schedule/participation_trial.hpp"
#include "schedule/schedule_spec.hpp"
#include "schedule/scheduler.hpp"
#include "schedule/share_probe.hpp"
#include "schedule/time_estimator.hpp"

namespace tsar::core {

/// What one worker did in a (sub-)pass: iterations run, seconds busy running them, and
/// seconds from the (sub-)pass's start to its arrival at the barrier (busy plus the time it
/// took to start: waking, launching). A thief's (share_thieves) are of its own range alone;
/// the pieces it stole after it are apart: how many, their iterations and seconds.
struct WorkerSample {
  std::int64_t iterations = 0;
  double busy = 0.0;
  double finish = 0.0;
  std::int64_t pieces = 0;
  std::int64_t piece_iterations = 0;
  double piece_busy = 0.0;
};

class PassPlanner {
 public:
  static constexpr int kDefaultBackoff = 2;
  /// Back-off's "slower than the CPU devices alone" test: by this factor.
  static constexpr double kBackoffMargin = 1.25;
  /// Smallest piece CPU cores balancing a ratio plan's ranges take, in seconds of their
  /// measured time per iteration: shorter pieces would cost more in dispatch than they save.
  static constexpr double kMinSharePieceSeconds = 10e-6;
  /// Copies every pass that an accelerator may cost before anyone knows the CPU's pass time:
  /// an accelerator whose fixed copies take longer sits out the first pass, until the CPU
  /// devices' measured time tells whether it can pay at all (planner_back_off.cpp).
  static constexpr double kBlindProbeSeconds = 1e-3;
  /// A device's sample in which the copies of rows a changed split just gave it take more
  /// than this share is not learned (planner_holds.cpp).
  static constexpr double kMigrationShare = 0.25;

  /// Retires worker w's accelerator: returns the device its worker computes on from now on
  /// (a CPU core on its control core), or nullptr when it has none to become (it leaves the
  /// region). The region creates devices; the planner decides when.
  using Retire = std::function<std::shared_ptr<Device>(int worker)>;

  /// `devices`: each worker's device; `given`: times per iteration the user or the cache
  /// knew (0 = unknown), one per worker.
  PassPlanner(const ScheduleSpec& spec, std::vector<std::shared_ptr<Device>> devices,
              std::vector<double> given, Retire retire);

  // -- configuration (outside passes) ----------------------------------------------------
  /// Worker w's time per iteration is `seconds` (0 = unknown): the priors are recomputed.
  void set_given_time(int worker, double seconds);
  /// Back-off after `passes` slow passes in a row (0 disables).
  void set_backoff(int passes) { backoff_passes_ = passes; }
  /// Whether accelerators may steal from the cores' ranges at all (planner_steal.cpp; on by
  /// default): off, every accelerator runs its own range only.
  void set_accelerator_stealing(bool on) { accelerator_stealing_ = on; }
  /// Whether the planner tries passes without one of their units (planner_trial.cpp; on
  /// by default): off, every device that can pay by its time per iteration takes part.
  void set_participation_trials(bool on) { participation_trials_ = on; }
  /// Decides with `trial` from now on, the trial the other regions of the region's data
  /// environment share (participation_trial.hpp).
  void share_trial(std::shared_ptr<SharedTrial> trial);

  // -- a pass ----------------------------------------------------------------------------
  /// Plans the first (sub-)pass of a pass of n iterations into `plan` (reusing its
  /// storage); `copies`: what the registered buffers make accelerators copy. May retire
  /// accelerators that cannot pay (Retire).
  void plan_pass(std::int64_t n, const CopyCosts& copies, SubPassPlan& plan);
  /// Worker w lost its accelerator during the pass (out of memory) and went on with
  /// `device`: its times start over. Returns false when `device` is still the accelerator
  /// (no CPU core could take over): the worker leaves the region.
  bool device_lost(int worker, std::shared_ptr<Device> device);
  /// After a (sub-)pass: learns `samples` (one per worker) unless `learn` is false (a
  /// canceled or failed pass); then writes the next sub-pass into `plan` and returns true,
  /// or returns false when the pass is done.
  bool finish_sub_pass(std::span<const WorkerSample> samples, bool learn, SubPassPlan& plan);
  /// The pass is over (it ran; `learn`: it was neither canceled nor failed): `seconds` from
  /// its plan to its last arrival, `totals` what each worker did in all its sub-passes. May
  /// retire accelerators (back-off).
  void end_pass(bool learn, double seconds, std::span<const WorkerSample> totals);

  // -- how the CPU workers share the current plan ------------------------------------------
  /// Ratio plans: CPU workers balance their ranges within the (sub-)pass (stealing).
  bool balances_cpu_share() const { return balance_cpu_; }
  /// The current plan's stealing members and each one's smallest piece (iterations; a
  /// non-member's is stale).
  std::span<const unsigned char> share_members() const { return share_member_; }
  std::span<const std::int64_t> share_pieces() const { return share_piece_; }
  /// The current plan's thieves: accelerators that, once their own range is done, take pieces
  /// of the members' ranges of at least their share_pieces() each (planner_steal.cpp). A
  /// thief's samples to finish_sub_pass and end_pass are of its own range alone.
  std::span<const unsigned char> share_thieves() const { return share_thief_; }
  /// How this pass's cores share it (statistics).
  ShareMode share_mode() const { return share_mode_; }
  /// Chunked plans: worker w's next chunk from `queue` (any thread, its own worker's).
  ChunkQueue::Result take_chunk(int worker, const ChunkTiming& last, ChunkQueue& queue, Range& out);
  /// Whether chunks are timed one by one (Scheduler::times_chunks).
  bool times_chunks() const { return scheduler_->times_chunks(); }
  /// Whether the current plan is the pass's last sub-pass (Scheduler::last_sub_pass).
  bool last_sub_pass() const { return scheduler_->last_sub_pass(); }

  // -- what it learned -------------------------------------------------------------------
  /// Worker w's learned seconds per iteration; 0 while it is not measured.
  double estimate(int worker) const {
    const TimeEstimator& e = estimators_[sz(worker)];
    return e.measured() ? e.estimate() : 0.0;
  }
  /// Whether worker w's accelerator was retired (back-off, screening, out of memory).
  bool retired(int worker) const { return retired_[sz(worker)] != 0; }
  /// Whether worker w sits out the coming pass by the trial: tried out, or kept out since a
  /// trial found the passes faster without its unit.
  bool trial_out(int worker) const;
  /// The participation trial this region's last pass decided, for TSAR_TRACE; nullptr where
  /// its record decided none (another region of its data environment may have).
  const ParticipationTrial::Decision* trial_decision() const {
    return trial_decided_ ? &trial_decision_ : nullptr;
  }
  /// Times per iteration for the cache: each worker's estimate, a retired accelerator's
  /// last one, 0 where nothing was learned.
  std::vector<double> learned_times() const;

 private:
  static std::size_t sz(int w) { return static_cast<std::size_t>(w); }
  /// The active CPU devices together: whether there is one, and the seconds they would
  /// need for n iterations by their measured times (0 while none is measured).
  struct CpuSide {
    bool any = false;
    double seconds = 0.0;
  };
  /// What the planner reads of the active CPU devices' estimators together: whether there is
  /// one, the measured ones' rate (iterations per second) and slowest time per iteration per
  /// core (0: none measured). Worked out again only when cpu_epoch_ moved.
  struct CpuAggregates {
    bool any = false;
    double rate = 0.0;
    double slowest = 0.0;
  };

  // planner.cpp
  void regroup();  // after a device or a worker's activity changed
  /// Worker w's estimator, to be changed: moves cpu_epoch_ for a CPU device's.
  TimeEstimator& changing(std::size_t w);
  std::span<const double> current_times();
  void pool_indistinct_cores();
  void find_indistinct_cores();
  void probe_unmeasured(SubPassPlan& plan);
  void choose_share_mode(std::int64_t n, SubPassPlan& plan);
  void plan_sharing(const SubPassPlan& plan);
  void learn_cpu_side(std::span<const WorkerSample> samples, const SubPassPlan& plan);
  bool any_accelerator() const { return !accelerators_.empty(); }
  std::int64_t share_piece(std::size_t w, const SubPassPlan& plan) const;
  void forget_if_moved(std::size_t w, const SubPassPlan& plan, Range range);
  // planner_holds.cpp
  void link_costs(const CopyCosts& copies);
  void drop_host_side_that_cannot_pay(std::int64_t n, SubPassPlan& plan);
  void hold_split(std::int64_t n, const CopyCosts& copies, SubPassPlan& plan);
  /// Whether a unit that sat the last pass out takes part in this one.
  bool unit_returns() const;
  /// The largest scatter of the times a move from last_split_ to `proposed` rests on.
  double estimates_scatter(std::span<const std::int64_t> proposed) const;
  /// Whether device w's time rests on samples: its own, or a CPU device's the CPU side's.
  bool measured(std::size_t w) const {
    return estimators_[w].measured() || (is_cpu(w) && cpu_side_.measured());
  }
  /// Whether `counts` gives rows to an active device with no measured time.
  bool rests_on_priors(std::span<const std::int64_t> counts) const;
  void hold_cpu_ranges(std::int64_t n, SubPassPlan& plan);
  bool copy_dominated(std::size_t w, double busy);
  // planner_steal.cpp
  bool plan_thieves(const SubPassPlan& plan);
  std::int64_t steal_piece(std::size_t w, double owner_tpi) const;
  void learn_piece_cost(std::size_t w, const WorkerSample& s);
  // planner_trial.cpp
  void sit_out_trial();
  /// Every unit that ran rows of the last pass -- an accelerator's device key, or
  /// ParticipationTrial::kCpuUnit -- but the one that ran the most, fewest rows first.
  const std::vector<std::string>& trial_outs() const;
  /// ParticipationTrial::kCpuUnit where the CPU devices, measured once, ran no rows of the last
  /// pass an accelerator ran (tried back in); "" otherwise.
  std::string_view trial_starved() const;
  /// The CPU devices' rows of the last pass the trial read them of (last_rows_), together.
  std::int64_t cpu_last_rows() const;
  /// The trial unit worker w belongs to: kCpuUnit or its accelerator's device key.
  std::string_view unit_of(std::size_t w) const;
  /// While a unit is tried out, the units the last baseline pass gave no rows sit out too,
  /// where another unit ran that pass (ParticipationTrial::also_out).
  void keep_idle_units_out(ParticipationTrial& trial);
  /// What the trial it would start now is predicted to cost this region, after a pass of
  /// `seconds`.
  ParticipationTrial::Cost trial_expected_cost(double seconds) const;
  void record_trial(bool learn, double seconds, std::span<const WorkerSample> totals);
  void forget_trial_of(std::size_t w);
  /// The trial's lock where it is shared (no lock otherwise).
  std::unique_lock<std::mutex> lock_trial() const;
  // planner_back_off.cpp
  const CpuAggregates& cpu_aggregates();
  CpuSide cpu_side(std::int64_t n);
  void screen_accelerators(std::int64_t n, const CopyCosts& copies);
  void back_off(std::span<const WorkerSample> totals);
  void retire(std::size_t w);
  double joining_core_prior(std::size_t joining);

  const Device& device(std::size_t w) const { return *devices_[w]; }
  /// Worker w computes on `device` from now on.
  void set_device(std::size_t w, std::shared_ptr<Device> device);
  bool is_cpu(std::size_t w) const { return cpu_[w] != 0; }
  std::size_t cores(std::size_t w) const { return cores_[w]; }

  std::vector<std::shared_ptr<Device>> devices_;
  /// What every pass asks of each worker's device, kept beside it (set_device): whether it is
  /// a CPU device, its cores (at least 1), whether it computes in host memory.
  std::vector<unsigned char> cpu_;
  std::vector<std::size_t> cores_;
  std::vector<unsigned char> host_memory_;
  std::unique_ptr<Scheduler> scheduler_;
  Retire retire_;
  bool balance_cpu_ = false;
  bool device_memory_ = false;  ///< some device had its own memory when the region began
  int backoff_passes_ = kDefaultBackoff;
  std::int64_t passes_ = 0;  ///< passes that ran (end_pass calls)
  std::int64_t n_ = 0;       ///< iterations of the current pass

  // Times per iteration.
  std::vector<double> peak_tpi_;   ///< relative times from device peaks
  std::vector<double> given_tpi_;  ///< user or cache times (0 = unknown)
  std::vector<TimeEstimator> estimators_;
  std::vector<unsigned char> active_;  ///< 0 = retired with no CPU core to become
  /// The workers by what they are, in worker order (regroup, whenever a device or a worker's
  /// activity changes): active accelerators, active CPU devices, and those of them of more
  /// than one core (teams); active devices with their own memory (linked_). Per-pass work
  /// walks these, not every worker: a pass that is all an accelerator's touches no core.
  std::vector<std::size_t> accelerators_, cpu_workers_, teams_, linked_;
  /// Every active worker is a CPU device of one core (regroup): a region the sharing probe
  /// decides for.
  bool single_cores_ = false;
  std::uint64_t groups_epoch_ = 0;  ///< grows with every regroup
  /// Grows with every change of a CPU device's estimator (changing) and every regroup: what
  /// is worked out from the CPU devices' estimators alone (the pool, cpu_aggregates, the
  /// share pieces, the holds' inputs) still holds while it is the same -- in a pass that is
  /// all an accelerator's no core learns anything.
  std::uint64_t cpu_epoch_ = 0;
  static constexpr std::uint64_t kNoEpoch = ~std::uint64_t{0};
  CpuAggregates cpu_aggregates_;
  std::uint64_t aggregates_epoch_ = kNoEpoch;
  std::vector<double> times_;  ///< effective times per iteration of the plan
  /// Grows with every change of an estimator (changing).
  std::uint64_t estimates_version_ = 0;
  /// What times_ was worked out from (current_times): estimates_version_ and the CPU side's
  /// version; kStaleTimes once a retirement changed times_ otherwise.
  std::uint64_t times_key_ = kStaleTimes;
  static constexpr std::uint64_t kStaleTimes = ~std::uint64_t{0};
  /// The CPU devices' entries of times_ are of cpu_epoch_ = cpu_times_epoch_ and the CPU
  /// side's version cpu_times_side_, unless some depend on the accelerators' estimates (a
  /// core not measured, planned at its prior scaled as the measured devices are).
  std::uint64_t cpu_times_epoch_ = kNoEpoch, cpu_times_side_ = 0;
  bool cpu_times_follow_ = true;
  /// The devices sitting the pass out, planned at infinity, and their times: current_times
  /// puts those back.
  std::vector<std::pair<std::size_t, double>> out_times_;
  std::vector<double> ratio_scratch_;
  /// Beside accelerators, the CPU devices are one device to the split (the thesis's CPU
  /// device, 4.3.1): its seconds per iteration are the CPU side's -- from the (sub-)pass's
  /// start to the last CPU worker's arrival, over the iterations they ran together -- and
  /// each CPU device's own time only shares that out among them (current_times).
  TimeEstimator cpu_side_;
  double cpu_side_lo_ = 0.0, cpu_side_hi_ = 0.0;  ///< the relative range it was measured on
  /// Cores planned at their common rate (pool_indistinct_cores), at pooled_tpi_ (0: none),
  /// worked out from the cores' estimators at cpu_epoch_ = pool_epoch_.
  std::vector<unsigned char> core_pool_;
  std::vector<unsigned char> pool_next_;      ///< find_indistinct_cores' scratch
  std::vector<std::size_t> pool_candidates_;  ///< find_indistinct_cores' working storage
  double pooled_tpi_ = 0.0;
  std::uint64_t pool_epoch_ = kNoEpoch;
  /// What CPU devices' own times are multiplied by to plan them at the CPU side's rate (1
  /// while it is not measured, or without accelerators).
  double cpu_scale_ = 1.0;
  /// The relative range each worker's last sample was measured on (forget_if_moved).
  std::vector<double> sampled_lo_, sampled_hi_;

  // Back-off and screening.
  std::vector<unsigned char> retired_;
  std::vector<double> retired_tpi_;  ///< a retired accelerator's last estimate (the cache)
  std::vector<int> backoff_streak_;
  std::vector<std::size_t> retiring_;       ///< back-off's, retired once its walk is done
  std::vector<unsigned char> sitting_out_;  ///< kept out of this pass's split (screening)
  std::vector<unsigned char> sat_out_;      ///< sitting_out_ of the last pass (unit_returns)
  bool pass_chunked_ = false;               ///< the pass's first plan handed out chunks

  // Split holds: the last whole-pass ratio split of a pass with copying devices (counts),
  // for n = last_split_n_ (-1: none), and the hysteresis inputs (split_hysteresis.hpp).
  bool copying_ = false;  ///< some device of this pass has its own memory
  std::vector<std::int64_t> last_split_;
  std::int64_t last_split_n_ = -1;
  /// Per device with its own memory: seconds to move one iteration's data, each boundary's
  /// copies per pass (CopyCosts::boundary_*), and the iterations of this region's
  /// data-environment buffers it holds (CopyCosts::resident) -- rows the other regions keep
  /// there, which would cross its link every pass if this region gave them up (link_costs).
  std::vector<double> move_seconds_;
  std::vector<double> boundary_seconds_;
  std::vector<std::int64_t> held_;
  std::uint64_t links_epoch_ = kNoEpoch;  ///< groups_epoch_ the zeros of the unlinked are of
  std::vector<double> alone_times_;
  std::vector<std::int64_t> alone_counts_;
  std::vector<unsigned char> pooled_;
  std::vector<unsigned char> settled_;
  std::uint64_t holds_epoch_ = kNoEpoch;  ///< cpu_epoch_ the CPU devices' pooled_, settled_ are of
  std::int64_t split_since_ = 0;          ///< the pass from which last_split_'s data stayed put
  /// last_split_ gave rows to a device no pass had measured yet: the priors chose it, and the
  /// noise floor does not hold it (hold_split).
  bool split_on_priors_ = false;
  /// This pass's split was kept because some copying device's times had not settled
  /// (back-off does not judge its shares).
  bool settling_ = false;
  std::vector<std::int64_t> entering_;
  /// Predicted seconds each device spends in this pass copying in the rows its range gained
  /// from the last split (its first range: all of them); and whether its last sample was
  /// left out for them.
  std::vector<double> migration_seconds_;
  std::vector<unsigned char> skipped_;
  /// The last whole-pass split of a CPU-only region, for n = cpu_split_n_ (-1: none), and
  /// which devices it holds (cpu_split_hold.hpp).
  std::vector<std::int64_t> cpu_split_;
  std::int64_t cpu_split_n_ = -1;
  std::vector<unsigned char> cpu_pooled_;

  // How the cores share the plan: the mode, whether this pass is one the probe learns
  // from (single cores alone, a balancing schedule's whole-pass ratio plan), the chunk size
  // of a pass shared as chunks (0 otherwise), the stealing members and pieces.
  ShareMode share_mode_ = ShareMode::kOwn;
  bool probed_pass_ = false;
  std::int64_t share_chunk_ = 0;
  ShareProbe share_probe_;
  std::vector<unsigned char> share_member_;
  std::vector<std::int64_t> share_piece_;
  /// The members and single cores' pieces are of cpu_epoch_ = sharing_epoch_, sharing_mode_
  /// and sharing_thieves_ (whether the plan had thieves: then one core is a member too).
  std::uint64_t sharing_epoch_ = kNoEpoch;
  ShareMode sharing_mode_ = ShareMode::kOwn;
  bool sharing_thieves_ = false;

  // Stealing across the accelerator boundary (planner_steal.cpp): the plan's thieves, whether
  // this pass's data lets accelerators steal (plan_pass), the switch, and what a range of a
  // device with its own memory copies whatever its size (CopyCosts::range_copies).
  std::vector<unsigned char> share_thief_;
  /// Per accelerator, what its last kPieceSamples passes' stolen pieces cost each beyond
  /// their rows, and their median (learn_piece_cost).
  static constexpr std::size_t kPieceSamples = 3;
  std::vector<std::array<double, kPieceSamples>> piece_samples_;
  std::vector<std::int64_t> piece_sampled_;
  std::vector<double> piece_seconds_;
  bool steal_allowed_ = false;
  bool accelerator_stealing_ = true;
  int range_copies_ = 0;
  bool host_written_ = false;  ///< CopyCosts::host_written of the pass

  // Participation trials (planner_trial.cpp): the trial, the switch, whether this pass is one
  // it decides, and each worker's rows in the last pass the trial needed them of (what the
  // candidate is chosen from).
  // The trial is the region's own until share_trial gives it its data environment's.
  std::shared_ptr<SharedTrial> trial_;
  int trial_slot_ = 0;
  bool trial_shared_ = false;
  bool participation_trials_ = true;
  bool trial_pass_ = false;
  std::vector<std::int64_t> last_rows_;
  bool trial_decided_ = false;  ///< the last record_trial decided a trial: trial_decision_
  ParticipationTrial::Decision trial_decision_;
  mutable std::vector<std::pair<std::int64_t, std::string_view>> outs_ranked_;  ///< trial_outs
  mutable std::vector<std::string> outs_;                                       ///< trial_outs
  /// The CPU side's estimate before a trial returning it reset it: back if the trial lost.
  TimeEstimator cpu_side_before_;
  bool cpu_return_open_ = false;  ///< that trial is not decided yet
};

}  // namespace tsar::core
