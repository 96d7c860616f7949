// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl reload`: symmerd re-reads its configuration (as on SIGHUP).
#include <iostream>
#include <memory>

#include "command.hpp"
#include "daemon_client.hpp"

namespace {

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<symmer::ctl::DaemonOptions>();
  symmer::ctl::add_daemon_options(cmd, *o);
  return [o] {
    return symmer::ctl::run_request(*o, {{"request", "reload"}}, [](const nlohmann::json& r) {
      std::cout << "symmerd re-read " << r["config"].get<std::string>()
                << " (errors, if any, are in its log; it then keeps the running configuration)\n";
    });
  };
}

const bool registered =
    symmer::ctl::register_command({"reload", "make symmerd re-read its configuration", setup});

}  // namespace
