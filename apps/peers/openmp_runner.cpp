// SPDX-License-Identifier: BSD-3-Clause
#include "openmp_runner.hpp"

#include <omp.h>

#include <algorithm>

namespace tsar::peers {

OpenMpRunner::OpenMpRunner(Schedule schedule, RunnerConfig config)
    : schedule_(schedule), config_(std::move(config)) {
  switch (schedule_) {
    case Schedule::static_blocks:
      name_ = "omp-static";
      break;
    case Schedule::dynamic:
      name_ = "omp-dynamic";
      break;
    case Schedule::guided:
      name_ = "omp-guided";
      break;
  }
}

void OpenMpRunner::begin(kernels::Kernel&) {
  // libgomp keeps its team between parallel regions of the same size: bind it once.
  const int threads = static_cast<int>(config_.cores.size());
#pragma omp parallel num_threads(threads)
  config_.bind_thread(config_.cores[static_cast<std::size_t>(omp_get_thread_num())]);
}

void OpenMpRunner::parallel(const kernels::Loop& loop, std::int64_t n) {
  const int threads = static_cast<int>(config_.cores.size());
  const std::int64_t chunks = std::min<std::int64_t>(config_.chunks, n);
  switch (schedule_) {
    case Schedule::static_blocks:
      // schedule(static) without a chunk size: one contiguous block per thread.
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int t = 0; t < threads; ++t) {
        const auto [b, e] = chunk_bounds(n, threads, t);
        if (b < e) loop.host(b, e);
      }
      break;
    case Schedule::dynamic:
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
      for (std::int64_t c = 0; c < chunks; ++c) {
        const auto [b, e] = chunk_bounds(n, chunks, c);
        loop.host(b, e);
      }
      break;
    case Schedule::guided:
      // guided over the chunks: the smallest piece is one chunk, the first ones larger.
#pragma omp parallel for schedule(guided, 1) num_threads(threads)
      for (std::int64_t c = 0; c < chunks; ++c) {
        const auto [b, e] = chunk_bounds(n, chunks, c);
        loop.host(b, e);
      }
      break;
  }
}

}  // namespace tsar::peers
