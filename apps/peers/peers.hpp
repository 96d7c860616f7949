// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The peer runtimes of this build, by name.

#include <memory>
#include <string>
#include <vector>

#include "runner.hpp"

namespace tsar::peers {

/// "omp-static", "omp-dynamic", "omp-guided", then "tbb" and "starpu-dmda", "starpu-dmdas",
/// "starpu-lws" when the build has oneTBB and StarPU.
std::vector<std::string> peer_names();
/// The peer called `name`; nullptr when this build has none of that name.
/// `starpu_calibration_runs`: see StarpuRunner.
std::unique_ptr<Runner> make_peer(const std::string& name, const RunnerConfig& config,
                                  int starpu_calibration_runs);

}  // namespace tsar::peers
