// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Tokenizing helpers shared by the /proc parsers (internal to symmer-topology). None throws
// on bad input; they report it through std::optional / Expected.

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symmer/expected.hpp"

namespace symmer::topology::detail {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/// Lines of `text` without their '\n'; a last line without '\n' is kept.
inline std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

/// Whitespace-separated words of `line`.
inline std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !is_space(line[j])) ++j;
    if (j > i) words.push_back(line.substr(i, j - i));
    i = j;
  }
  return words;
}

/// A whole word of decimal digits as an unsigned 64-bit number; nullopt otherwise.
inline std::optional<std::uint64_t> parse_u64(std::string_view word) {
  std::uint64_t v = 0;
  const char* end = word.data() + word.size();
  auto [ptr, ec] = std::from_chars(word.data(), end, v);
  if (ec != std::errc() || ptr != end || word.empty()) return std::nullopt;
  return v;
}

/// "<file> line <n>: <what>" as a parse Error.
inline Error line_error(std::string_view file, size_t line_index, const std::string& what) {
  return Error(Errc::kParse,
               std::string(file) + " line " + std::to_string(line_index + 1) + ": " + what);
}

/// The CPU numbers of a "CPU0 CPU1 ..." column header (/proc/interrupts, /proc/softirqs).
inline Expected<std::vector<int>> parse_cpu_header(std::string_view file, std::string_view line) {
  std::vector<int> cpus;
  for (std::string_view w : split_words(line)) {
    auto n = w.size() > 3 && w.substr(0, 3) == "CPU" ? parse_u64(w.substr(3)) : std::nullopt;
    if (!n || *n > 1u << 20)
      return line_error(
          file, 0,
          "expected a header of CPU<n> columns, found '" + std::string(w.substr(0, 32)) + "'");
    if (!cpus.empty() && static_cast<int>(*n) <= cpus.back())
      return line_error(file, 0, "CPU columns are not in increasing order");
    cpus.push_back(static_cast<int>(*n));
  }
  if (cpus.empty()) return line_error(file, 0, "no CPU columns in the header");
  return cpus;
}

}  // namespace symmer::topology::detail
