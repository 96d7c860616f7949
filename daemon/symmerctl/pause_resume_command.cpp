// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl pause` and `symmerctl resume`: stop or restart analysis and moves (of one job with
// --job, else of every job). Root, symmerd's user, or the job's owner. The two differ only in the
// request they send, so one setup serves both.
#include <iostream>
#include <memory>
#include <string>

#include "command.hpp"
#include "daemon_client.hpp"

namespace {

struct Options : symmer::ctl::DaemonOptions {
  std::string job;
};

/// The setup of the subcommand sending `request`; `done` is its past tense for the reply.
auto setup_for(std::string request, std::string done) {
  return [request, done](CLI::App& cmd) -> symmer::ctl::CommandRun {
    auto o = std::make_shared<Options>();
    symmer::ctl::add_daemon_options(cmd, *o);
    cmd.add_option("--job", o->job, "only this job (id or segment name, or a unique prefix)");
    return [o, request, done] {
      nlohmann::json message = {{"request", request}};
      if (!o->job.empty()) message["job"] = o->job;
      return symmer::ctl::run_request(*o, message, [&done](const nlohmann::json& r) {
        std::cout << done << " " << (r.contains("job") ? r["job"].get<std::string>() : "every job")
                  << "\n";
      });
    };
  };
}

const bool registered_pause = symmer::ctl::register_command(
    {"pause", "pause analysis and moves (of one job with --job, else of every job)",
     setup_for("pause", "paused")});
const bool registered_resume = symmer::ctl::register_command(
    {"resume", "resume analysis and moves (of one job with --job, else of every job)",
     setup_for("resume", "resumed")});

}  // namespace
