// SPDX-License-Identifier: BSD-3-Clause
// `reserve`: cores a process (a GPU driver thread's, say) keeps free of ranks while it lives;
// for every job when root or the daemon's user asks, else for that user's jobs.
#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

#include "request.hpp"
#include "symmer/segment/process_identity.hpp"

namespace symmer::daemon {
namespace {

nlohmann::json reserve(Daemon& daemon, const nlohmann::json& request, const PeerCredentials& peer) {
  DaemonState& s = daemon.state();
  const pid_t pid = request.value("pid", static_cast<int>(peer.pid));
  const auto ticks = segment::read_start_ticks(pid);
  if (!ticks) return reply_failure("reserve: " + ticks.error().message);
  std::uint64_t real = 0, effective = 0;
  {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("Uid:", 0) == 0) std::istringstream(line.substr(4)) >> real >> effective;
  }
  if (!may_change_daemon(peer, s.uid) && real != peer.uid)
    return reply_denied(peer, "reserve cores for pid " + std::to_string(pid) + " (uid " +
                                  std::to_string(real) + ")");
  if (!request.contains("cpus") || !request["cpus"].is_array() || request["cpus"].empty())
    return reply_failure("reserve: expected \"cpus\": [Linux CPU numbers]");
  std::set<int> cores;
  for (const auto& c : request["cpus"]) {
    if (!c.is_number_integer()) return reply_failure("reserve: cpus must be integers");
    const int core = s.node.core_of_pu(c.get<int>());
    if (core < 0) return reply_failure("reserve: CPU " + c.dump() + " is not on this node");
    cores.insert(core);
  }
  Reservation r;
  r.reservation.cores.assign(cores.begin(), cores.end());
  r.reservation.pid = pid;
  r.reservation.uid = static_cast<uid_t>(real);
  r.reservation.all_jobs = may_change_daemon(peer, s.uid);
  r.reservation.reason = request.value("reason", std::string("gpu-driver"));
  r.start_ticks = *ticks;
  s.reservations[pid] = r;
  spdlog::info("symmerd: pid {} reserved cores {} ({}) for {}", pid,
               nlohmann::json(r.reservation.cores).dump(), r.reservation.reason,
               r.reservation.all_jobs ? "every job" : "the jobs of uid " + std::to_string(real));
  return reply_ok({{"pid", pid},
                   {"cpus", s.node.cpus_of_cores(r.reservation.cores)},
                   {"cores", r.reservation.cores},
                   {"all_jobs", r.reservation.all_jobs},
                   {"reason", r.reservation.reason}});
}

const bool registered = register_request({"reserve", reserve});

}  // namespace
}  // namespace symmer::daemon
