// SPDX-License-Identifier: BSD-3-Clause
/* Data blocks: what they must be, and what their loops must agree on.
   expect 14:3: tsar data must be followed by a block
   expect 15:14: tsar update belongs inside a tsar data block
   expect 18:24: the data block does not map 'b'
   expect 22:5: must not be left by return, goto, break or continue
   expect 26:43: the loop writes 'b', which the data directive maps to (read-only)
   expect 32:43: 'a': rows of (m) elements here, of 1 in the data directive
   expect 36:27: map(b): give its rows
   expect 38:19: unknown clause 'copy' of tsar data */
void use(double*);
void f(int n, int m, double* a, double* b) {
#pragma tsar data map(a[0:n][0:m])
  use(a);
#pragma tsar update to(a)
#pragma tsar data map(a[0:n][0:m])
  {
#pragma tsar update to(b)
  }
#pragma tsar data map(a[0:n][0:m])
  {
    return;
  }
#pragma tsar data map(a[0:n][0:m]) map(to: b[0:n][0:m])
  {
#pragma tsar hetero(all) part_map(tofrom: b[i:1][0:m])
#pragma omp target teams distribute parallel for map(tofrom: b[0:n*m])
    for (int i = 0; i < n; ++i) b[i * m] = 0;
  }
#pragma tsar data map(a[0:n*m])
  {
#pragma tsar hetero(all) part_map(tofrom: a[i:1][0:m])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n*m])
    for (int i = 0; i < n; ++i) a[i * m] = 0;
  }
#pragma tsar data map(to: b)
  { use(b); }
#pragma tsar data copy(a)
  { use(a); }
}
