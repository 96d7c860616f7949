// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Text views of symmerd's cores and ranks replies (symmerctl cores, ranks --daemon, watch).

#include <nlohmann/json.hpp>
#include <string>

namespace symmer::ctl {

/// One row per core: capability, NIC interrupt/near, reservation, the ranks bound to it.
std::string cores_table(const nlohmann::json& cores_reply);

/// One row per rank: job, rank, pid, core, allowed CPUs, compute/idle shares, calls/s.
std::string ranks_table(const nlohmann::json& ranks_reply);

}  // namespace symmer::ctl
