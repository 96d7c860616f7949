/* SPDX-License-Identifier: BSD-3-Clause */
/* GEMM (PolyBench/GPU): a row of C per iteration; A's rows and C's rows go to the device
 * that computes them, B to every device. */
#include "kernels.h"

void tk_gemm(int64_t n, double alpha, double beta, const double* a, const double* b, double* c) {
#pragma tsar hetero(all, adaptive) part_map(to: a[i:1][0:n]) part_map(tofrom: c[i:1][0:n]) \
    map(to: b[0:n*n]) persist(a, b)
#pragma omp target teams distribute parallel for map(to: a[0:n*n], b[0:n*n]) \
    map(tofrom: c[0:n*n])
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) c[i * n + j] *= beta;
    for (int64_t k = 0; k < n; ++k) {
      const double aik = alpha * a[i * n + k];
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];
    }
  }
}
