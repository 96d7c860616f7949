// SPDX-License-Identifier: BSD-3-Clause
#include "symmer_version.hpp"

#include <symmer/version.h>

#include <CLI/CLI.hpp>
#include <cstring>
#include <iostream>

namespace symmer {

std::string version_line(std::string_view program) {
  return std::string(program) + " " + SYMMER_VERSION + " (commit " + build_commit() + ")";
}

void add_version_flag(CLI::App& app, std::string_view program) {
  app.set_version_flag("--version", version_line(program), "print the version and exit");
}

bool print_version_if_asked(int argc, char** argv, std::string_view program) {
  if (argc < 2 || std::strcmp(argv[1], "--version") != 0) return false;
  std::cout << version_line(program) << "\n";
  return true;
}

}  // namespace symmer
