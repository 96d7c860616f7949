// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// symmerctl's subcommands register themselves here, one file each (<name>_command.cpp,
// picked up by CMakeLists.txt), so parts of the project add commands without editing main.
//
//   namespace {
//   symmer::ctl::CommandRun setup_ranks(CLI::App& cmd) {
//     auto opts = std::make_shared<Options>();
//     cmd.add_flag("--json", opts->json, "print JSON");
//     return [opts] { ...; return 0; };
//   }
//   const bool registered = symmer::ctl::register_command(
//       {"ranks", "show the ranks of the jobs on this node", setup_ranks});
//   }  // namespace

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace symmer::ctl {

/// Runs a subcommand once its options are parsed; returns the process exit status. May throw
/// std::exception: main prints "symmerctl <name>: <what>" and exits 1.
using CommandRun = std::function<int()>;

/// A subcommand: its name, one-line help, and `setup`, which declares its options on the
/// CLI::App made for it and returns the function that runs it with those options.
struct Command {
  std::string name;
  std::string help;
  std::function<CommandRun(CLI::App& command)> setup;
};

/// Adds `command` to symmerctl (call from a namespace-scope initializer). Returns true, so
/// `const bool registered = register_command({...});` keeps the registration.
bool register_command(Command command);

/// Every registered command, sorted by name.
std::vector<Command> registered_commands();

}  // namespace symmer::ctl
