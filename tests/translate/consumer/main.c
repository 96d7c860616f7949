// SPDX-License-Identifier: BSD-3-Clause
// y = 1 + 3 * 2 x, by three calls of the translated saxpy; prints "ok" when every element is.
#include <stdio.h>
#include <stdlib.h>

#include "saxpy.h"

int main(void) {
  enum { N = 10007 };
  double* x = malloc(N * sizeof *x);
  double* y = malloc(N * sizeof *y);
  for (int i = 0; i < N; ++i) x[i] = i, y[i] = 1.0;
  for (int call = 0; call < 3; ++call) saxpy(N, 2.0, x, y);
  for (int i = 0; i < N; ++i)
    if (y[i] != 1.0 + 6.0 * i) {
      printf("y[%d] = %g, expected %g\n", i, y[i], 1.0 + 6.0 * i);
      return 1;
    }
  printf("ok\n");
  free(x), free(y);
  return 0;
}
