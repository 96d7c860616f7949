/* SPDX-License-Identifier: BSD-3-Clause */
/* ATAX (PolyBench/GPU): tmp = A x by rows, then y = A^T tmp by columns (every device reads
 * all of A and tmp; iteration j writes y[j]). */
#include "kernels.h"

void tk_atax(int64_t n, const double* a, const double* x, double* tmp, double* y) {
#pragma tsar hetero(all) part_map(to: a[i:1][0:n]) part_map(from: tmp[i:1]) map(to: x[0:n])
#pragma omp target teams distribute parallel for map(to: a[0:n*n], x[0:n]) map(from: tmp[0:n])
  for (int64_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (int64_t j = 0; j < n; ++j) s += a[i * n + j] * x[j];
    tmp[i] = s;
  }

#pragma tsar hetero(all) map(to: a[0:n*n], tmp[0:n]) part_map(from: y[j:1])
#pragma omp target teams distribute parallel for map(to: a[0:n*n], tmp[0:n]) map(from: y[0:n])
  for (int64_t j = 0; j < n; ++j) {
    double s = 0.0;
    for (int64_t i = 0; i < n; ++i) s += a[i * n + j] * tmp[i];
    y[j] = s;
  }
}
