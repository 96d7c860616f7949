// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: symmerd.toml (and the same text as a policy change, when it is a JSON object).
// Every input must end in a configuration or in errors naming what is wrong: never crash or
// reach undefined behaviour, here or in toml++ (built from its headers in this build, under
// the same sanitizers).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "daemon_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace symmer;
  static const auto node = topology::NodeModel::from_synthetic("pack:1 l3:2 core:2 pu:2");
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)daemon::parse_daemon_config(text, "fuzz.toml", node);
  const auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_object()) (void)daemon::apply_policy(analysis::AnalyzerConfig{}, json);
  return 0;
}
