// SPDX-License-Identifier: BSD-3-Clause
// Move helpers (see move.hpp).
#include "symmer/analysis/move.hpp"

#include <nlohmann/json.hpp>

#include "symmer/analysis/window_sample.hpp"
#include "symmer/topology/cpu_list.hpp"
#include "symmer/topology/node_model.hpp"

namespace symmer::analysis {
namespace {

std::string set_text(const std::vector<int>& cores, const topology::NodeModel* node) {
  return node ? topology::format_cpu_list(node->cpus_of_cores(cores))
              : "L:" + topology::format_cpu_list(cores);
}

}  // namespace

std::vector<int> target_cores(const Move& m) {
  if (!m.to_cores.empty()) return m.to_cores;
  return m.to_core >= 0 ? std::vector<int>{m.to_core} : std::vector<int>{};
}

std::vector<int> origin_cores(const Move& m) {
  if (!m.from_cores.empty()) return m.from_cores;
  return m.from_core >= 0 ? std::vector<int>{m.from_core} : std::vector<int>{};
}

std::map<int, int> cores_after(const WindowSample& window, std::span<const Move> moves) {
  std::map<int, int> cores;
  for (const auto& r : window.ranks)
    if (r.core >= 0) cores[r.local_rank] = r.core;
  for (const auto& m : moves) cores[m.local_rank] = m.to_core;
  return cores;
}

std::string to_string(std::span<const Move> moves, const topology::NodeModel* node) {
  std::string out;
  for (const auto& m : moves) {
    if (!out.empty()) out += ", ";
    out += "r" + std::to_string(m.local_rank) + ": " + (node ? "CPUs " : "") +
           set_text(origin_cores(m), node) + " -> " + set_text(target_cores(m), node);
    if (m.migrate_pages) out += " +pages";
  }
  return out.empty() ? "(none)" : out;
}

nlohmann::json to_json(std::span<const Move> moves, const topology::NodeModel* node) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : moves) {
    nlohmann::json j = {{"rank", m.local_rank}, {"from_core", m.from_core}, {"to_core", m.to_core}};
    if (node) {
      j["from_cpus"] = topology::format_cpu_list(node->cpus_of_cores(origin_cores(m)));
      j["to_cpus"] = topology::format_cpu_list(node->cpus_of_cores(target_cores(m)));
    }
    if (m.migrate_pages) j["migrate_pages"] = true;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace symmer::analysis
