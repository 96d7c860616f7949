// SPDX-License-Identifier: BSD-3-Clause
// parse_proc_softirqs (see proc_softirqs.hpp).
#include "symmer/topology/proc_softirqs.hpp"

#include <algorithm>

#include "proc_text.hpp"

namespace symmer::topology {

std::uint64_t SoftirqsSnapshot::count(const std::string& kind, int cpu) const {
  auto it = counts.find(kind);
  auto col = std::find(cpus.begin(), cpus.end(), cpu);
  if (it == counts.end() || col == cpus.end()) return 0;
  return it->second[static_cast<size_t>(col - cpus.begin())];
}

Expected<SoftirqsSnapshot> parse_proc_softirqs(std::string_view text, std::string_view source) {
  using detail::line_error;
  const auto lines = detail::split_lines(text);
  if (lines.empty()) return Error(Errc::kParse, std::string(source) + ": empty");
  SoftirqsSnapshot snap;
  auto cpus = detail::parse_cpu_header(source, lines[0]);
  if (!cpus) return std::move(cpus).error();
  snap.cpus = std::move(*cpus);

  for (size_t li = 1; li < lines.size(); ++li) {
    const auto words = detail::split_words(lines[li]);
    if (words.empty()) continue;
    const std::string_view name = words[0];
    if (name.size() < 2 || name.back() != ':')
      return line_error(source, li, "expected '<KIND>:' (truncated?)");
    if (words.size() - 1 != snap.cpus.size())
      return line_error(source, li,
                        std::to_string(words.size() - 1) + " counts for " +
                            std::to_string(snap.cpus.size()) + " CPUs (truncated?)");
    std::vector<std::uint64_t> counts;
    for (size_t i = 1; i < words.size(); ++i) {
      auto v = detail::parse_u64(words[i]);
      if (!v) return line_error(source, li, "count " + std::to_string(i) + " is not a number");
      counts.push_back(*v);
    }
    std::string kind(name.substr(0, name.size() - 1));
    if (!snap.counts.emplace(kind, std::move(counts)).second)
      return line_error(source, li, kind + " appears twice");
  }
  if (snap.counts.empty())
    return Error(Errc::kParse, std::string(source) + ": no soft interrupt lines");
  return snap;
}

}  // namespace symmer::topology
