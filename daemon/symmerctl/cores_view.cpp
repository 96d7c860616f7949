// SPDX-License-Identifier: BSD-3-Clause
// Text views of cores and ranks (see cores_view.hpp).
#include "cores_view.hpp"

#include "daemon_client.hpp"
#include "symmer/topology/cpu_list.hpp"

namespace symmer::ctl {

std::string cores_table(const nlohmann::json& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : r["cores"]) {
    std::string ranks, reserved;
    const std::string cpus = topology::format_cpu_list(c["cpus"].get<std::vector<int>>());
    for (const auto& k : c["ranks"])
      ranks += (ranks.empty() ? "" : " ") + cell(k["job"]).substr(0, 30) + ":" + k["rank"].dump();
    for (const auto& v : c["reserved"])
      reserved +=
          (reserved.empty() ? "" : " ") + cell(v["reason"]) + "(pid " + v["pid"].dump() + ")";
    std::string nic =
        c.value("nic_irq", false) ? "irq" : (c.value("near_nic", false) ? "near" : "-");
    rows.push_back({cpus, "L:" + c["core"].dump(),
                    c.contains("capability") ? cell(c["capability"]) : "-",
                    nic, c.value("usable", false) ? "yes" : "no", reserved.empty() ? "-" : reserved,
                    ranks.empty() ? "-" : ranks});
  }
  std::string out =
      format_table({"CPUS", "CORE", "CAPABILITY", "NIC", "USABLE", "RESERVED", "RANKS"}, rows);
  out += "(CPUS: Linux CPU numbers; CORE: logical core index, L:)\n";
  if (r.value("unbound_ranks", 0) > 0)
    out += std::to_string(r.value("unbound_ranks", 0)) +
           " rank(s) launched unbound with several threads: left where the kernel puts them\n";
  return out;
}

std::string ranks_table(const nlohmann::json& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& k : r["ranks"]) {
    const std::string allowed =
        topology::format_cpu_list(k["cpus_allowed"].get<std::vector<int>>());
    const int core = k.value("core", -1);
    rows.push_back({cell(k["job"]).substr(0, 40), k["rank"].dump(), k["pid"].dump(), allowed,
                    core >= 0 ? "L:" + std::to_string(core) : "-",
                    k.contains("compute_share") ? cell(k["compute_share"]) : "-",
                    k.contains("idle_share") ? cell(k["idle_share"]) : "-",
                    k.contains("calls_per_s") ? cell(k["calls_per_s"]) : "-"});
  }
  if (rows.empty()) return "no ranks\n";
  return format_table({"JOB", "RANK", "PID", "CPUS", "CORE", "COMPUTE", "IDLE", "CALLS/S"}, rows) +
         "(CPUS: the rank's set, Linux CPU numbers; CORE: its first core, L: logical index; "
         "IDLE/COMPUTE: shares of idle + compute)\n";
}

}  // namespace symmer::ctl
