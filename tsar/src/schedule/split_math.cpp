// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/split_math.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace tsar::core {
namespace {

bool usable(double p) { return p > 0.0 && std::isfinite(p); }

/// Where every usable device has the same time -- cores planned at their common rate, every
/// pass of a CPU-only region -- the split below comes to n / d each and the remainder to the
/// first devices in device order (ties go in device order): that, without the divisions,
/// the long double products and the sort. Returns false where the times differ.
bool split_equally(std::int64_t n, std::span<const double> tpi, std::span<std::int64_t> out) {
  double time = 0.0;
  std::int64_t devices = 0;
  for (const double p : tpi) {
    if (!usable(p)) continue;
    if (devices > 0 && p != time) return false;
    time = p;
    ++devices;
  }
  if (devices == 0) return false;  // the general path says why
  const std::int64_t each = n / devices;
  std::int64_t extra = n % devices;
  for (std::size_t j = 0; j < tpi.size(); ++j) {
    if (!usable(tpi[j])) continue;
    out[j] = each + (extra > 0 ? 1 : 0);
    extra -= extra > 0 ? 1 : 0;
  }
  return true;
}

}  // namespace

std::vector<double> split_fractions(std::span<const double> tpi) {
  double sum = 0.0;
  std::int64_t devices = 0;
  for (const double p : tpi)
    if (usable(p)) {
      sum += 1.0 / p;
      ++devices;
    }
  if (sum <= 0.0 || !std::isfinite(sum)) return {};
  std::vector<double> f(tpi.size(), 0.0);
  for (std::size_t j = 0; j < tpi.size(); ++j)
    if (usable(tpi[j])) f[j] = (1.0 / tpi[j]) / sum;
  return f;
}

void split_iterations(std::int64_t n, std::span<const double> tpi, std::span<std::int64_t> out) {
  SplitScratch scratch;
  split_iterations(n, tpi, out, scratch);
}

void split_iterations(std::int64_t n, std::span<const double> tpi, std::span<std::int64_t> out,
                      SplitScratch& scratch) {
  if (out.size() != tpi.size()) throw std::invalid_argument("split_iterations: size mismatch");
  std::fill(out.begin(), out.end(), 0);
  if (n <= 0) return;
  if (split_equally(n, tpi, out)) return;
  // The devices with a usable time, in device order; every step below walks these alone
  // (beside a GPU, cores sitting out a pass have infinite times: they cost one test each).
  auto& usable_at = scratch.usable;
  auto& f = scratch.fractions;  // per usable device
  auto& eligible = scratch.eligible;
  usable_at.clear();
  f.clear();
  double sum = 0.0;
  for (std::size_t j = 0; j < tpi.size(); ++j)
    if (usable(tpi[j])) {
      f.push_back(1.0 / tpi[j]);
      sum += f.back();
      usable_at.push_back(j);
    }
  if (sum <= 0.0 || !std::isfinite(sum))
    throw std::invalid_argument("split_iterations: no usable device");
  const auto devices = static_cast<std::int64_t>(usable_at.size());
  for (double& x : f) x /= sum;

  // floor(f_j * N). f_j carries a few ulps of rounding, so an exact share such as 300/3
  // can come out as 99.99999999999999; a nudge of 1e-14 (relative) restores it without
  // moving any share that is genuinely below an integer.
  std::int64_t assigned = 0;
  for (std::size_t k = 0; k < usable_at.size(); ++k) {
    // A share below half an iteration floors to none however it rounds: the long double
    // product is left to the devices that get some (beside a GPU, the cores get none).
    if (f[k] * static_cast<double>(n) < 0.5) continue;
    const long double share = static_cast<long double>(f[k]) * static_cast<long double>(n);
    const long double nudged = share * (1.0L + 1e-14L);
    std::int64_t& c = out[usable_at[k]];
    c = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(nudged)), 0, n);
    assigned += c;
  }
  // Rounding of f_j can only overshoot by a hair; give the excess back from the largest share
  // (the first of equals; the devices not usable have none).
  while (assigned > n) {
    std::size_t largest = usable_at.front();
    for (const std::size_t j : usable_at)
      if (out[j] > out[largest]) largest = j;
    --out[largest];
    --assigned;
  }

  // What rounding left goes round the devices that got at least ceil(N/n) ("assigned less
  // than N/n" are left out), fastest first, ties in device order so the split is
  // deterministic; to every usable device if none got that much. Only those are sorted
  // (insertion sort: stable, in place): beside a GPU that is the GPU alone, not the cores.
  if (assigned == n) return;
  const std::int64_t threshold = n / devices + (n % devices != 0 ? 1 : 0);
  const auto sort_fastest_first = [&](bool all) {
    eligible.clear();
    for (const std::size_t j : usable_at) {
      if (!all && out[j] < threshold) continue;
      std::size_t k = eligible.size();
      eligible.push_back(j);
      for (; k > 0 && tpi[eligible[k - 1]] > tpi[j]; --k) eligible[k] = eligible[k - 1];
      eligible[k] = j;
    }
  };
  sort_fastest_first(false);
  if (eligible.empty()) sort_fastest_first(true);

  for (std::size_t k = 0; assigned < n; k = (k + 1) % eligible.size()) {
    ++out[eligible[k]];
    ++assigned;
  }
}

}  // namespace tsar::core
