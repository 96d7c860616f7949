// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl status`: what symmerd is doing: its mode, period, jobs, pause and advice state.
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
    const auto local = [o] { return symmer::ctl::local_status(o->dir); };
    return symmer::ctl::run_request_or_local(*o, {{"request", "status"}}, local, [](const nlohmann::json& r) {
      if (r.value("mode", "") == "embedded") {
        std::cout << "no symmerd: each job's analyzer runs inside the job (embedded mode)\n"
                  << "segments in " << cell(r["segment_dir"]) << ", jobs: " << r["jobs"] << "\n";
        for (const auto& j : r["job_list"])
          std::cout << "  " << cell(j["job"]) << "  " << cell(j["app"]) << ", "
                    << j["local_ranks"] << " rank(s), analysed by " << cell(j["analysed_by"])
                    << "\n";
        for (const auto& p : r["problems"])
          std::cout << "unreadable: " << cell(p["segment"]) << ": " << cell(p["error"]) << "\n";
        return;
      }
      std::cout << "symmerd pid " << r["pid"] << " (" << cell(r["mode"]) << "), up "
                << cell(r["uptime_s"]) << " s, config " << cell(r["config"]) << "\n"
                << "segments in " << cell(r["segment_dir"]) << ", period " << r["period_ms"]
                << " ms, coscheduling " << (r.value("coschedule", false) ? "on" : "off") << "\n"
                << "jobs: " << r["jobs"] << " (" << r["managed"] << " managed)"
                << (r.value("paused", false) ? ", PAUSED" : "")
                << (r.value("advice_only", false) ? ", advice only" : "") << "\n";
      for (const auto& p : r["problems"])
        std::cout << "not adopted: " << cell(p["segment"]) << ": " << cell(p["error"]) << "\n";
      for (const auto& n : r["notes"]) std::cout << "note: " << cell(n) << "\n";
    });
  };
}

const bool registered = symmer::ctl::register_command(
    {"status", "show what symmerd is doing, or without it the jobs and who analyses each",
     setup});

}  // namespace
