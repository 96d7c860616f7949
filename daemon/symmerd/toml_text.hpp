// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What symmerd lets reach toml++. The toml++ 3.3.0 that Debian 12 ships reaches undefined
// behaviour (an "unreachable" point, which a release build may turn into anything) on some
// inputs: a non-ASCII character where it expects whitespace (`x` then U+0390), a table header
// whose key starts with neither a key character nor a quote (`[\nx]`, `[[[`), and arrays
// nested deeply enough to overflow the stack (upstream fixes: tomlplusplus #293, #301, #305).
// The configuration is checked against a stricter grammar first, so none of those get through.

#include <string>
#include <string_view>

namespace symmer::daemon {

/// Deepest nesting of arrays and inline tables accepted.
inline constexpr int kMaxTomlNesting = 8;

/// What is wrong with `text` as symmerd's TOML, as "<line>:<column>: <what>" ("" when it may
/// be handed to toml++): bytes that are not UTF-8, control characters, non-ASCII outside
/// comments and one-line strings, a one-line string not closed on its line, a table header whose key does not start with a key
/// character or a quote, or nesting deeper than kMaxTomlNesting. Syntax errors the parser
/// reports itself pass.
std::string toml_text_problem(std::string_view text);

}  // namespace symmer::daemon
