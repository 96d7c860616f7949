// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Whether one handful of samples lies below another: the one-sided Mann-Whitney rank test,
// exact for the few samples a participation trial takes. It asks only that the samples of
// each side be exchangeable where the two sides run alike, not that their noise be normal:
// pass times have long tails on one side (docs/results/tsar/trial-decisions-two-gpus/).

#include <cstdint>
#include <vector>

namespace tsar::core {

/// Mann-Whitney's U of `a` below `b`: the pairs (x, y), x of `a` and y of `b`, with x >= y.
/// A tie counts against `a`. Returns 0 where every x is below every y.
inline int pairs_not_below(const std::vector<double>& a, const std::vector<double>& b) {
  int u = 0;
  for (const double x : a)
    for (const double y : b) u += x >= y ? 1 : 0;
  return u;
}

/// The largest u such that, where `m` samples and `n` samples come from one distribution, U of
/// the m below the n is at most u with a chance of at most `alpha`. Returns -1 where even U = 0
/// is likelier than that (too few samples to tell). 3 and 3 at 0.05: 0 (1 in C(6, 3) = 20);
/// 5 and 5: 4 (12 in C(10, 5) = 252).
inline int rank_test_critical(int m, int n, double alpha) {
  if (m <= 0 || n <= 0) return -1;
  // ways[i][j][u]: orderings of i samples and j samples whose U is u (Mann and Whitney's
  // recurrence: the largest sample is one of the i, above all j of the others, or one of the j).
  const int max_u = m * n;
  std::vector<std::vector<std::vector<std::int64_t>>> ways(
      static_cast<std::size_t>(m) + 1,
      std::vector<std::vector<std::int64_t>>(static_cast<std::size_t>(n) + 1,
                                             std::vector<std::int64_t>(max_u + 1, 0)));
  for (int i = 0; i <= m; ++i)
    for (int j = 0; j <= n; ++j)
      for (int u = 0; u <= i * j; ++u) {
        auto& w = ways[i][j][u];
        if (i == 0 || j == 0) {
          w = u == 0 ? 1 : 0;
          continue;
        }
        w = (u >= j ? ways[i - 1][j][u - j] : 0) + ways[i][j - 1][u];
      }
  std::int64_t total = 0;
  for (int u = 0; u <= max_u; ++u) total += ways[m][n][u];
  int critical = -1;
  std::int64_t below = 0;
  for (int u = 0; u <= max_u; ++u) {
    below += ways[m][n][u];
    if (static_cast<double>(below) > alpha * static_cast<double>(total) * (1.0 + 1e-12)) break;
    critical = u;
  }
  return critical;
}

}  // namespace tsar::core
