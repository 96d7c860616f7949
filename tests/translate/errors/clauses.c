// SPDX-License-Identifier: BSD-3-Clause
/* Directive syntax: unknown directive, device class, schedule and clause; map(from:) of a
   whole array; members as items; a partition index that is not i plus a constant.
   expect 11:14: unknown TSAR directive 'co'
   expect 16:21: unknown device class 'gpus'
   expect 22:26: unknown schedule 'fastest'
   expect 27:26: unknown clause 'part_copy'
   expect 32:26: map(from: ...) of a whole array is not allowed
   expect 37:44: only variables can be mapped, not members ('v.p')
   expect 42:45: the first section must be the rows iteration i uses */
#pragma tsar co(all)
struct s { double* p; };
void f(int n, double* x, struct s v) {
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] = 0;
#pragma tsar hetero(gpus) part_map(tofrom: x[i:1])
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] = 0;
  (void)v;
}
void g(int n, double* x) {
#pragma tsar hetero(all, fastest) part_map(tofrom: x[i:1])
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] = 0;
}
void h(int n, double* x) {
#pragma tsar hetero(all) part_copy(tofrom: x[i:1])
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] = 0;
}
void k(int n, double* x) {
#pragma tsar hetero(all) map(from: x[0:n])
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] = 0;
}
void m(int n, struct s v) {
#pragma tsar hetero(all) part_map(tofrom: v.p[i:1])
#pragma omp target teams distribute parallel for map(tofrom: v.p[0:n])
  for (int i = 0; i < n; ++i) v.p[i] = 0;
}
void q(int n, double* x) {
#pragma tsar hetero(all) part_map(tofrom: x[2*i:1])
#pragma omp target teams distribute parallel for map(tofrom: x[0:2*n])
  for (int i = 0; i < n; ++i) x[2 * i] = 0;
}
