// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// CUDA range functions of tsar-bench-gpu's loops (bench_gpu_cuda.cu), launched on a TSAR
// chunk's stream; each returns after the launch (TSAR waits for the stream).
#include <cstdint>

namespace tsar_bench_gpu::cuda {

/// CUDA devices visible (0 without driver or GPU).
int devices();
/// c[i][:] = alpha * a[i][:] b + beta * c[i][:] for rows [lo, hi) of n x n matrices.
void gemm(void* stream, const double* a, const double* b, double* c, std::int64_t n, double alpha,
          double beta, std::int64_t lo, std::int64_t hi);
/// member[i] = nearest of `clusters` centroids to point i, for i in [lo, hi).
void kmeans_assign(void* stream, const double* points, const double* centroids, int* member,
                   int dims, int clusters, std::int64_t lo, std::int64_t hi);
/// One Jacobi sweep of rows [lo, hi) (Helmholtz operator), the squared residual added to *acc.
void jacobi(void* stream, const double* uold, const double* f, double* u, std::int64_t rows,
            std::int64_t cols, double ax, double ay, double b, double omega, std::int64_t lo,
            std::int64_t hi, double* acc);
/// y[i] = sum of 16 table entries picked by hashing i, for i in [lo, hi).
void gather(void* stream, const double* table, std::int64_t len, double* y, std::int64_t lo,
            std::int64_t hi);

}  // namespace tsar_bench_gpu::cuda
