// SPDX-License-Identifier: BSD-3-Clause
// CUDA range functions of tsar-bench-gpu (bench_gpu_cuda.hpp): the same formulas as the
// iteration bodies of bench_gpu_kernels.cpp, one thread per element (GEMM in 16 x 16 tiles
// through shared memory), launched on the chunk's stream.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "bench_gpu_cuda.hpp"

namespace tsar_bench_gpu::cuda {
namespace {

cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

void check(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "tsar-bench-gpu: %s launch: %s\n", what, cudaGetErrorString(e));
    std::abort();
  }
}

unsigned blocks(long long n, int threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

constexpr int kTile = 16;

__global__ void gemm_k(const double* a, const double* b, double* c, long long n, double alpha,
                       double beta, long long lo, long long hi) {
  __shared__ double as[kTile][kTile];
  __shared__ double bs[kTile][kTile];
  const long long i = lo + blockIdx.y * static_cast<long long>(kTile) + threadIdx.y;
  const long long j = blockIdx.x * static_cast<long long>(kTile) + threadIdx.x;
  double s = 0.0;
  for (long long k0 = 0; k0 < n; k0 += kTile) {
    as[threadIdx.y][threadIdx.x] =
        (i < hi && k0 + threadIdx.x < n) ? a[i * n + k0 + threadIdx.x] : 0.0;
    bs[threadIdx.y][threadIdx.x] =
        (j < n && k0 + threadIdx.y < n) ? b[(k0 + threadIdx.y) * n + j] : 0.0;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) s += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (i < hi && j < n) c[i * n + j] = alpha * s + beta * c[i * n + j];
}

__global__ void kmeans_k(const double* points, const double* centroids, int* member, int dims,
                         int clusters, long long lo, long long hi) {
  const long long i = lo + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= hi) return;
  const double* p = points + i * dims;
  int best = 0;
  double best_d = 0.0;
  for (int k = 0; k < clusters; ++k) {
    double d = 0.0;
    for (int x = 0; x < dims; ++x) {
      const double t = p[x] - centroids[k * dims + x];
      d += t * t;
    }
    if (k == 0 || d < best_d) {
      best_d = d;
      best = k;
    }
  }
  member[i] = best;
}

__global__ void jacobi_k(const double* uold, const double* f, double* u, long long rows,
                         long long cols, double ax, double ay, double b, double omega, long long lo,
                         long long hi, double* acc) {
  __shared__ double part[256];
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long i = lo + t / cols, j = t % cols;
  double r2 = 0.0;
  if (i < hi) {
    const long long k = i * cols + j;
    if (i == 0 || i == rows - 1 || j == 0 || j == cols - 1) {
      u[k] = uold[k];
    } else {
      const double r = (ax * (uold[k - cols] + uold[k + cols]) + ay * (uold[k - 1] + uold[k + 1]) +
                        b * uold[k] - f[k]) /
                       b;
      u[k] = uold[k] - omega * r;
      r2 = r * r;
    }
  }
  part[threadIdx.x] = r2;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(acc, part[0]);
}

__global__ void gather_k(const double* table, long long len, double* y, long long lo,
                         long long hi) {
  const long long i = lo + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= hi) return;
  double s = 0.0;
  unsigned long long h = static_cast<unsigned long long>(i) * 0x9E3779B97F4A7C15ULL;
  for (int k = 0; k < 16; ++k) {
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    s += table[h % static_cast<unsigned long long>(len)];
  }
  y[i] = s;
}

}  // namespace

int devices() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

void gemm(void* stream, const double* a, const double* b, double* c, std::int64_t n, double alpha,
          double beta, std::int64_t lo, std::int64_t hi) {
  const dim3 threads(kTile, kTile);
  const dim3 grid(blocks(n, kTile), blocks(hi - lo, kTile));
  gemm_k<<<grid, threads, 0, as_stream(stream)>>>(a, b, c, n, alpha, beta, lo, hi);
  check("gemm");
}

void kmeans_assign(void* stream, const double* points, const double* centroids, int* member,
                   int dims, int clusters, std::int64_t lo, std::int64_t hi) {
  kmeans_k<<<blocks(hi - lo, 256), 256, 0, as_stream(stream)>>>(points, centroids, member, dims,
                                                                clusters, lo, hi);
  check("kmeans");
}

void jacobi(void* stream, const double* uold, const double* f, double* u, std::int64_t rows,
            std::int64_t cols, double ax, double ay, double b, double omega, std::int64_t lo,
            std::int64_t hi, double* acc) {
  jacobi_k<<<blocks((hi - lo) * cols, 256), 256, 0, as_stream(stream)>>>(uold, f, u, rows, cols, ax,
                                                                         ay, b, omega, lo, hi, acc);
  check("jacobi");
}

void gather(void* stream, const double* table, std::int64_t len, double* y, std::int64_t lo,
            std::int64_t hi) {
  gather_k<<<blocks(hi - lo, 256), 256, 0, as_stream(stream)>>>(table, len, y, lo, hi);
  check("gather");
}

}  // namespace tsar_bench_gpu::cuda
