/* SPDX-License-Identifier: BSD-3-Clause */
/* MVT (PolyBench/GPU): x1 += A y1 by rows, x2 += A^T y2 by columns. */
#include "kernels.h"

void tk_mvt(int64_t n, const double* a, const double* y1, const double* y2, double* x1,
            double* x2) {
#pragma tsar hetero(all) part_map(to: a[i:1][0:n]) map(to: y1[0:n]) part_map(tofrom: x1[i:1])
#pragma omp target teams distribute parallel for map(to: a[0:n*n], y1[0:n]) map(tofrom: x1[0:n])
  for (int64_t i = 0; i < n; ++i) {
    double s = x1[i];
    for (int64_t j = 0; j < n; ++j) s += a[i * n + j] * y1[j];
    x1[i] = s;
  }

#pragma tsar hetero(all) map(to: a[0:n*n], y2[0:n]) part_map(tofrom: x2[i:1])
#pragma omp target teams distribute parallel for map(to: a[0:n*n], y2[0:n]) map(tofrom: x2[0:n])
  for (int64_t i = 0; i < n; ++i) {
    double s = x2[i];
    for (int64_t j = 0; j < n; ++j) s += a[j * n + i] * y2[j];
    x2[i] = s;
  }
}
