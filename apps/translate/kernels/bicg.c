/* SPDX-License-Identifier: BSD-3-Clause */
/* BiCG (PolyBench/GPU): s = A^T r by columns, q = A p by rows. */
#include "kernels.h"

void tk_bicg(int64_t n, const double* a, const double* r, const double* p, double* s, double* q) {
#pragma tsar hetero(all) map(to: a[0:n*n], r[0:n]) part_map(from: s[j:1])
#pragma omp target teams distribute parallel for map(to: a[0:n*n], r[0:n]) map(from: s[0:n])
  for (int64_t j = 0; j < n; ++j) {
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) sum += r[i] * a[i * n + j];
    s[j] = sum;
  }

#pragma tsar hetero(all) part_map(to: a[i:1][0:n]) map(to: p[0:n]) part_map(from: q[i:1])
#pragma omp target teams distribute parallel for map(to: a[0:n*n], p[0:n]) map(from: q[0:n])
  for (int64_t i = 0; i < n; ++i) {
    double sum = 0.0;
    for (int64_t j = 0; j < n; ++j) sum += a[i * n + j] * p[j];
    q[i] = sum;
  }
}
