// SPDX-License-Identifier: BSD-3-Clause
/* Loops TSAR cannot split: the canonical OpenMP form is required.
   expect 16:19: the condition must compare the loop variable with <, <=, > or >=
   expect 19:26: the increment must be ++i (step 1)
   expect 22:19: the loop must count up
   expect 25:8: the loop variable 'x' must have an integer type
   expect 28:43: the body changes the loop variable 'i'
   expect 31:3: expected a for loop after the OpenMP construct */
#define ALL(i, n) for (int i = 0; i < n; ++i)
#pragma omp declare target
extern void use(int);
#pragma omp end declare target
void f(int n, double* a) {
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i != n; ++i) a[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < n; i += 2) a[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = n; i > 0; --i) a[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (double x = 0; x < n; ++x) use((int)x);
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < n; ++i) { a[i] = 0; i++; }
#pragma tsar hetero(all) part_map(tofrom: a[i:1])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  { for (int i = 0; i < n; ++i) a[i] = 0; }
}
