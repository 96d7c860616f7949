// SPDX-License-Identifier: BSD-3-Clause
// `cores`: every core with its capability, reservations and the ranks on it (anyone).
#include <algorithm>

#include "request.hpp"

namespace symmer::daemon {
namespace {

nlohmann::json cores(Daemon& daemon, const nlohmann::json&, const PeerCredentials&) {
  const DaemonState& s = daemon.state();
  const NodeState& node_state = s.node_state;
  const auto near = cores_near_nic(s.node, node_state.nic_irq_cores);
  const auto ranks = daemon.placed_ranks(analysis::Clock::now());
  nlohmann::json list = nlohmann::json::array();
  for (const auto& core : s.node.cores()) {
    const int c = core.index;
    nlohmann::json on = nlohmann::json::array();
    for (const auto& r : ranks)
      if (r.core == c) on.push_back({{"job", r.job}, {"rank", r.local_rank}, {"pid", r.pid}});
    nlohmann::json reserved = nlohmann::json::array();
    for (const auto& [pid, r] : s.reservations)
      if (std::find(r.reservation.cores.begin(), r.reservation.cores.end(), c) !=
          r.reservation.cores.end())
        reserved.push_back({{"pid", pid},
                            {"uid", r.reservation.uid},
                            {"all_jobs", r.reservation.all_jobs},
                            {"reason", r.reservation.reason}});
    const bool usable =
        std::find(node_state.usable.begin(), node_state.usable.end(), c) != node_state.usable.end();
    nlohmann::json entry = {{"core", c},
                            {"os_index", core.os_index},
                            {"cpus", core.pus},
                            {"numa_node", core.numa_node},
                            {"usable", usable},
                            {"nic_irq", node_state.nic_irq_cores.count(c) != 0},
                            {"near_nic", near.count(c) != 0},
                            {"reserved", reserved},
                            {"ranks", on}};
    if (static_cast<std::size_t>(c) < node_state.capability.size())
      entry["capability"] = node_state.capability[static_cast<std::size_t>(c)];
    list.push_back(std::move(entry));
  }
  int floating = 0;
  for (const auto& r : ranks) floating += r.core < 0 ? 1 : 0;
  return reply_ok({{"cores", list}, {"unbound_ranks", floating}});
}

const bool registered = register_request({"cores", cores});

}  // namespace
}  // namespace symmer::daemon
