// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The kernels of tsar-bench-gpu. Four of one loop each: GEMM, the assignment step of k-means,
// a Jacobi (Helmholtz-style) stencil with a residual reduction, and a GPU-averse gather that
// must copy a large table to every device each pass; each loop's iteration body is written
// once (an inline function, also compiled for the GPU under TSAR_OFFLOAD) and run by three
// range functions: a host loop, the application's OpenMP target region, and a CUDA kernel
// (bench_gpu_cuda.cu). And the suite's time-step kernels (apps/tsar/kernels: bicgstab,
// residual, wave), several dependent loops a pass -- a region each -- checked against their
// serial references.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tsar/tsar.hpp"

namespace tsar_bench_gpu {

/// What an accelerator's ranges run: OpenMP target regions or CUDA kernels.
enum class Backend { omp, cuda };

class GpuKernel {
 public:
  virtual ~GpuKernel() = default;
  virtual const char* name() const = 0;
  virtual std::string size_text() const = 0;
  /// The loops of one pass, in order; each runs in a region of its own.
  virtual std::vector<std::string> loops() const { return {name()}; }
  /// Restores the inputs (every configuration computes the same thing).
  virtual void reset() = 0;
  /// Registers each loop's buffers (and reductions) with its region (regions[i]: loop i).
  virtual void attach(std::span<tsar::Region* const> regions) = 0;
  /// Unregisters them.
  virtual void detach() = 0;
  /// One pass: every loop, ranges dispatched by device kind.
  virtual void pass(std::span<tsar::Region* const> regions, Backend backend) = 0;
  /// The serial step between passes (not timed): swapping buffers, new centroids.
  virtual void after_pass() {}
  /// After the last pass, timed with the passes: brings outputs the devices keep resident
  /// to the host (the run's final copy back).
  virtual void finish() {}
  /// Samples of the result, compared across configurations (empty: check() alone).
  virtual std::vector<double> sample() const = 0;
  /// "" when the last pass's result agrees with the kernel's serial reference, else what
  /// differs ("" for kernels without one: their samples are compared instead).
  virtual std::string check() const { return {}; }
  /// Kernels of one loop: bytes a device running [b, e) may move in one pass -- what it needs
  /// of every input (halo included) and its own part of every output, all of it when nothing
  /// is kept between passes (persistent copies and resident outputs move less). 0: no bound.
  virtual std::int64_t bound_bytes(std::int64_t b, std::int64_t e) const = 0;
  /// Time-step kernels: the bytes the last pass's splits required (traffic_model.hpp), set
  /// against what moved; -1 when not modelled.
  virtual std::int64_t minimum_bytes() const { return -1; }
  /// Time-step kernels: wall seconds the last pass spent in each loop's parallel_for call, in
  /// loops() order (the rest of the pass is the program's serial steps). Empty: the pass is
  /// its one loop.
  virtual std::vector<double> loop_seconds() const { return {}; }
};

/// A kernel of one loop, run by one region.
class OneLoopKernel : public GpuKernel {
 public:
  void attach(std::span<tsar::Region* const> regions) final { attach(*regions[0]); }
  void pass(std::span<tsar::Region* const> regions, Backend backend) final {
    pass(*regions[0], backend);
  }
  /// Registers the loop's buffers (and reductions) with `region`.
  virtual void attach(tsar::Region& region) = 0;
  /// One pass of the loop.
  virtual void pass(tsar::Region& region, Backend backend) = 0;
};

std::unique_ptr<GpuKernel> make_gemm(std::int64_t n);
std::unique_ptr<GpuKernel> make_kmeans(std::int64_t points, int dims, int clusters);
std::unique_ptr<GpuKernel> make_jacobi(std::int64_t rows, std::int64_t cols);
std::unique_ptr<GpuKernel> make_averse(std::int64_t n, std::int64_t table);
/// The suite kernel `name` (apps/tsar/kernels) at its quick or large size, a pass one run;
/// nullptr when there is no such kernel.
std::unique_ptr<GpuKernel> make_suite_kernel(const std::string& name, bool quick);

}  // namespace tsar_bench_gpu
