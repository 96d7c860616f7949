/* SPDX-License-Identifier: BSD-3-Clause */
/* k-means' assignment step (thesis 2.7.2) by blocks of points: block bl assigns its points
 * to the nearest centre and sums them per centre into its row of partial (the caller combines
 * the rows in block order, so the result does not depend on the split). */
#include "kernels.h"

void tk_kmeans(int64_t blocks, int64_t block, int64_t d, int64_t k, const double* points,
               const double* centres, int* member, double* partial) {
#pragma tsar hetero(all) part_map(to: points[bl:1][0:block*d]) map(to: centres[0:k*d]) \
    part_map(from: member[bl:1][0:block], partial[bl:1][0:k*(d+1)])
#pragma omp target teams distribute parallel for map(to: points[0:blocks*block*d]) \
    map(to: centres[0:k*d]) map(from: member[0:blocks*block], partial[0:blocks*k*(d+1)])
  for (int64_t bl = 0; bl < blocks; ++bl) {
    double* sums = partial + bl * (k * (d + 1));
    for (int64_t x = 0; x < k * (d + 1); ++x) sums[x] = 0.0;
    for (int64_t q = 0; q < block; ++q) {
      const double* pt = points + bl * (block * d) + q * d;
      int64_t best = 0;
      double best_dist = 0.0;
      for (int64_t c = 0; c < k; ++c) {
        double dist = 0.0;
        for (int64_t f = 0; f < d; ++f) {
          const double diff = pt[f] - centres[c * d + f];
          dist += diff * diff;
        }
        if (c == 0 || dist < best_dist) {
          best = c;
          best_dist = dist;
        }
      }
      member[bl * block + q] = (int)best;
      for (int64_t f = 0; f < d; ++f) sums[best * (d + 1) + f] += pt[f];
      sums[best * (d + 1) + d] += 1.0;
    }
  }
}
