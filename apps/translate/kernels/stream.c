/* SPDX-License-Identifier: BSD-3-Clause */
/* STREAM's four loops, element i per iteration. */
#include "kernels.h"

void tk_stream(int64_t n, double s, double* a, double* b, double* c) {
#pragma tsar hetero(all, static) part_map(to: a[i:1]) part_map(from: c[i:1])
#pragma omp target teams distribute parallel for simd map(to: a[0:n]) map(from: c[0:n])
  for (int64_t i = 0; i < n; ++i) c[i] = a[i];

#pragma tsar hetero(all, static) part_map(to: c[i:1]) part_map(from: b[i:1])
#pragma omp target teams distribute parallel for simd map(to: c[0:n]) map(from: b[0:n])
  for (int64_t i = 0; i < n; ++i) b[i] = s * c[i];

#pragma tsar hetero(all, static) part_map(to: a[i:1], b[i:1]) part_map(from: c[i:1])
#pragma omp target teams distribute parallel for simd map(to: a[0:n], b[0:n]) map(from: c[0:n])
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];

#pragma tsar hetero(all, static) part_map(to: b[i:1], c[i:1]) part_map(from: a[i:1])
#pragma omp target teams distribute parallel for simd map(to: b[0:n], c[0:n]) map(from: a[0:n])
  for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}
