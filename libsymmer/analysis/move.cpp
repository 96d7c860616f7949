// SPDX-License-Identifier: BSD-3-Clause
// Move helpers (see move.hpp).
#include "symmer/analysis/move.hpp"

#include <nlohmann/json.hpp>

#include "symmer/analysis/window_sample.hpp"

namespace symmer::analysis {

std::map<int, int> cores_after(const WindowSample& window, std::span<const Move> moves) {
  std::map<int, int> cores;
  for (const auto& r : window.ranks)
    if (r.core >= 0) cores[r.local_rank] = r.core;
  for (const auto& m : moves) cores[m.local_rank] = m.to_core;
  return cores;
}

std::string to_string(std::span<const Move> moves) {
  std::string out;
  for (const auto& m : moves) {
    if (!out.empty()) out += ", ";
    out += "r" + std::to_string(m.local_rank) + ":c" + std::to_string(m.from_core) + "->c" +
           std::to_string(m.to_core);
    if (m.migrate_pages) out += "+pages";
  }
  return out.empty() ? "(none)" : out;
}

nlohmann::json to_json(std::span<const Move> moves) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : moves) {
    nlohmann::json j = {{"rank", m.local_rank}, {"from", m.from_core}, {"to", m.to_core}};
    if (m.migrate_pages) j["migrate_pages"] = true;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace symmer::analysis
