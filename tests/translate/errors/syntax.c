// SPDX-License-Identifier: BSD-3-Clause
/* Directive syntax, continued: clauses TSAR cannot read, in loop directives and data blocks.
   expect 17:48: expected ')' to close part_map(...), found the end of the line
   expect 20:35: map type 'toward': expected one of to, from, tofrom
   expect 23:61: 'name' given twice
   expect 26:26: name takes a string literal: name("gemm")
   expect 29:61: map(a): sections must start at 0
   expect 32:59: map(a): give its extent, a[0:n]
   expect 35:27: depersist takes no other clause
   expect 36:14: tsar data maps nothing: give map([to|from|tofrom:] ...)
   expect 40:14: tsar update names nothing: give to(...) or from(...)
   expect 43:29: map(a): the rows start at 0
   expect 45:27: no variable 'zz' here
   expect 49:60: unbalanced parentheses in the condition of if */
void use(double*);
void f(int n, int m, double* x, double* a) {
#pragma tsar hetero(all) part_map(tofrom: x[i:1]
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] = 0;
#pragma tsar hetero(all) part_map(toward: x[i:1])
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] = 0;
#pragma tsar hetero(all) name("a") part_map(tofrom: x[i:1]) name("b")
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] = 0;
#pragma tsar hetero(all) name(gemm) part_map(tofrom: x[i:1])
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] = 0;
#pragma tsar hetero(all) part_map(tofrom: x[i:1]) map(to: a[1:n])
#pragma omp target teams distribute parallel for map(tofrom: x[0:n]) map(to: a[0:n])
  for (int i = 0; i < n; ++i) x[i] = a[0];
#pragma tsar hetero(all) part_map(tofrom: x[i:1]) map(to: a)
#pragma omp target teams distribute parallel for map(tofrom: x[0:n]) map(to: a[0:n])
  for (int i = 0; i < n; ++i) x[i] = a[0];
#pragma tsar depersist(x) hetero(all)
#pragma tsar data
  { use(x); }
#pragma tsar data map(to: x[0:n])
  {
#pragma tsar update
    use(x);
  }
#pragma tsar data map(to: a[1:n][0:m])
  { use(a); }
#pragma tsar data map(to: zz[0:n])
  { use(a); }
}
void h(int n, double* x) {
#pragma tsar hetero(all) part_map(tofrom: x[i:1]) if(n > (0)
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] = 0;
}
