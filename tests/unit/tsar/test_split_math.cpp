// SPDX-License-Identifier: BSD-3-Clause
// The adaptive split against independent references: the linear program of thesis fig. 5.4
// (its optimum is zero deviation), the remainder rule as docs/architecture.md words it, and a
// brute-force search over every integer split of small passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "schedule/split_math.hpp"

namespace {

using tsar::core::split_fractions;
using tsar::core::split_iterations;
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<std::int64_t> split(std::int64_t n, const std::vector<double>& p) {
  std::vector<std::int64_t> out(p.size());
  split_iterations(n, p, out);
  return out;
}

// docs/architecture.md, word for word, in exact integer arithmetic: p_j are from a grid of
// rationals whose inverses are multiples of 1/2100, so f_j * N = N * w_j / W with integer weights.
std::vector<std::int64_t> reference_split(std::int64_t n, const std::vector<double>& p) {
  std::vector<std::int64_t> out(p.size(), 0), w(p.size(), 0);
  std::vector<std::size_t> usable;
  std::int64_t total_weight = 0;
  for (std::size_t j = 0; j < p.size(); ++j)
    if (std::isfinite(p[j])) {
      usable.push_back(j);
      w[j] = std::llround(2100.0 / p[j]);
      total_weight += w[j];
    }
  std::int64_t given = 0;
  for (std::size_t j : usable) {
    out[j] = n * w[j] / total_weight;
    given += out[j];
  }
  std::stable_sort(usable.begin(), usable.end(), [&](auto a, auto b) { return p[a] < p[b]; });
  std::vector<std::size_t> eligible;
  for (std::size_t j : usable)  // "assigned less than N/n": out_j * n < N
    if (out[j] * static_cast<std::int64_t>(usable.size()) >= n) eligible.push_back(j);
  if (eligible.empty()) eligible = usable;
  for (std::size_t k = 0; given < n; ++k, ++given) ++out[eligible[k % eligible.size()]];
  return out;
}

double makespan(const std::vector<std::int64_t>& counts, const std::vector<double>& p) {
  double m = 0;
  for (std::size_t j = 0; j < p.size(); ++j)
    if (counts[j] > 0) m = std::max(m, static_cast<double>(counts[j]) * p[j]);
  return m;
}

// Best makespan over every integer split of n among the usable devices.
double brute_force_makespan(std::int64_t n, const std::vector<double>& p) {
  double best = kInf;
  std::vector<std::int64_t> c(p.size(), 0);
  auto rec = [&](auto&& self, std::size_t j, std::int64_t left) -> void {
    if (j + 1 == p.size()) {
      if (left > 0 && !std::isfinite(p[j])) return;
      c[j] = left;
      best = std::min(best, makespan(c, p));
      return;
    }
    const std::int64_t hi = std::isfinite(p[j]) ? left : 0;
    for (std::int64_t i = 0; i <= hi; ++i) {
      c[j] = i;
      self(self, j + 1, left - i);
    }
  };
  rec(rec, 0, n);
  return best;
}

TEST(SplitMath, ClosedFormIsTheLinearProgramOptimum) {
  // LP 5.1-5.5: minimise sum_j |f_j p_j - f_1 p_1| subject to sum f = 1. The closed form
  // reaches zero, the least possible value; perturbing it makes the objective positive.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> tpi(1e-9, 1e-3);
  for (int trial = 0; trial < 1000; ++trial) {
    std::vector<double> p(1 + trial % 8);
    for (auto& x : p) x = tpi(rng);
    const auto f = split_fractions(p);
    ASSERT_EQ(f.size(), p.size());
    EXPECT_NEAR(std::accumulate(f.begin(), f.end(), 0.0), 1.0, 1e-12);
    for (std::size_t j = 1; j < p.size(); ++j) EXPECT_NEAR(f[j] * p[j] / (f[0] * p[0]), 1.0, 1e-9);
    if (p.size() > 1) {
      auto g = f;
      g[0] += 1e-3;
      g[1] -= 1e-3;
      double deviation = 0;
      for (std::size_t j = 1; j < p.size(); ++j) deviation += std::abs(g[j] * p[j] - g[0] * p[0]);
      EXPECT_GT(deviation, 0.0);
    }
  }
}

TEST(SplitMath, MatchesTheRemainderRuleAndIsNearTheIntegerOptimum) {
  // Every small case: up to 4 devices with speeds from a grid (retired ones included), every
  // n up to 12. Counts equal docs/architecture.md's rule; the makespan is within what the remainder
  // can add over the brute-force optimum.
  const std::vector<double> grid = {1, 1.5, 2, 3, 7, 100, kInf};
  for (std::size_t devices = 1; devices <= 4; ++devices) {
    std::vector<std::size_t> idx(devices, 0);
    for (;;) {
      std::vector<double> p;
      for (auto i : idx) p.push_back(grid[i]);
      if (std::any_of(p.begin(), p.end(), [](double x) { return std::isfinite(x); })) {
        for (std::int64_t n = 0; n <= 12; ++n) {
          const auto ours = split(n, p);
          ASSERT_EQ(ours, reference_split(n, p)) << "n=" << n;
          ASSERT_EQ(std::accumulate(ours.begin(), ours.end(), std::int64_t{0}), n);
          for (std::size_t j = 0; j < p.size(); ++j)
            if (!std::isfinite(p[j])) {
              ASSERT_EQ(ours[j], 0);
            }
          const double slowest = *std::max_element(p.begin(), p.end(), [](double a, double b) {
            return (std::isfinite(a) ? a : 0) < (std::isfinite(b) ? b : 0);
          });
          ASSERT_LE(makespan(ours, p),
                    brute_force_makespan(n, p) + static_cast<double>(devices) * slowest + 1e-9)
              << "n=" << n;
        }
      }
      std::size_t k = 0;
      while (k < devices && ++idx[k] == grid.size()) idx[k++] = 0;
      if (k == devices) break;
    }
  }
}

TEST(SplitMath, EqualDevicesOfANodeGetTheRemainderRulesShares) {
  // A node's cores planned at their common rate: up to 64 of them, at times whose inverses
  // are not exact in binary, some retired, every n up to 200. The rule's integer form gives
  // each n / d and the remainder to the first ones.
  for (const double t : {1e-9 / 3.0, 0.7, 3.0}) {
    for (std::size_t devices = 1; devices <= 64; devices += (devices < 8 ? 1 : 7)) {
      std::vector<double> p(devices, t);
      if (devices > 2) p[1] = kInf;
      for (std::int64_t n = 0; n <= 200; ++n)
        ASSERT_EQ(split(n, p), reference_split(n, p))
            << "t=" << t << " d=" << devices << " n=" << n;
    }
  }
}

TEST(SplitMath, TwoDevicesMatchTheReducedFormWithinOneIteration) {
  // Thesis eq. 4.6: i_c = I * p_g / (p_g + p_c).
  for (std::int64_t n : {1, 7, 100, 12345}) {
    for (double pc : {0.5, 1.0, 3.0}) {
      const double pg = 1.7;
      const auto c = split(n, {pc, pg});
      EXPECT_LE(std::abs(static_cast<double>(c[0]) - static_cast<double>(n) * pg / (pg + pc)), 1.0);
    }
  }
}

TEST(SplitMath, RemainderSkipsIncapableDevices) {
  // One device 100x slower: with 10 iterations it should get none, not a leftover one.
  EXPECT_EQ(split(10, {1, 1, 100}), (std::vector<std::int64_t>{5, 5, 0}));
  EXPECT_EQ(split(11, {1, 1, 100}), (std::vector<std::int64_t>{6, 5, 0}));
  // Equal devices, indivisible n: every device is below N/n, remainder from the first.
  EXPECT_EQ(split(5, {1, 1}), (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(split(7, {2, 1}), (std::vector<std::int64_t>{2, 5}));
}

TEST(SplitMath, FewerIterationsThanDevices) {
  EXPECT_EQ(split(2, {1, 1, 1, 1}), (std::vector<std::int64_t>{1, 1, 0, 0}));
  // Only the fastest reaches N/n = 0.75 iterations: it takes the whole remainder.
  EXPECT_EQ(split(3, {4, 3, 2, 1}), (std::vector<std::int64_t>{0, 0, 0, 3}));
  EXPECT_EQ(split(0, {1, 2}), (std::vector<std::int64_t>{0, 0}));
}

TEST(SplitMath, HugePassesStayExact) {
  const std::int64_t n = (std::int64_t{1} << 61) + 12345;
  const auto c = split(n, {1, 3, 7, 1e-9});
  EXPECT_EQ(std::accumulate(c.begin(), c.end(), std::int64_t{0}), n);
}

TEST(SplitMath, RejectsPassesWithoutDevices) {
  std::vector<std::int64_t> out(2);
  EXPECT_THROW(split_iterations(5, std::vector<double>{kInf, 0.0}, out), std::invalid_argument);
  EXPECT_NO_THROW(split_iterations(0, std::vector<double>{kInf, kInf}, out));
  EXPECT_TRUE(split_fractions(std::vector<double>{kInf}).empty());
}

}  // namespace
