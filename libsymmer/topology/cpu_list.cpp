// SPDX-License-Identifier: BSD-3-Clause
// Linux CPU lists (see cpu_list.hpp).
#include "symmer/topology/cpu_list.hpp"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "symmer/topology/node_model.hpp"

namespace symmer::topology {
namespace {

// A whole item of decimal digits no larger than kMaxCpuNumber.
bool parse_number(std::string_view s, int& out) {
  if (s.empty() || s.front() < '0' || s.front() > '9') return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && out <= kMaxCpuNumber;
}

std::vector<int> cpus_of(const cpu_set_t& set) {
  std::vector<int> out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

}  // namespace

Expected<std::vector<int>> parse_cpu_list(std::string_view text) {
  const auto bad = [&](std::string_view item, const char* why) {
    return Error(Errc::kParse, "CPU list '" + std::string(text.substr(0, 64)) + "': '" +
                                   std::string(item.substr(0, 32)) + "' " + why);
  };
  if (text.empty()) return Error(Errc::kParse, "empty CPU list");
  if (text.substr(0, 2) == "L:")
    return Error(Errc::kParse, "CPU list '" + std::string(text.substr(0, 64)) +
                                   "': logical indices (L:) are not taken here; give Linux CPU "
                                   "numbers, as taskset -c takes them");
  std::vector<int> cpus;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const auto dash = item.find('-');
    int lo = 0, hi = 0;
    if (!parse_number(item.substr(0, dash), lo) ||
        !parse_number(dash == std::string_view::npos ? item : item.substr(dash + 1), hi))
      return bad(item, item.empty() ? "is empty" : "is not a CPU number or range N-M (0..8191)");
    if (hi < lo) return bad(item, "is a range that runs backwards");
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

Expected<std::vector<int>> parse_core_selection(std::string_view text, const NodeModel& node) {
  const bool logical = text.substr(0, 2) == "L:";
  auto list = parse_cpu_list(logical ? text.substr(2) : text);
  if (!list) return list.error();
  const int ncores = static_cast<int>(node.cores().size());
  std::set<int> cores;
  for (int n : *list) {
    const int core = logical ? n : node.core_of_pu(n);
    if (core < 0 || core >= ncores)
      return Error(Errc::kInvalidArgument,
                   logical ? "logical core L:" + std::to_string(n) + " does not exist (L:0-" +
                                 std::to_string(ncores - 1) + " here)"
                           : "CPU " + std::to_string(n) +
                                 " is not one this process may use (Linux CPU numbers; logical "
                                 "cores take the prefix L:)");
    cores.insert(core);
  }
  return std::vector<int>(cores.begin(), cores.end());
}

std::string format_cpu_list(std::span<const int> cpus) {
  std::vector<int> sorted(cpus.begin(), cpus.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(sorted[i]);
    if (j > i) out += '-' + std::to_string(sorted[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> map_relative(std::span<const int> cpus, std::span<const int> from,
                              std::span<const int> to) {
  std::vector<int> out;
  if (from.size() == to.size()) {
    std::size_t inside = 0;
    for (int c : cpus) {
      const auto it = std::lower_bound(from.begin(), from.end(), c);
      if (it == from.end() || *it != c) continue;
      ++inside;
      out.push_back(to[static_cast<std::size_t>(it - from.begin())]);
    }
    if (inside == from.size()) out.clear();  // bound to the whole set: the whole new set
  }
  if (out.empty()) return {to.begin(), to.end()};
  std::sort(out.begin(), out.end());
  return out;
}

cpu_set_t cpu_set_of(std::span<const int> cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  return set;
}

std::vector<int> this_thread_cpus() { return thread_cpus(0); }

std::vector<int> thread_cpus(int tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(tid, sizeof set, &set) != 0) return {};
  return cpus_of(set);
}

}  // namespace symmer::topology
