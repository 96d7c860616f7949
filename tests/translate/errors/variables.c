// SPDX-License-Identifier: BSD-3-Clause
/* What the directive and the loop must agree on about variables.
   expect 14:38: the loop uses 'a', an array or pointer the directive does not map
   expect 15:57: the loop does not use 'x'
   expect 18:57: 'b' is mapped twice
   expect 21:49: 'k' is not an array or a pointer
   expect 24:57: persist(a): 'a' is not in a part_map or map
   expect 27:41: how many rows has 'b'? Map it on the OpenMP construct (map(from: b[0:n])
   expect 30:41: the OpenMP map of it must start at 0 (it starts at 1)
   expect 33:48: the sections after the first must start at 0 */
void f(int n, int k, double* a, double* b, double* x) {
#pragma tsar hetero(all) part_map(from: b[i:1])
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(from: b[0:n])
  for (int i = 0; i < n; ++i) b[i] = a[i];
#pragma tsar hetero(all) part_map(from: b[i:1]) map(to: x[0:n])
#pragma omp target teams distribute parallel for map(from: b[0:n])
  for (int i = 0; i < n; ++i) b[i] = 0;
#pragma tsar hetero(all) part_map(from: b[i:1]) map(to: b[0:n])
#pragma omp target teams distribute parallel for map(from: b[0:n])
  for (int i = 0; i < n; ++i) b[i] = 0;
#pragma tsar hetero(all) part_map(from: b[i:1], k[i:1])
#pragma omp target teams distribute parallel for map(from: b[0:n])
  for (int i = 0; i < n; ++i) b[i] = k;
#pragma tsar hetero(all) part_map(from: b[i:1]) persist(a)
#pragma omp target teams distribute parallel for map(from: b[0:n])
  for (int i = 0; i < n; ++i) b[i] = 0;
#pragma tsar hetero(all) part_map(from: b[i:1])
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; ++i) b[i] = 0;
#pragma tsar hetero(all) part_map(from: b[i:1])
#pragma omp target teams distribute parallel for map(from: b[1:n])
  for (int i = 0; i < n; ++i) b[i] = 0;
#pragma tsar hetero(all) part_map(from: b[i:1][1:k])
#pragma omp target teams distribute parallel for map(from: b[0:n*k])
  for (int i = 0; i < n; ++i) b[i * k + 1] = 0;
}
