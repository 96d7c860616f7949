// SPDX-License-Identifier: BSD-3-Clause
/* What the loop does with a mapped array that TSAR cannot split safely.
   expect 19:40: cannot tell which row of 'a' iteration i uses in 'a[k * n + i]'
   expect 23:43: 'a[(i + 1) * n + j]' uses row i+1 of 'a', outside the rows its part_map
   expect 24:45: 'u' is written by the loop: iteration i may use row i only
   expect 29:38: is used inside a macro expansion here
   expect 32:42: 'a' is used whole here
   expect 35:33: the loop assigns the pointer 'a' itself
   expect 38:41: the loop writes 'a', which the directive maps to (read-only)
   expect 41:31: the loop writes 'b', which the directive maps to (read-only)
   expect 44:40: cannot tell which row of 'x' iteration i uses in 'x[2 * i]' */
#define A(i, j) a[(i) * n + (j)]
#pragma omp declare target
extern double sum(const double* row, int n);
#pragma omp end declare target
void f(int n, int k, const double* a, double* b, double* u, double* x) {
#pragma tsar hetero(all) part_map(to: a[i:1][0:n]) part_map(from: b[i:1])
#pragma omp target teams distribute parallel for map(to: a[0:n*n]) map(from: b[0:n])
  for (int i = 0; i < n; ++i) b[i] = a[k * n + i];
#pragma tsar hetero(all) part_map(to: a[i:1][0:n]) part_map(from: b[i:1])
#pragma omp target teams distribute parallel for map(to: a[0:n*n]) map(from: b[0:n])
  for (int i = 0; i < n - 1; ++i)
    for (int j = 0; j < n; ++j) b[i] += a[(i + 1) * n + j];
#pragma tsar hetero(all) part_map(tofrom: u[i-1:3][0:n])
#pragma omp target teams distribute parallel for map(tofrom: u[0:n*n])
  for (int i = 1; i < n - 1; ++i) u[i * n] = u[(i - 1) * n];
#pragma tsar hetero(all) part_map(to: a[i:1][0:n]) part_map(from: b[i:1])
#pragma omp target teams distribute parallel for map(to: a[0:n*n]) map(from: b[0:n])
  for (int i = 0; i < n; ++i) b[i] = A(i, 0);
#pragma tsar hetero(all) part_map(to: a[i:1][0:n]) part_map(from: b[i:1])
#pragma omp target teams distribute parallel for map(to: a[0:n*n]) map(from: b[0:n])
  for (int i = 0; i < n; ++i) b[i] = sum(a, n) + i;
#pragma tsar hetero(all) part_map(to: a[i:1][0:n]) part_map(from: b[i:1])
#pragma omp target teams distribute parallel for map(to: a[0:n*n]) map(from: b[0:n])
  for (int i = 0; i < n; ++i) { a = b; b[i] = 0; }
#pragma tsar hetero(all) part_map(to: x[i:1]) map(to: a[0:n])
#pragma omp target teams distribute parallel for map(to: a[0:n], x[0:n])
  for (int i = 0; i < n; ++i) ((double*)a)[i] = x[i];
#pragma tsar hetero(all) part_map(to: x[i:1]) map(to: b[0:n])
#pragma omp target teams distribute parallel for map(to: b[0:n], x[0:n])
  for (int i = 0; i < n; ++i) b[i] = x[i];
#pragma tsar hetero(all) part_map(to: x[i:1]) part_map(from: b[i:1])
#pragma omp target teams distribute parallel for map(to: x[0:2*n]) map(from: b[0:n])
  for (int i = 0; i < n; ++i) b[i] = x[2 * i];
}
