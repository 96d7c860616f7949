// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl advice on|off`: log moves without making them (of one job with --job, else of
// every job). Root, symmerd's user, or the job's owner.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "daemon_client.hpp"

namespace {

struct Options : symmer::ctl::DaemonOptions {
  std::string state;
  std::string job;
};

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<Options>();
  symmer::ctl::add_daemon_options(cmd, *o);
  cmd.add_option("state", o->state, "on or off")->required()->check(CLI::IsMember({"on", "off"}));
  cmd.add_option("--job", o->job, "only this job (id or segment name, or a unique prefix)");
  return [o] {
    nlohmann::json request = {{"request", "advice"}, {"on", o->state == "on"}};
    if (!o->job.empty()) request["job"] = o->job;
    return symmer::ctl::run_request(*o, request, [o](const nlohmann::json& r) {
      std::cout << "advice-only " << o->state << " for "
                << (r.contains("job") ? r["job"].get<std::string>() : "every job") << "\n";
    });
  };
}

const bool registered = symmer::ctl::register_command(
    {"advice", "advice-only on/off: log moves without making them", setup});

}  // namespace
