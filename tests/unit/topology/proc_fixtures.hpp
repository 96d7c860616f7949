// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Paths and readers for the /proc captures under tests/fixtures/proc.
#include <fstream>
#include <iterator>
#include <string>

#include "symmer/topology/proc_reader.hpp"

namespace symmer::topology::testing {

inline std::string proc_fixture(const std::string& name) {
  return std::string(SYMMER_SOURCE_DIR) + "/tests/fixtures/proc/" + name;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The snapshot of a capture directory; fails the test when it does not parse.
inline ProcSnapshot snapshot(const std::string& dir) {
  auto s = ProcReader(proc_fixture(dir)).read();
  if (!s) throw std::runtime_error(s.error().to_string());
  return std::move(s).value();
}

}  // namespace symmer::topology::testing
