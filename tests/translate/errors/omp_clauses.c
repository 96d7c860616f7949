// SPDX-License-Identifier: BSD-3-Clause
/* Clauses of the OpenMP construct that a co-scheduled loop cannot honour.
   expect 18:70: the OpenMP clause 'nowait' is not supported
   expect 21:70: the OpenMP clause 'depend' is not supported
   expect 24:73: the OpenMP clause 'lastprivate' is not supported
   expect 27:70: the OpenMP clause 'is_device_ptr' is not supported
   expect 30:70: the OpenMP clause 'has_device_addr' is not supported
   expect 33:70: the OpenMP clause 'in_reduction' is not supported
   expect 36:70: the OpenMP clause 'ordered' is not supported
   expect 39:70: only an if for the target
   expect 42:70: only variables and their array sections can be co-scheduled
   expect 45:63: only scalar variables (not array sections) can be reduced
   expect 48:50: TSAR combines +, -, *, &, |, ^, &&, ||, min and max
   expect 51:50: reduction modifier inscan is not supported */
struct s { double* p; };
void f(int n, double* a, int t, double* h, struct s v) {
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) nowait
  for (int i = 0; i < n; ++i) a[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) depend(in: a[0])
  for (int i = 0; i < n; ++i) a[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n], t) lastprivate(t)
  for (int i = 0; i < n; ++i) t = i, a[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) is_device_ptr(h)
  for (int i = 0; i < n; ++i) a[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) has_device_addr(h)
  for (int i = 0; i < n; ++i) a[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) in_reduction(+: t)
  for (int i = 0; i < n; ++i) a[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) ordered
  for (int i = 0; i < n; ++i) a[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) if(parallel: n > 9)
  for (int i = 0; i < n; ++i) a[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n], v.p[0:n])
  for (int i = 0; i < n; ++i) a[i] = 0;
#pragma tsar hetero(all) part_map(to: a[i:1])
#pragma omp target teams distribute parallel for reduction(+: h[0:2]) map(to: a[0:n])
  for (int i = 0; i < n; ++i) h[i % 2] += a[i];
#pragma tsar hetero(all) part_map(to: a[i:1])
#pragma omp target teams distribute parallel for reduction(mine: t) map(to: a[0:n])
  for (int i = 0; i < n; ++i) t += (int)a[i];
#pragma tsar hetero(all) part_map(to: a[i:1])
#pragma omp target teams distribute parallel for reduction(inscan, +: t) map(to: a[0:n])
  for (int i = 0; i < n; ++i) t += (int)a[i];
}
