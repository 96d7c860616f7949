// SPDX-License-Identifier: BSD-3-Clause
#include "saxpy.h"

void saxpy(int64_t n, double a, const double* x, double* y) {
#pragma tsar hetero(all) part_map(to: x[i:1]) part_map(tofrom: y[i:1])
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}
