// SPDX-License-Identifier: BSD-3-Clause
/* part_map by rows of a flattened pointer, a whole input, persistence, a schedule with its
 * sub-passes, a region name, and the tsar directive after the OpenMP one. */
#include <stdint.h>

void scale_rows(int64_t n, int64_t m, const double* s, const double* in, double* out) {
#pragma omp target teams distribute parallel for map(to: s[0:n], in[0:n*m]) map(from: out[0:n*m])
#pragma tsar hetero(all, split, 4) name("scale") part_map(to: in[i:1][0:m]) \
    part_map(from: out[i:1][0:m]) map(to: s[0:n]) persist(s)
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < m; j++) out[i * m + j] = s[i] * in[i * m + j];
}
