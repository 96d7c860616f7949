// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl cores`: every core with its capability, NIC interrupts, reservations and ranks.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "cores_view.hpp"
#include "daemon_client.hpp"

namespace {

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<symmer::ctl::DaemonOptions>();
  symmer::ctl::add_daemon_options(cmd, *o);
  return [o] {
    return symmer::ctl::run_request(*o, {{"request", "cores"}}, [](const nlohmann::json& r) {
      std::cout << symmer::ctl::cores_table(r);
    });
  };
}

const bool registered = symmer::ctl::register_command(
    {"cores", "show each core: capability, NIC interrupts, reservations, ranks", setup});

}  // namespace
