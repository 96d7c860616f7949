// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl release --pid P`: ends a reservation made with `symmerctl reserve`.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "command.hpp"
#include "daemon_client.hpp"

namespace {

struct Options : symmer::ctl::DaemonOptions {
  int pid = 0;
};

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<Options>();
  symmer::ctl::add_daemon_options(cmd, *o);
  cmd.add_option("--pid", o->pid, "the process that reserved cores (default: symmerctl's parent)");
  return [o] {
    const int pid = o->pid > 0 ? o->pid : static_cast<int>(::getppid());
    return symmer::ctl::run_request(*o, {{"request", "release"}, {"pid", pid}},
                                    [](const nlohmann::json& r) {
                                      std::cout << "released the cores of pid " << r["pid"] << "\n";
                                    });
  };
}

const bool registered =
    symmer::ctl::register_command({"release", "end a core reservation made with reserve", setup});

}  // namespace
