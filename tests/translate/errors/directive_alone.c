// SPDX-License-Identifier: BSD-3-Clause
/* A TSAR directive must stand next to an OpenMP target loop construct.
   expect 5:1: must be next to an OpenMP target loop construct */
void f(int n, double* x) {
#pragma tsar hetero(all) part_map(tofrom: x[i:1])
  for (int i = 0; i < n; ++i) x[i] = 0;
}
