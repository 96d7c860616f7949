// SPDX-License-Identifier: BSD-3-Clause
// Text views of cores and ranks (see cores_view.hpp).
#include "cores_view.hpp"

#include "daemon_client.hpp"

namespace symmer::ctl {

std::string cores_table(const nlohmann::json& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : r["cores"]) {
    std::string cpus, ranks, reserved;
    for (const auto& p : c["cpus"]) cpus += (cpus.empty() ? "" : ",") + p.dump();
    for (const auto& k : c["ranks"])
      ranks += (ranks.empty() ? "" : " ") + cell(k["job"]).substr(0, 30) + ":" + k["rank"].dump();
    for (const auto& v : c["reserved"])
      reserved +=
          (reserved.empty() ? "" : " ") + cell(v["reason"]) + "(pid " + v["pid"].dump() + ")";
    std::string nic =
        c.value("nic_irq", false) ? "irq" : (c.value("near_nic", false) ? "near" : "-");
    rows.push_back({c["core"].dump(), cpus, c.contains("capability") ? cell(c["capability"]) : "-",
                    nic, c.value("usable", false) ? "yes" : "no", reserved.empty() ? "-" : reserved,
                    ranks.empty() ? "-" : ranks});
  }
  std::string out =
      format_table({"CORE", "CPUS", "CAPABILITY", "NIC", "USABLE", "RESERVED", "RANKS"}, rows);
  if (r.value("unbound_ranks", 0) > 0)
    out += std::to_string(r.value("unbound_ranks", 0)) + " rank(s) not bound to one core\n";
  return out;
}

std::string ranks_table(const nlohmann::json& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& k : r["ranks"]) {
    std::string allowed;
    for (const auto& p : k["cpus_allowed"]) allowed += (allowed.empty() ? "" : ",") + p.dump();
    rows.push_back({cell(k["job"]).substr(0, 40), k["rank"].dump(), k["pid"].dump(),
                    k["core"].dump(), allowed,
                    k.contains("compute_share") ? cell(k["compute_share"]) : "-",
                    k.contains("idle_share") ? cell(k["idle_share"]) : "-",
                    k.contains("calls_per_s") ? cell(k["calls_per_s"]) : "-"});
  }
  if (rows.empty()) return "no ranks\n";
  return format_table({"JOB", "RANK", "PID", "CORE", "CPUS", "COMPUTE", "IDLE", "CALLS/S"}, rows);
}

}  // namespace symmer::ctl
