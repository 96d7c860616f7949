// SPDX-License-Identifier: BSD-3-Clause
/* A file libclang cannot parse (a header it cannot find) is refused as a whole.
   expect 1:1: libclang cannot parse the file */
#include "no_such_header.h"
void f(int n, double* x) {
#pragma tsar hetero(all) part_map(tofrom: x[i:1])
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] = 0;
}
