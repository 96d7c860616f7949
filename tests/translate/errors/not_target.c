// SPDX-License-Identifier: BSD-3-Clause
/* A CPU-only OpenMP loop has no accelerator branch to keep.
   expect 6:9: must be a combined OpenMP target loop */
void f(int n, double* x) {
#pragma tsar hetero(all) part_map(tofrom: x[i:1])
#pragma omp parallel for
  for (int i = 0; i < n; ++i) x[i] = 0;
}
