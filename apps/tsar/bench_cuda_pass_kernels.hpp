// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// CUDA side of tsar-bench-cuda-pass (bench_cuda_pass_kernels.cu): one row-wise kernel, launched
// on a TSAR chunk's stream or, for the baseline without TSAR, on a stream of its own.
#include <cstdint>

namespace tsar_bench_cuda_pass {

/// y[i][:] += a x[i][:] for rows [lo, hi) of rows x cols matrices, and, where `partial` is not
/// null, partial[i] = x[i][:] . y[i][:] (device pointers); returns after the launch.
void axpy_rows(void* stream, const double* x, double* y, double* partial, std::int64_t cols,
               double a, std::int64_t lo, std::int64_t hi);

/// The baseline: the same kernel on device memory of GPU 0, by hand.
class RawBuffers {
 public:
  RawBuffers(std::int64_t rows, std::int64_t cols);
  ~RawBuffers();
  RawBuffers(const RawBuffers&) = delete;
  RawBuffers& operator=(const RawBuffers&) = delete;
  /// One pass over every row, then the stream's wait; `with_partial`: the per-row sums too,
  /// copied back into page-locked host memory before the wait.
  void pass(std::int64_t cols, bool with_partial);

 private:
  std::int64_t rows_;
  void* stream_ = nullptr;
  double* x_ = nullptr;
  double* y_ = nullptr;
  double* partial_ = nullptr;
  double* host_partial_ = nullptr;
};

}  // namespace tsar_bench_cuda_pass
