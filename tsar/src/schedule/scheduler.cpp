// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/scheduler.hpp"

#include <algorithm>
#include <cmath>

#include "schedule/chunk_schedulers.hpp"
#include "schedule/hybrid_scheduler.hpp"
#include "schedule/ratio_schedulers.hpp"
#include "schedule/split_math.hpp"

namespace tsar::core {

namespace {

// Whether `a` is `b` scaled by one factor: a split depends on the times' ratios alone. Cores
// planned at their common rate have equal times in every pass however that rate moves, and
// keep their split without working it out again every pass for every core.
bool same_ratios(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size() || a.empty()) return false;
  // Scaled from the first finite time (a device sitting out has an infinite one, which must
  // be infinite in both).
  std::size_t base = 0;
  while (base < a.size() && !std::isfinite(a[base])) ++base;
  if (base == a.size() || !(a[base] > 0.0) || !(b[base] > 0.0))
    return std::equal(a.begin(), a.end(), b.begin());
  for (std::size_t j = 0; j < a.size(); ++j) {
    const bool finite = std::isfinite(a[j]) && std::isfinite(b[j]);
    if (finite ? a[j] * b[base] != b[j] * a[base] : a[j] != b[j]) return false;
  }
  return true;
}

}  // namespace

void ratio_plan(std::int64_t lo, std::int64_t hi, std::span<const double> tpi, SubPassPlan& plan) {
  plan.lo = lo;
  plan.hi = hi;
  plan.chunked = false;
  const std::int64_t n = hi - lo;
  if (n == plan.split_n && same_ratios(tpi, plan.split_tpi)) {
    plan.counts.assign(plan.split_counts.begin(), plan.split_counts.end());
    return;
  }
  plan.counts.resize(tpi.size());
  split_iterations(n, tpi, plan.counts, plan.scratch);
  plan.split_n = n;
  plan.split_tpi.assign(tpi.begin(), tpi.end());
  plan.split_counts.assign(plan.counts.begin(), plan.counts.end());
}

void chunked_plan(std::int64_t n, SubPassPlan& plan) {
  plan.lo = 0;
  plan.hi = n;
  plan.chunked = true;
}

void empty_plan(SubPassPlan& plan) {
  plan.lo = plan.hi = 0;
  plan.chunked = false;
  std::fill(plan.counts.begin(), plan.counts.end(), 0);
}

bool Scheduler::next_sub_pass(std::span<const double>, SubPassPlan&) { return false; }

ChunkQueue::Result Scheduler::take_chunk(int, const ChunkTiming&, ChunkQueue&, Range&) {
  return ChunkQueue::Result::kClosed;
}

std::unique_ptr<Scheduler> make_scheduler(const ScheduleSpec& spec, int workers) {
  switch (spec.kind) {
    case ScheduleKind::kStatic:
      return std::make_unique<StaticScheduler>();
    case ScheduleKind::kAdaptive:
      return std::make_unique<AdaptiveScheduler>(AdaptiveScheduler::Mode::kAdaptive, spec.div);
    case ScheduleKind::kSplit:
      return std::make_unique<AdaptiveScheduler>(AdaptiveScheduler::Mode::kSplit, spec.div);
    case ScheduleKind::kQuick:
      return std::make_unique<AdaptiveScheduler>(AdaptiveScheduler::Mode::kQuick, spec.div);
    case ScheduleKind::kChunk:
      return std::make_unique<ChunkScheduler>(spec.chunk, workers);
    case ScheduleKind::kChunkStatic:
      return std::make_unique<PerDeviceChunkScheduler>(spec.chunk, workers, false);
    case ScheduleKind::kChunkDynamic:
      return std::make_unique<PerDeviceChunkScheduler>(spec.chunk, workers, true);
    case ScheduleKind::kHybrid:
      return std::make_unique<HybridScheduler>(spec.chunk, workers);
    case ScheduleKind::kHGuided:
      return std::make_unique<HGuidedScheduler>(spec.chunk, workers);
  }
  return nullptr;
}

}  // namespace tsar::core
