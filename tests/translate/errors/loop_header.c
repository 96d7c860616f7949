// SPDX-License-Identifier: BSD-3-Clause
/* Loop headers TSAR cannot read (canonical form, continued), a reduction of a type TSAR
   cannot combine, a loop variable's type declared in the function, too many sections.
   expect 19:3: the loop has no initialisation
   expect 22:8: declare one loop variable
   expect 25:8: assign the loop variable
   expect 28:8: cannot read the initialisation
   expect 31:3: cannot read this for loop's header (written with a macro?)
   expect 33:79: reduction of 's': its type 'struct pt' is not arithmetic
   expect 38:8: the loop uses the type 'index' declared inside the function: declare it at file scope
   expect 41:43: 'x' has 2 dimensions, the clause 3 */
#define ALL(i, n) for (int i = 0; i < n; ++i)
struct pt { double x, y; };
void f(int n, double* a) {
  int i = 0;
  struct pt s = {0, 0};
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (; i < n; ++i) a[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0, j = 0; i < n; ++i) a[i] = j;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (a[0] = 0; i < n; ++i) a[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (i += 0; i < n; ++i) a[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  ALL(k, n) a[k] = 0;
#pragma tsar hetero(all) part_map(to: a[i:1])
#pragma omp target teams distribute parallel for map(to: a[0:n]) reduction(+: s)
  for (int i = 0; i < n; ++i) s.x += a[i];
  typedef int index;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (index k = 0; k < n; ++k) a[k] = 0;
}
void g(int n, double x[10][10]) {
#pragma tsar hetero(all) part_map(tofrom: x[i:1][0:10][0:1])
#pragma omp target teams distribute parallel for map(tofrom: x[0:n][0:10])
  for (int i = 0; i < n; ++i) x[i][0] = 0;
}
