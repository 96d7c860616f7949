// SPDX-License-Identifier: BSD-3-Clause
/* A data environment over two loops: arrays mapped once for the block (b as a 1-D array the
 * first loop reads whole without naming it), the host's copy brought up to date and written
 * back between the loops. */
void step(int n, int m, int steps, double* a, const double* b, double* out) {
#pragma tsar data map(tofrom: a[0:n][0:m]) map(to: b[0:n*m]) map(from: out[0:n])
  {
    for (int s = 0; s < steps; ++s) {
#pragma tsar hetero(all) part_map(tofrom: a[i:1][0:m])
#pragma omp target teams distribute parallel for map(tofrom: a[0:n*m]) map(to: b[0:n*m])
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j) a[i * m + j] += b[i * m + j];
#pragma tsar update from(a)
      a[0] = 0.0;
#pragma tsar update to(a)
#pragma tsar hetero(all) part_map(to: a[i:1][0:m]) part_map(from: out[i:1])
#pragma omp target teams distribute parallel for map(to: a[0:n*m]) map(from: out[0:n])
      for (int i = 0; i < n; ++i) {
        double sum = 0.0;
        for (int j = 0; j < m; ++j) sum += a[i * m + j];
        out[i] = sum;
      }
    }
  }
}
