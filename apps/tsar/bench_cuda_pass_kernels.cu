// SPDX-License-Identifier: BSD-3-Clause
// CUDA kernels of tsar-bench-cuda-pass (bench_cuda_pass_kernels.hpp).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "bench_cuda_pass_kernels.hpp"

namespace tsar_bench_cuda_pass {
namespace {

cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

void check(const char* what, cudaError_t e) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "tsar-bench-cuda-pass: %s: %s\n", what, cudaGetErrorString(e));
    std::abort();
  }
}

// One block per row: y[i][:] += a x[i][:], and with `partial` the row's sum of x[i][:] y[i][:]
// (a dot product's per-row part, as the solvers' loops leave it).
__global__ void axpy_rows_k(const double* x, double* y, double* partial, long long cols, double a,
                            long long lo) {
  const long long i = lo + blockIdx.x;
  const double* xi = x + i * cols;
  double* yi = y + i * cols;
  double s = 0.0;
  for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
    const double v = yi[j] + a * xi[j];
    yi[j] = v;
    s += xi[j] * v;
  }
  if (partial == nullptr) return;
  __shared__ double sums[256];
  sums[threadIdx.x] = s;
  __syncthreads();
  for (unsigned h = blockDim.x / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) sums[threadIdx.x] += sums[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[i] = sums[0];
}

}  // namespace

void axpy_rows(void* stream, const double* x, double* y, double* partial, std::int64_t cols,
               double a, std::int64_t lo, std::int64_t hi) {
  if (hi <= lo) return;
  axpy_rows_k<<<static_cast<unsigned>(hi - lo), 256, 0, as_stream(stream)>>>(x, y, partial, cols, a,
                                                                             lo);
  check("launch", cudaGetLastError());
}

RawBuffers::RawBuffers(std::int64_t rows, std::int64_t cols) : rows_(rows) {
  const auto bytes = static_cast<std::size_t>(rows * cols) * sizeof(double);
  check("stream", cudaStreamCreateWithFlags(reinterpret_cast<cudaStream_t*>(&stream_),
                                            cudaStreamNonBlocking));
  check("malloc", cudaMalloc(reinterpret_cast<void**>(&x_), bytes));
  check("malloc", cudaMalloc(reinterpret_cast<void**>(&y_), bytes));
  check("malloc", cudaMalloc(reinterpret_cast<void**>(&partial_), rows * sizeof(double)));
  check("memset", cudaMemset(x_, 0, bytes));
  check("memset", cudaMemset(y_, 0, bytes));
  check("host alloc", cudaMallocHost(reinterpret_cast<void**>(&host_partial_),
                                     static_cast<std::size_t>(rows) * sizeof(double)));
}

RawBuffers::~RawBuffers() {
  cudaFreeHost(host_partial_);
  cudaFree(partial_);
  cudaFree(y_);
  cudaFree(x_);
  cudaStreamDestroy(as_stream(stream_));
}

void RawBuffers::pass(std::int64_t cols, bool with_partial) {
  axpy_rows(stream_, x_, y_, with_partial ? partial_ : nullptr, cols, 1e-9, 0, rows_);
  if (with_partial)
    check("copy",
          cudaMemcpyAsync(host_partial_, partial_, static_cast<std::size_t>(rows_) * sizeof(double),
                          cudaMemcpyDeviceToHost, as_stream(stream_)));
  check("synchronize", cudaStreamSynchronize(as_stream(stream_)));
}

}  // namespace tsar_bench_cuda_pass
