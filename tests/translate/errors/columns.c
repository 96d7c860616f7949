// SPDX-License-Identifier: BSD-3-Clause
/* Arrays split by columns are refused (ATAX's second loop maps A whole instead).
   expect 5:69: 'a' split by columns: not supported */
void aty(int n, const double* a, const double* tmp, double* y) {
#pragma tsar hetero(all) part_map(from: y[j:1]) part_map(to: a[0:n][j:1]) map(to: tmp[0:n])
#pragma omp target teams distribute parallel for map(to: a[0:n*n], tmp[0:n]) map(from: y[0:n])
  for (int j = 0; j < n; ++j) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += a[i * n + j] * tmp[i];
    y[j] = s;
  }
}
