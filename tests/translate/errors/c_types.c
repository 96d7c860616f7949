// SPDX-License-Identifier: BSD-3-Clause
/* C: the body function is written at file scope, so the loop cannot use types that exist
   only inside the function, nor variable-length arrays.
   expect 11:38: 'p' has a type declared inside the function ('pt')
   expect 14:31: 'v' has a variable-length array type */
void f(int n, double* b, int m) {
  struct pt { double x, y; } p = {1, 2};
  double (*v)[m] = (double (*)[m])b;
#pragma tsar hetero(all) part_map(from: b[i:1])
#pragma omp target teams distribute parallel for map(from: b[0:n])
  for (int i = 0; i < n; ++i) b[i] = p.x;
#pragma tsar hetero(all) part_map(tofrom: v[i:1][0:m])
#pragma omp target teams distribute parallel for map(tofrom: v[0:n][0:m])
  for (int i = 0; i < n; ++i) v[i][0] = 0;
}
