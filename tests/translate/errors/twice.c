// SPDX-License-Identifier: BSD-3-Clause
/* One construct, two TSAR directives.
   expect 7:1: two TSAR directives on one construct */
void f(int n, double* x) {
#pragma tsar hetero(all) part_map(tofrom: x[i:1])
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
#pragma tsar hetero(cpu) part_map(tofrom: x[i:1])
  for (int i = 0; i < n; ++i) x[i] = 0;
}
