// SPDX-License-Identifier: BSD-3-Clause
// parse_proc_stat (see proc_stat.hpp).
#include "symmer/topology/proc_stat.hpp"

#include "proc_text.hpp"

namespace symmer::topology {

std::uint64_t CpuTimes::total() const {
  return user + nice + system + idle + iowait + irq + softirq + steal;
}

Expected<StatSnapshot> parse_proc_stat(std::string_view text, std::string_view source) {
  using detail::line_error;
  StatSnapshot snap;
  bool have_all = false;
  const auto lines = detail::split_lines(text);
  for (size_t li = 0; li < lines.size(); ++li) {
    const auto words = detail::split_words(lines[li]);
    if (words.empty() || words[0].substr(0, 3) != "cpu") continue;  // intr, ctxt, btime...
    std::uint64_t v[10] = {};
    const size_t n = words.size() - 1;
    if (n < 4) return line_error(source, li, "fewer than 4 time columns (truncated?)");
    for (size_t i = 0; i < n && i < 10; ++i) {
      auto value = detail::parse_u64(words[i + 1]);
      if (!value)
        return line_error(source, li, "column " + std::to_string(i + 1) + " is not a number");
      v[i] = *value;
    }
    const CpuTimes t{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]};
    if (words[0] == "cpu") {
      if (have_all) return line_error(source, li, "a second aggregate 'cpu' line");
      snap.all = t;
      have_all = true;
      continue;
    }
    auto cpu = detail::parse_u64(words[0].substr(3));
    if (!cpu || *cpu > 1u << 20)
      return line_error(source, li, "bad CPU name '" + std::string(words[0].substr(0, 32)) + "'");
    if (!snap.cpus.emplace(static_cast<int>(*cpu), t).second)
      return line_error(source, li, "CPU " + std::to_string(*cpu) + " appears twice");
  }
  if (!have_all) return Error(Errc::kParse, std::string(source) + ": no aggregate 'cpu' line");
  if (snap.cpus.empty()) return Error(Errc::kParse, std::string(source) + ": no 'cpuN' lines");
  return snap;
}

}  // namespace symmer::topology
