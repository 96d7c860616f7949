// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl cores`: every core with its capability, NIC interrupts, reservations and ranks.
#include <chrono>
#include <iostream>
#include <memory>

#include "command.hpp"
#include "cores_view.hpp"
#include "daemon_client.hpp"
#include "local_view.hpp"

namespace {

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<symmer::ctl::DaemonOptions>();
  symmer::ctl::add_daemon_options(cmd, *o);
  symmer::ctl::add_segment_dir_option(cmd, *o);
  return [o] {
    const auto local = [o] {
      return symmer::ctl::local_cores(o->dir, std::chrono::milliseconds(200));
    };
    return symmer::ctl::run_request_or_local(
        *o, {{"request", "cores"}}, local,
        [](const nlohmann::json& r) { std::cout << symmer::ctl::cores_table(r); });
  };
}

const bool registered = symmer::ctl::register_command(
    {"cores", "show each core: capability, NIC interrupts, reservations, ranks", setup});

}  // namespace
