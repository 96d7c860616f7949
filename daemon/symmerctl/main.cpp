// SPDX-License-Identifier: BSD-3-Clause
// symmerctl: command-line view of the node and, with symmerd, its control client. Each
// subcommand lives in its own <name>_command.cpp and registers itself (command.hpp).
#include <exception>
#include <iostream>
#include <utility>
#include <vector>

#include "command.hpp"
#include "symmer_version.hpp"

int main(int argc, char** argv) try {
  CLI::App app{"symmerctl: inspect and control symmer on this node"};
  app.require_subcommand(1);

  std::vector<std::pair<CLI::App*, symmer::ctl::CommandRun>> runs;
  for (const symmer::ctl::Command& command : symmer::ctl::registered_commands()) {
    CLI::App* sub = app.add_subcommand(command.name, command.help);
    runs.emplace_back(sub, command.setup(*sub));
  }

  symmer::add_version_flag(app, "symmerctl");
  CLI11_PARSE(app, argc, argv);

  for (auto& [sub, run] : runs) {
    if (!sub->parsed()) continue;
    try {
      return run();
    } catch (const std::exception& e) {
      std::cerr << "symmerctl " << sub->get_name() << ": " << e.what() << "\n";
      return 1;
    }
  }
  return 1;  // unreachable: require_subcommand(1)
} catch (const std::exception& e) {
  std::cerr << "symmerctl: " << e.what() << "\n";
  return 1;
}
