/* SPDX-License-Identifier: BSD-3-Clause */
/* 2MM (PolyBench/GPU): two products, a row of the result per iteration. */
#include "kernels.h"

void tk_2mm(int64_t n, const double* a, const double* b, double* c, const double* d, double* e) {
#pragma tsar hetero(all) part_map(to: a[i:1][0:n]) part_map(from: c[i:1][0:n]) map(to: b[0:n*n])
#pragma omp target teams distribute parallel for map(to: a[0:n*n], b[0:n*n]) \
    map(from: c[0:n*n])
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (int64_t k = 0; k < n; ++k) s += a[i * n + k] * b[k * n + j];
      c[i * n + j] = s;
    }

#pragma tsar hetero(all) part_map(to: c[i:1][0:n]) part_map(from: e[i:1][0:n]) map(to: d[0:n*n])
#pragma omp target teams distribute parallel for map(to: c[0:n*n], d[0:n*n]) \
    map(from: e[0:n*n])
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (int64_t k = 0; k < n; ++k) s += c[i * n + k] * d[k * n + j];
      e[i * n + j] = s;
    }
}
