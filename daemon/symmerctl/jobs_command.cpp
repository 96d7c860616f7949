// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl jobs`: the jobs symmerd has adopted, with their state and what it did to them.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "daemon_client.hpp"
#include "local_view.hpp"

namespace {

using symmer::ctl::cell;

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<symmer::ctl::DaemonOptions>();
  symmer::ctl::add_daemon_options(cmd, *o);
  symmer::ctl::add_segment_dir_option(cmd, *o);
  return [o] {
    const auto local = [o] { return symmer::ctl::local_jobs(o->dir); };
    return symmer::ctl::run_request_or_local(*o, {{"request", "jobs"}}, local, [](const nlohmann::json& r) {
      if (r["jobs"].empty()) {
        std::cout << (r.value("mode", "") == "embedded" ? "no symmer jobs on this node\n"
                                                         : "symmerd manages no jobs\n");
        return;
      }
      std::vector<std::vector<std::string>> rows;
      for (const auto& j : r["jobs"]) {
        std::string mode = cell(j["state"]);
        if (j.value("paused", false)) mode += ",paused";
        if (j.value("advice_only", false)) mode += ",advice";
        rows.push_back({cell(j["job_id"]), cell(j["node_id"]), cell(j["owner_uid"]), cell(j["app"]),
                        cell(j["local_ranks"]), mode, cell(j["moves"]), cell(j["advised"]),
                        cell(j["cache_counters"])});
      }
      std::cout << symmer::ctl::format_table(
          {"JOB", "NODE", "UID", "APP", "RANKS", "STATE", "MOVES", "ADVISED", "CACHE COUNTERS"},
          rows);
    });
  };
}

const bool registered =
    symmer::ctl::register_command({"jobs", "list the jobs on this node (symmerd's, or the segments')", setup});

}  // namespace
