// SPDX-License-Identifier: BSD-3-Clause
// CUDA versions of the accelerator test bodies (tests/unit/tsar-memory/accel_bodies.hpp),
// one thread per element, launched on the chunk's stream. Launch errors abort the test: a
// kernel that did not run must not look like a wrong split.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "accel_kernels.hpp"

namespace accel_kernels {
namespace {

constexpr int kThreads = 256;

unsigned blocks(long long n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

void check(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::abort();
  }
}

cudaStream_t s(void* stream) { return static_cast<cudaStream_t>(stream); }

__global__ void axpy_k(const double* x, double* y, double a, long long b, long long e) {
  const long long i = b + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < e) y[i] += a * x[i];
}

__global__ void jacobi_k(const double* cur, double* next, long long rows, long long cols,
                         long long b, long long e) {
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long i = b + t / cols, j = t % cols;
  if (i >= e) return;
  const long long k = i * cols + j;
  next[k] = (i == 0 || i == rows - 1 || j == 0 || j == cols - 1)
                ? cur[k]
                : (cur[k - cols] + cur[k] + cur[k + cols] + cur[k - 1] + cur[k + 1]) / 5;
}

__global__ void scale_cols_k(const double* in, long long is, long long io, double* out,
                             long long os, long long oo, long long rows, long long b, long long e) {
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long w = e - b;
  const long long r = t / w, j = b + t % w;
  if (r >= rows) return;
  out[r * os + j - oo] = 2 * in[r * is + j - io] + (j > 0 ? in[r * is + j - 1 - io] : 0.0);
}

__global__ void plus_k(double* a, long long s, long long n, long long b, long long e) {
  const long long i = b + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= e) return;
  for (long long j = i + 1; j < n; ++j) {
    a[i * s + j] += static_cast<double>(i + 2 * j);
    a[j * s + i] -= static_cast<double>(j + 3 * i);
  }
}

__global__ void gather_k(const double* t, long long len, double* y, long long b, long long e) {
  const long long i = b + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < e) y[i] = t[(7 * i) % len] + t[(13 * i) % len];
}

__global__ void scale_rows_k(double* m, long long s, long long ro, long long cols, long long b,
                             long long e) {
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long i = b + t / cols, j = t % cols;
  if (i < e) m[(i - ro) * s + j] = 3 * m[(i - ro) * s + j] + static_cast<double>(j);
}

__global__ void sum_k(const double* x, double* acc, long long b, long long e) {
  __shared__ double part[kThreads];
  const long long i = b + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  part[threadIdx.x] = i < e ? x[i] : 0.0;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(acc, part[0]);
}

}  // namespace

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

void axpy(void* stream, const double* x, double* y, double a, std::int64_t b, std::int64_t e) {
  axpy_k<<<blocks(e - b), kThreads, 0, s(stream)>>>(x, y, a, b, e);
  check("axpy");
}

void jacobi(void* stream, const double* cur, double* next, std::int64_t rows, std::int64_t cols,
            std::int64_t b, std::int64_t e) {
  jacobi_k<<<blocks((e - b) * cols), kThreads, 0, s(stream)>>>(cur, next, rows, cols, b, e);
  check("jacobi");
}

void scale_cols(void* stream, const double* in, std::size_t in_stride, std::int64_t in_off,
                double* out, std::size_t out_stride, std::int64_t out_off, std::int64_t rows,
                std::int64_t b, std::int64_t e) {
  scale_cols_k<<<blocks(rows * (e - b)), kThreads, 0, s(stream)>>>(
      in, static_cast<long long>(in_stride), in_off, out, static_cast<long long>(out_stride),
      out_off, rows, b, e);
  check("scale_cols");
}

void plus_update(void* stream, double* a, std::size_t stride, std::int64_t n, std::int64_t b,
                 std::int64_t e) {
  plus_k<<<blocks(e - b), kThreads, 0, s(stream)>>>(a, static_cast<long long>(stride), n, b, e);
  check("plus_update");
}

void gather(void* stream, const double* t, std::int64_t len, double* y, std::int64_t b,
            std::int64_t e) {
  gather_k<<<blocks(e - b), kThreads, 0, s(stream)>>>(t, len, y, b, e);
  check("gather");
}

void scale_rows(void* stream, double* m, std::size_t stride, std::int64_t row_off,
                std::int64_t cols, std::int64_t b, std::int64_t e) {
  scale_rows_k<<<blocks((e - b) * cols), kThreads, 0, s(stream)>>>(
      m, static_cast<long long>(stride), row_off, cols, b, e);
  check("scale_rows");
}

void sum(void* stream, const double* x, double* acc, std::int64_t b, std::int64_t e) {
  sum_k<<<blocks(e - b), kThreads, 0, s(stream)>>>(x, acc, b, e);
  check("sum");
}

}  // namespace accel_kernels
