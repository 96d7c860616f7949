// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The adaptive split (docs/architecture.md, thesis 5.3.2): the closed form of the linear program
// that minimises the deviation between the devices' predicted finish times, and the remainder rule.
//
// With p_j the time per iteration of device j, equal finish times i_j * p_j = const give
// f_j = (1/p_j) / sum_k (1/p_k). Device j gets floor(f_j * N); the remainder (fewer than n
// iterations) goes round-robin from the fastest device, skipping devices assigned less than
// N/n, so an incapable device never gets an iteration it should not. When every device is
// below N/n (e.g. N = 5 on two equal devices) the remainder goes round-robin over all
// devices from the fastest.

#include <cstdint>
#include <span>
#include <vector>

namespace tsar::core {

/// f_j for each device. Devices with p_j <= 0 or p_j = +inf (retired) get 0. Empty when no
/// device has a usable time.
std::vector<double> split_fractions(std::span<const double> time_per_iteration);

/// Working storage of split_iterations, kept by callers that split every pass so that
/// splitting allocates nothing in steady state.
struct SplitScratch {
  std::vector<std::size_t> usable;  ///< the devices with a usable time
  std::vector<double> fractions;    ///< f_j of each of those
  std::vector<std::size_t> eligible;
};

/// Iterations per device for a pass of n iterations; out.size() == time_per_iteration.size().
/// The counts sum to n. Throws std::invalid_argument when n > 0 and no device is usable.
void split_iterations(std::int64_t n, std::span<const double> time_per_iteration,
                      std::span<std::int64_t> out, SplitScratch& scratch);
/// The same with its own scratch.
void split_iterations(std::int64_t n, std::span<const double> time_per_iteration,
                      std::span<std::int64_t> out);

}  // namespace tsar::core
