// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a metric suggests: moves, how much they should save, how sure the metric is, and the
// figures it based that on.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "symmer/analysis/move.hpp"

namespace symmer::analysis {

struct Proposal {
  std::string metric;       ///< name of the metric that made it
  std::vector<Move> moves;  ///< one move (to a free core), two (a swap) or more
  /// Predicted share of the job's run time saved, by the metric's own model (0.1 = 10%).
  double gain = 0.0;
  /// The same gain in seconds per second of run time over the evidence span (gain * span).
  double gain_s = 0.0;
  double confidence = 0.0;  ///< [0, 1]: how far the evidence supports the gain
  nlohmann::json evidence;  ///< window figures behind the proposal (logged with the decision)
};

}  // namespace symmer::analysis
