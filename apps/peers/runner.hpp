// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A runtime that runs the benchmark kernels' parallel loops: the peers (OpenMP schedules,
// oneTBB, StarPU schedulers) and, in the suite, TSAR itself. Every runner uses the same
// threads: one per core of RunnerConfig::cores, the calling thread on cores[0].

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kernel.hpp"

namespace tsar::peers {

/// What every runner of one suite run shares.
struct RunnerConfig {
  /// Logical cores (hwloc logical indices), one thread on each; the caller is on cores[0].
  std::vector<int> cores;
  /// Chunks per parallel loop for chunked schedules (OpenMP dynamic/guided, TBB's grain,
  /// StarPU tasks, TSAR chunk schedules). Fewer when a loop has fewer iterations.
  int chunks = 0;
  /// Binds the calling thread to a logical core (NodeModel::bind_current_thread).
  std::function<void(int core)> bind_thread;
  /// A private folder a runtime may write to (StarPU's performance models).
  std::string scratch_dir;
};

/// Runs a kernel's parallel loops.
class Runner {
 public:
  virtual ~Runner() = default;
  /// "omp-static", "tbb", "starpu-dmda", "tsar-adaptive", ...
  virtual const std::string& name() const = 0;
  /// Untimed preparation for `kernel` after its setup: threads, per-loop state, calibration
  /// runs (which leave the kernel's data to be reset).
  virtual void begin(kernels::Kernel& kernel) = 0;
  /// Iterations [0, n) of `loop`, each once; the kernel's `Parallel`.
  virtual void parallel(const kernels::Loop& loop, std::int64_t n) = 0;
  /// Releases what begin took (threads that would otherwise poll, per-loop state).
  virtual void end() = 0;
};

/// Chunk c of n iterations cut into `chunks` near-equal chunks: [begin, end).
inline std::pair<std::int64_t, std::int64_t> chunk_bounds(std::int64_t n, std::int64_t chunks,
                                                          std::int64_t c) {
  return {c * n / chunks, (c + 1) * n / chunks};
}

}  // namespace tsar::peers
