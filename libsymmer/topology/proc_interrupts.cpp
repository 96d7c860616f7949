// SPDX-License-Identifier: BSD-3-Clause
// parse_proc_interrupts (see proc_interrupts.hpp). Line format: kernel/irq/proc.c
// show_interrupts(): counts, chip name, hwirq, optional Level/Edge, "-<flow>", handlers.
#include "symmer/topology/proc_interrupts.hpp"

#include <cctype>

#include "proc_text.hpp"

namespace symmer::topology {
namespace {

bool is_number(std::string_view w) { return detail::parse_u64(w).has_value(); }

// "5-edge", "1572864-edge": a hwirq number glued to the flow handler's name.
bool is_hwirq_with_flow(std::string_view w) {
  const size_t dash = w.find('-');
  return dash != std::string_view::npos && dash > 0 && is_number(w.substr(0, dash)) &&
         dash + 1 < w.size() && std::isalpha(static_cast<unsigned char>(w[dash + 1]));
}

// Handler names of a device line: the words after chip, hwirq, Level/Edge and "-flow".
std::vector<std::string> actions_of(const std::vector<std::string_view>& words, size_t first) {
  size_t i = first;
  if (i < words.size()) ++i;  // chip name
  if (i < words.size() && (is_number(words[i]) || is_hwirq_with_flow(words[i]))) ++i;
  if (i < words.size() && (words[i] == "Level" || words[i] == "Edge")) ++i;
  if (i < words.size() && words[i].size() > 1 && words[i][0] == '-') ++i;
  std::string joined;
  for (; i < words.size(); ++i) {
    if (!joined.empty()) joined += ' ';
    joined += words[i];
  }
  std::vector<std::string> actions;
  size_t start = 0;
  while (start < joined.size()) {  // shared lines: "ehci_hcd:usb1, uhci_hcd:usb2"
    size_t comma = joined.find(',', start);
    if (comma == std::string::npos) comma = joined.size();
    std::string name = joined.substr(start, comma - start);
    while (!name.empty() && name.front() == ' ') name.erase(name.begin());
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (!name.empty()) actions.push_back(std::move(name));
    start = comma + 1;
  }
  return actions;
}

}  // namespace

Expected<InterruptsSnapshot> parse_proc_interrupts(std::string_view text, std::string_view source) {
  using detail::line_error;
  const auto lines = detail::split_lines(text);
  if (lines.empty()) return Error(Errc::kParse, std::string(source) + ": empty");
  InterruptsSnapshot snap;
  auto cpus = detail::parse_cpu_header(source, lines[0]);
  if (!cpus) return std::move(cpus).error();
  snap.cpus = std::move(*cpus);
  const size_t ncpu = snap.cpus.size();

  for (size_t li = 1; li < lines.size(); ++li) {
    const std::string_view line = lines[li];
    if (detail::split_words(line).empty()) continue;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return line_error(source, li, "no ':' (truncated?)");
    const auto id_words = detail::split_words(line.substr(0, colon));
    if (id_words.size() != 1) return line_error(source, li, "bad interrupt id");
    IrqLine irq;
    irq.id = std::string(id_words[0]);
    irq.is_device = is_number(id_words[0]);

    const auto words = detail::split_words(line.substr(colon + 1));
    size_t k = 0;
    for (; k < words.size() && k < ncpu; ++k) {
      auto v = detail::parse_u64(words[k]);
      if (!v) break;
      irq.counts.push_back(*v);
      irq.total += *v;
    }
    if (k < ncpu) {
      // Only ERR and MIS style lines carry a single machine-wide count.
      if (irq.is_device || k != 1 || words.size() != 1)
        return line_error(source, li,
                          "interrupt " + irq.id + " has " + std::to_string(k) + " counts for " +
                              std::to_string(ncpu) + " CPUs (truncated?)");
      irq.counts.clear();
    }
    for (size_t i = k; i < words.size(); ++i) {
      if (!irq.description.empty()) irq.description += ' ';
      irq.description += words[i];
    }
    if (irq.is_device) irq.actions = actions_of(words, k);
    snap.lines.push_back(std::move(irq));
  }
  return snap;
}

}  // namespace symmer::topology
