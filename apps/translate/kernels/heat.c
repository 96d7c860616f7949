/* SPDX-License-Identifier: BSD-3-Clause */
/* A time step of two dependent loops over one grid, `steps` steps in one data environment
 * (the `target data` of OpenMP): smoothing u into v (a halo of one row), then u from v and a
 * source f. The grids stay on the devices for the whole run; a step moves only the rows
 * between two devices' shares. */
#include "kernels.h"

void tk_heat(int64_t n, int64_t m, int steps, double k, double* u, double* v, const double* f) {
#pragma tsar data map(tofrom: u[0:n][0:m], v[0:n][0:m]) map(to: f[0:n][0:m])
  {
    for (int s = 0; s < steps; ++s) {
#pragma tsar hetero(all) part_map(to: u[i-1:3][0:m]) part_map(tofrom: v[i:1][0:m])
#pragma omp target teams distribute parallel for map(to: u[0:n*m]) map(tofrom: v[0:n*m])
      for (int64_t i = 1; i < n - 1; ++i)
        for (int64_t j = 1; j < m - 1; ++j)
          v[i * m + j] = u[i * m + j] + k * (u[(i - 1) * m + j] + u[(i + 1) * m + j] +
                                             u[i * m + j - 1] + u[i * m + j + 1] -
                                             4.0 * u[i * m + j]);
      /* f is read whole: the data directive's map is enough */
#pragma tsar hetero(all) part_map(to: v[i:1][0:m]) part_map(tofrom: u[i:1][0:m])
#pragma omp target teams distribute parallel for map(to: v[0:n*m], f[0:n*m]) \
    map(tofrom: u[0:n*m])
      for (int64_t i = 1; i < n - 1; ++i)
        for (int64_t j = 1; j < m - 1; ++j) u[i * m + j] = v[i * m + j] + f[i * m + j];
    }
  }
}
