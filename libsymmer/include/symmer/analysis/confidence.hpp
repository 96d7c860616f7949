// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Shared rules for how sure a metric may be of what it sees (thesis 3.3: monitors define
// confidence levels; the analysis discards events below a threshold).

#include <optional>

namespace symmer::analysis {

struct RankWindow;
struct WindowSample;

/// Agreement between a gain computed on the older and on the newer half of the evidence
/// span: min/max of the two when both are positive, 0 when either is not (the effect is not
/// steady), 0.5 when there are no halves (a single window cannot show steadiness).
double split_half_agreement(std::optional<double> first, std::optional<double> second);

/// Saturating confidence from a count of events: n / (n + half_point); 0 for n <= 0.
double count_confidence(double n, double half_point);

/// Share of the window the rank's measured time (idle + compute, and its silent time when
/// `with_silent`) covers, clamped to [0, 1]. Low coverage means the rank sat in one long phase
/// the counters have not credited yet.
double coverage(const RankWindow& rank, const WindowSample& window, bool with_silent = false);

}  // namespace symmer::analysis
