// SPDX-License-Identifier: BSD-3-Clause
/* Reductions from the OpenMP construct (a sum, a maximum of an int, a minimum of a double),
 * the tsar directive's if(), the construct's if(target: ...), and a loop variable declared
 * before the loop with an inclusive bound. */
int stats(int n, int use_gpu, const double* x, const int* k, double* total, int* top,
          double* low) {
  double sum = 0.0, lo = 1e300;
  int hi = -1, i;
#pragma tsar hetero(accel, static) if(n > 1000) part_map(to: x[i:1], k[i:1])
#pragma omp target teams distribute parallel for if(target: use_gpu) \
    reduction(+: sum) reduction(max: hi) reduction(min: lo) map(to: x[0:n+1], k[0:n+1])
  for (i = 0; i <= n; ++i) {
    sum += x[i];
    hi = k[i] > hi ? k[i] : hi;
    lo = x[i] < lo ? x[i] : lo;
  }
  *total = sum;
  *top = hi;
  *low = lo;
  return i;
}
