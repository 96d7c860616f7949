// SPDX-License-Identifier: BSD-3-Clause
#include "core_list.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace symmer::noise {
namespace {

int number(const std::string& entry, const std::string& text) {
  int v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0)
    throw std::invalid_argument("core list entry '" + entry + "' is not a core or a range a-b");
  return v;
}

}  // namespace

std::vector<int> parse_core_list(const std::string& text, int cores) {
  std::vector<int> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string entry =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    const std::size_t dash = entry.find('-');
    const int lo = number(entry, entry.substr(0, dash));
    const int hi = dash == std::string::npos ? lo : number(entry, entry.substr(dash + 1));
    if (hi < lo) throw std::invalid_argument("core list entry '" + entry + "' is an empty range");
    for (int c = lo; c <= hi; ++c) {
      if (c >= cores)
        throw std::invalid_argument("core " + std::to_string(c) + " does not exist (cores 0-" +
                                    std::to_string(cores - 1) + " are allowed here)");
      if (std::find(out.begin(), out.end(), c) != out.end())
        throw std::invalid_argument("core " + std::to_string(c) + " is listed twice");
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace symmer::noise
