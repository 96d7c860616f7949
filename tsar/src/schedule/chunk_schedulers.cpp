// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/chunk_schedulers.hpp"

#include <algorithm>
#include <cmath>

#include "schedule/split_math.hpp"
#include "workers/wait_word.hpp"

namespace tsar::core {
std::int64_t auto_chunk(std::int64_t configured, std::int64_t n, std::span<const double> tpi) {
  if (configured > 0) return configured;
  const auto active =
      std::count_if(tpi.begin(), tpi.end(), [](double p) { return std::isfinite(p); });
  return std::max<std::int64_t>(1, n / (16 * std::max<std::int64_t>(1, active)));
}

void ChunkScheduler::begin_pass(std::int64_t n, std::span<const double> tpi, SubPassPlan& plan) {
  size_ = auto_chunk(configured_, n, tpi);
  chunked_plan(n, plan);
}

ChunkQueue::Result ChunkScheduler::take_chunk(int worker, const ChunkTiming&, ChunkQueue& queue,
                                              Range& out) {
  return queue.take(size_, static_cast<int>(reserves_.size()),
                    reserves_[static_cast<std::size_t>(worker)], out);
}

PerDeviceChunkScheduler::PerDeviceChunkScheduler(std::int64_t chunk, int workers, bool dynamic)
    : configured_(chunk), dynamic_(dynamic), workers_(static_cast<std::size_t>(workers)) {}

void PerDeviceChunkScheduler::begin_pass(std::int64_t n, std::span<const double> tpi,
                                         SubPassPlan& plan) {
  if (!initialised_ || !dynamic_) {
    // chunk-static (and chunk-dynamic's start): chunk_j = base * n_active * f_j, so a chunk
    // runs about as long on every device; the default times of the first pass are kept.
    if (!initialised_)
      for (std::size_t w = 0; w < workers_.size(); ++w) workers_[w].prior_tpi = tpi[w];
    std::vector<double> prior(workers_.size());
    for (std::size_t w = 0; w < workers_.size(); ++w)
      prior[w] = std::isfinite(tpi[w]) ? workers_[w].prior_tpi : tpi[w];
    const std::vector<double> f = split_fractions(prior);
    const std::int64_t base = auto_chunk(configured_, n, prior);
    const auto active = static_cast<double>(
        std::count_if(prior.begin(), prior.end(), [](double p) { return std::isfinite(p); }));
    for (std::size_t w = 0; w < workers_.size(); ++w)
      workers_[w].size =
          std::max(1.0, std::round(static_cast<double>(base) * active * (f.empty() ? 0.0 : f[w])));
    initialised_ = true;
  }
  // The region's robust estimate starts each pass; chunk timings refine it within the pass.
  const std::vector<double> share = split_fractions(tpi);
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    workers_[w].smoothed_tpi.store(tpi[w], std::memory_order_relaxed);
    workers_[w].share = share.empty() ? 0.0 : share[w];
  }
  chunked_plan(n, plan);
}

void PerDeviceChunkScheduler::adapt(WorkerState& s, const ChunkTiming& last) const {
  if (last.iterations <= 0 || !(last.seconds > 0.0)) return;
  const double tpi = last.seconds / static_cast<double>(last.iterations);
  const double old = s.smoothed_tpi.load(std::memory_order_relaxed);
  const double smoothed = (old > 0.0 && std::isfinite(old)) ? 0.7 * old + 0.3 * tpi : tpi;
  s.smoothed_tpi.store(smoothed, std::memory_order_relaxed);
  // Annealing (thesis 5.3.2): keep moving the size the way that lowered the time per
  // iteration; turn around when it rose.
  if (s.last_tpi > 0.0 && tpi > s.last_tpi * 1.02) s.direction = -s.direction;
  s.last_tpi = tpi;
  s.size *= s.direction > 0 ? 1.25 : 0.8;
  const double floor_size = kMinChunkSeconds / smoothed;
  if (s.size < floor_size) {
    s.size = floor_size;
    s.direction = 1;
  }
  s.size = std::clamp(s.size, 1.0, 1e15);
}

std::int64_t PerDeviceChunkScheduler::tail_cap(int worker, std::int64_t remaining) {
  double sum = 0.0;
  for (const auto& s : workers_) {
    const double p = s.smoothed_tpi.load(std::memory_order_relaxed);
    if (p > 0.0 && std::isfinite(p)) sum += 1.0 / p;
  }
  const double mine =
      workers_[static_cast<std::size_t>(worker)].smoothed_tpi.load(std::memory_order_relaxed);
  if (!(sum > 0.0) || !(mine > 0.0) || !std::isfinite(mine))
    return std::max<std::int64_t>(1, remaining / (2 * static_cast<std::int64_t>(workers_.size())));
  const double share = (1.0 / mine) / sum;
  workers_[static_cast<std::size_t>(worker)].share = share;
  return std::max<std::int64_t>(
      1, static_cast<std::int64_t>(static_cast<double>(remaining) * share / 2.0));
}

ChunkQueue::Result PerDeviceChunkScheduler::take_chunk(int worker, const ChunkTiming& last,
                                                       ChunkQueue& queue, Range& out) {
  auto& s = workers_[static_cast<std::size_t>(worker)];
  if (!dynamic_)
    return queue.take(std::max<std::int64_t>(1, std::llround(s.size)),
                      static_cast<int>(workers_.size()), s.reserve, out);
  adapt(s, last);
  std::int64_t size = std::max<std::int64_t>(1, std::llround(s.size));
  // The cap binds once remaining * share / 2 < size; check it from a little before that.
  const std::int64_t remaining = queue.remaining();
  if (static_cast<double>(remaining) * s.share < 4.0 * static_cast<double>(size))
    size = std::min(size, tail_cap(worker, remaining));
  return queue.take(size, out);
}

std::int64_t PerDeviceChunkScheduler::chunk_size(int worker) const {
  return std::max<std::int64_t>(1, std::llround(workers_[static_cast<std::size_t>(worker)].size));
}

HGuidedScheduler::HGuidedScheduler(std::int64_t min_chunk, int workers)
    : min_chunk_(std::max<std::int64_t>(1, min_chunk)),
      share_(static_cast<std::size_t>(workers), 0.0) {}

void HGuidedScheduler::begin_pass(std::int64_t n, std::span<const double> tpi, SubPassPlan& plan) {
  const std::vector<double> f = split_fractions(tpi);
  for (std::size_t w = 0; w < share_.size(); ++w) share_[w] = f.empty() ? 0.0 : f[w];
  chunked_plan(n, plan);
}

ChunkQueue::Result HGuidedScheduler::take_chunk(int worker, const ChunkTiming&, ChunkQueue& queue,
                                                Range& out) {
  // chunk = remaining * share / 2 (HGuided, k = 2); sized from the exact head, so claimed
  // with the non-waiting interface and retried when another worker moved the head.
  const double share = share_[static_cast<std::size_t>(worker)];
  const auto size_of = [&](std::int64_t remaining) {
    return std::max(min_chunk_, static_cast<std::int64_t>(
                                    std::ceil(static_cast<double>(remaining) * share / 2.0)));
  };
  for (;;) {
    const auto result = queue.try_take(size_of, out);
    if (result != ChunkQueue::Result::kBusy) return result;
    cpu_relax();
  }
}

}  // namespace tsar::core
