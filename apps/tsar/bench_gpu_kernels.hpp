// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The four loops of tsar-bench-gpu: GEMM, the assignment step of k-means, a Jacobi
// (Helmholtz-style) stencil with a residual reduction, and a GPU-averse gather that must copy
// a large table to every device each pass. Each loop's iteration body is written once (an
// inline function, also compiled for the GPU under TSAR_OFFLOAD) and run by three range
// functions: a host loop, the application's OpenMP target region, and a CUDA kernel
// (bench_gpu_cuda.cu). Shaped so they can move into apps/tsar/kernels.

#include <cstdint>
#include <memory>
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
  /// Iterations of one pass.
  virtual std::int64_t iterations() const = 0;
  /// Restores the inputs (every configuration computes the same thing).
  virtual void reset() = 0;
  /// Registers the loop's buffers (and reductions) with `region`.
  virtual void attach(tsar::Region& region) = 0;
  /// Unregisters them.
  virtual void detach() = 0;
  /// One pass: the parallel loop, ranges dispatched by device kind.
  virtual void pass(tsar::Region& region, Backend backend) = 0;
  /// The serial step between passes (not timed): swapping buffers, new centroids.
  virtual void after_pass() {}
  /// After the last pass, timed with the passes: brings outputs the devices keep resident
  /// to the host (the run's final copy back).
  virtual void finish() {}
  /// Samples of the result, compared across configurations.
  virtual std::vector<double> sample() const = 0;
  /// Bytes a device running [b, e) may move in one pass: what it needs of every input (halo
  /// included) and its own part of every output -- all of it when nothing is kept between
  /// passes (persistent copies and resident outputs move less).
  virtual std::int64_t bound_bytes(std::int64_t b, std::int64_t e) const = 0;
};

std::unique_ptr<GpuKernel> make_gemm(std::int64_t n);
std::unique_ptr<GpuKernel> make_kmeans(std::int64_t points, int dims, int clusters);
std::unique_ptr<GpuKernel> make_jacobi(std::int64_t rows, std::int64_t cols);
std::unique_ptr<GpuKernel> make_averse(std::int64_t n, std::int64_t table);

}  // namespace tsar_bench_gpu
