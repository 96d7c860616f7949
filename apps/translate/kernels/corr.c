/* SPDX-License-Identifier: BSD-3-Clause */
/* CORR (PolyBench/GPU correlation): column means and deviations by columns (all of data on
 * every device), normalising by rows, then row j1 of the upper triangle per iteration (m - j1
 * entries: imbalanced). */
#include <math.h>

#include "kernels.h"

#pragma omp declare target
static double corr_eps(void) { return 0.1; }
#pragma omp end declare target

void tk_corr(int64_t n, int64_t m, double* data, double* mean, double* stddev, double* symmat) {
#pragma tsar hetero(all) map(to: data[0:n*m]) part_map(from: mean[j:1])
#pragma omp target teams distribute parallel for map(to: data[0:n*m]) map(from: mean[0:m])
  for (int64_t j = 0; j < m; ++j) {
    double s = 0.0;
    for (int64_t i = 0; i < n; ++i) s += data[i * m + j];
    mean[j] = s / (double)n;
  }

#pragma tsar hetero(all) map(to: data[0:n*m]) part_map(to: mean[j:1]) part_map(from: stddev[j:1])
#pragma omp target teams distribute parallel for map(to: data[0:n*m], mean[0:m]) \
    map(from: stddev[0:m])
  for (int64_t j = 0; j < m; ++j) {
    double s = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      const double dev = data[i * m + j] - mean[j];
      s += dev * dev;
    }
    s = sqrt(s / (double)n);
    stddev[j] = s <= corr_eps() ? 1.0 : s;
  }

#pragma tsar hetero(all) part_map(tofrom: data[i:1][0:m]) map(to: mean[0:m], stddev[0:m])
#pragma omp target teams distribute parallel for map(tofrom: data[0:n*m]) \
    map(to: mean[0:m], stddev[0:m])
  for (int64_t i = 0; i < n; ++i) {
    const double root_n = sqrt((double)n);
    for (int64_t j = 0; j < m; ++j)
      data[i * m + j] = (data[i * m + j] - mean[j]) / (root_n * stddev[j]);
  }

#pragma tsar hetero(all) map(to: data[0:n*m]) part_map(tofrom: symmat[j1:1][0:m])
#pragma omp target teams distribute parallel for map(to: data[0:n*m]) map(tofrom: symmat[0:m*m])
  for (int64_t j1 = 0; j1 < m; ++j1) {
    symmat[j1 * m + j1] = 1.0;
    for (int64_t j2 = j1 + 1; j2 < m; ++j2) {
      double s = 0.0;
      for (int64_t i = 0; i < n; ++i) s += data[i * m + j1] * data[i * m + j2];
      symmat[j1 * m + j2] = s;
    }
  }
}
