// SPDX-License-Identifier: BSD-3-Clause
// The registry of symmerctl subcommands (see command.hpp).
#include "command.hpp"

#include <algorithm>

namespace symmer::ctl {
namespace {

// Function-local so registration from other files' static initializers is order-safe.
std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}

}  // namespace

bool register_command(Command command) {
  registry().push_back(std::move(command));
  return true;
}

std::vector<Command> registered_commands() {
  std::vector<Command> sorted = registry();
  std::sort(sorted.begin(), sorted.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  return sorted;
}

}  // namespace symmer::ctl
