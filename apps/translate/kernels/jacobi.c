/* SPDX-License-Identifier: BSD-3-Clause */
/* Helmholtz by Jacobi sweeps (thesis 4.5.4; jacobi.c of the OpenMP examples): the interior
 * rows 1 .. n-2 of u from uold's rows i-1 .. i+1 (a halo of one row), with the squared
 * residual summed by an OpenMP reduction. The caller swaps u and uold after each sweep; both
 * stay on the devices (persist), so a sweep moves only the rows next to another device's. */
#include "kernels.h"

double tk_jacobi(int64_t n, int64_t m, double ax, double ay, double b, double omega,
                 const double* uold, const double* f, double* u) {
  double error = 0.0;
#pragma tsar hetero(all) part_map(to: uold[i-1:3][0:m], f[i:1][0:m]) \
    part_map(tofrom: u[i:1][0:m]) persist(uold, u, f)
#pragma omp target teams distribute parallel for reduction(+: error) \
    map(to: uold[0:n*m], f[0:n*m]) map(tofrom: u[0:n*m], error)
  for (int64_t i = 1; i < n - 1; ++i) {
    for (int64_t j = 1; j < m - 1; ++j) {
      const double resid = (ax * (uold[(i - 1) * m + j] + uold[(i + 1) * m + j]) +
                            ay * (uold[i * m + j - 1] + uold[i * m + j + 1]) +
                            b * uold[i * m + j] - f[i * m + j]) / b;
      u[i * m + j] = uold[i * m + j] - omega * resid;
      error += resid * resid;
    }
  }
  return error;
}
