// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl register <segment>`: asks symmerd to adopt a job now (it also finds jobs by
// itself, within a period).
#include <iostream>
#include <memory>

#include "command.hpp"
#include "daemon_client.hpp"

namespace {

struct Options : symmer::ctl::DaemonOptions {
  std::string segment;
};

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<Options>();
  symmer::ctl::add_daemon_options(cmd, *o);
  cmd.add_option("segment", o->segment, "the job's segment (file name or path)")->required();
  return [o] {
    return symmer::ctl::run_request(
        *o, {{"request", "register"}, {"segment", o->segment}}, [](const nlohmann::json& r) {
          std::cout << "symmerd manages job " << r["job"]["job_id"].get<std::string>() << " ("
                    << r["job"]["state"].get<std::string>() << ")\n";
        });
  };
}

const bool registered =
    symmer::ctl::register_command({"register", "ask symmerd to adopt a job's segment now", setup});

}  // namespace
