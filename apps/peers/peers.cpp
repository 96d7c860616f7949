// SPDX-License-Identifier: BSD-3-Clause
#include "peers.hpp"

#include "openmp_runner.hpp"
#if TSAR_PEERS_TBB
#include "tbb_runner.hpp"
#endif
#if TSAR_PEERS_STARPU
#include "starpu_runner.hpp"
#endif

namespace tsar::peers {

std::vector<std::string> peer_names() {
  std::vector<std::string> names = {"omp-static", "omp-dynamic", "omp-guided"};
#if TSAR_PEERS_TBB
  names.emplace_back("tbb");
#endif
#if TSAR_PEERS_STARPU
  for (const char* policy : {"dmda", "dmdas", "lws"})
    names.push_back(std::string("starpu-") + policy);
#endif
  return names;
}

std::unique_ptr<Runner> make_peer(const std::string& name, const RunnerConfig& config,
                                  int starpu_calibration_runs) {
  (void)starpu_calibration_runs;
  if (name == "omp-static")
    return std::make_unique<OpenMpRunner>(OpenMpRunner::Schedule::static_blocks, config);
  if (name == "omp-dynamic")
    return std::make_unique<OpenMpRunner>(OpenMpRunner::Schedule::dynamic, config);
  if (name == "omp-guided")
    return std::make_unique<OpenMpRunner>(OpenMpRunner::Schedule::guided, config);
#if TSAR_PEERS_TBB
  if (name == "tbb") return std::make_unique<TbbRunner>(config);
#endif
#if TSAR_PEERS_STARPU
  for (const char* policy : {"dmda", "dmdas", "lws"})
    if (name == std::string("starpu-") + policy)
      return std::make_unique<StarpuRunner>(policy, config, starpu_calibration_runs);
#endif
  return nullptr;
}

}  // namespace tsar::peers
