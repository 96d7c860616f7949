// SPDX-License-Identifier: BSD-3-Clause
// What every program of the project answers to --version: the project's version and the git
// commit it was built from (cmake/version.cmake decides both). Internal to the build (a
// static library, symmer-version); installed headers carry only symmer/version.h and
// tsar/version.h.
#pragma once

#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace symmer {

/// The git commit of the build: 12 hex digits, "-dirty" when the checkout had uncommitted
/// changes, "unknown" when built outside a git checkout (a release tarball). Never null.
const char* build_commit() noexcept;

/// Returns "<program> <version> (commit <commit>)", the line --version prints.
std::string version_line(std::string_view program);

/// Adds --version to `app`: it prints version_line(program) on stdout and exits with 0.
void add_version_flag(CLI::App& app, std::string_view program);

/// For programs that read argv themselves: returns true when argv[1] is --version, after
/// printing version_line(program); the caller then exits with 0.
bool print_version_if_asked(int argc, char** argv, std::string_view program);

}  // namespace symmer
