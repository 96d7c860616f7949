// SPDX-License-Identifier: BSD-3-Clause
/* A stencil over the interior rows of two-dimensional arrays: a pointer to rows (u) and a
 * global array (G), a halo of one row, a collapsed nest, and depersist. */
#define M 64

#pragma omp declare target
double G[100][M];
#pragma omp end declare target

void smooth(int n, double (*u)[M], double w) {
#pragma tsar hetero(all) part_map(to: G[i-1:3][0:M]) part_map(tofrom: u[i:1][0:M]) persist(G)
#pragma omp target teams distribute parallel for collapse(2) map(tofrom: u[0:n][0:M]) \
    map(to: G)
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < M - 1; ++j)
      u[i][j] = w * (G[i - 1][j] + G[i + 1][j] + G[i][j - 1] + G[i][j + 1]) + (1 - 4 * w) * u[i][j];
}

void forget(void) {
#pragma tsar depersist(G)
}
