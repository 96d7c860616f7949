// SPDX-License-Identifier: BSD-3-Clause
/* No TSAR directive: the output is the input. */
void f(int n, double* x) {
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] *= 2;
}
