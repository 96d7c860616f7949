// SPDX-License-Identifier: BSD-3-Clause
// The stricter grammar checked before toml++ parses (see toml_text.hpp).
#include "toml_text.hpp"

#include <cstdint>

namespace symmer::daemon {
namespace {

// Length of the UTF-8 sequence at `t[i]`, 0 when it is not a valid one (overlong forms,
// surrogates and code points above U+10FFFF included).
std::size_t utf8_length(std::string_view t, std::size_t i) {
  const auto byte = [&](std::size_t k) -> unsigned {
    return k < t.size() ? static_cast<unsigned char>(t[k]) : 0u;
  };
  const unsigned b0 = byte(i);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if ((b0 & 0xE0) == 0xC0) {
    n = 2;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4;
    cp = b0 & 0x07;
  } else {
    return 0;
  }
  for (std::size_t k = 1; k < n; ++k) {
    const unsigned b = byte(i + k);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// Where a quoted key or string may begin: after these (or at the start of a statement).
bool string_may_start_after(char c) {
  return c == '=' || c == '[' || c == '{' || c == ',' || c == '.' || c == '\n';
}

bool key_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '"' || c == '\'';
}

class Scanner {
 public:
  explicit Scanner(std::string_view t) : t_(t) {}

  std::string run() {
    if (auto e = check_bytes(); !e.empty()) return e;
    bool statement_start = true;  // at the start of a key/value pair or a table header
    bool in_header = false;
    int depth = 0;
    char previous = '\n';  // the last character that was not blank or in a comment
    while (i_ < t_.size()) {
      const char c = t_[i_];
      if (c == '#') {
        while (i_ < t_.size() && t_[i_] != '\n') ++i_;
        continue;
      }
      if (c == '"' || c == '\'') {
        // A quote inside a bare value ('0"...') starts no string for the parser, which would
        // then meet what follows it outside one.
        if (!statement_start && !string_may_start_after(previous))
          return at(i_, "a quote inside a bare key or value");
        if (auto e = string(c); !e.empty()) return e;
        statement_start = false;
        previous = c;
        continue;
      }
      if (static_cast<unsigned char>(c) >= 0x80)
        return at(i_, "a non-ASCII character outside a comment or a one-line string");
      if (c == '\n') {
        if (depth == 0) statement_start = true;
        in_header = false;
        previous = c;
        ++i_;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        ++i_;
        continue;
      }
      if (statement_start && c == '[') {
        std::size_t k = i_ + 1;
        if (k < t_.size() && t_[k] == '[') ++k;
        while (k < t_.size() && (t_[k] == ' ' || t_[k] == '\t')) ++k;
        if (k >= t_.size() || !key_start(t_[k]))
          return at(k, "a table name starts with a letter, a digit, '_', '-' or a quote");
        in_header = true;
        statement_start = false;
        previous = '[';
        i_ = k;
        continue;
      }
      if (c == '[' || c == '{') {
        if (++depth > kMaxTomlNesting)
          return at(
              i_, "arrays and inline tables nested deeper than " + std::to_string(kMaxTomlNesting));
      } else if ((c == ']' || c == '}') && !in_header && depth > 0) {
        --depth;
      }
      statement_start = false;
      previous = c;
      ++i_;
    }
    return "";
  }

 private:
  // Every byte: UTF-8, and no control character but tab, newline and carriage return.
  std::string check_bytes() const {
    for (std::size_t k = 0; k < t_.size();) {
      const unsigned char b = static_cast<unsigned char>(t_[k]);
      if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f)
        return at(k, "control character " + std::to_string(b));
      const std::size_t n = utf8_length(t_, k);
      if (n == 0) return at(k, "bytes that are not UTF-8");
      k += n;
    }
    return "";
  }

  // A string starting at i_ with quote `q`; leaves i_ after it (or at the end of its line when
  // it is not closed: the parser reports that).
  std::string string(char q) {
    const std::size_t start = i_;
    const bool multi = i_ + 2 < t_.size() && t_[i_ + 1] == q && t_[i_ + 2] == q;
    i_ += multi ? 3 : 1;
    while (i_ < t_.size()) {
      const char c = t_[i_];
      if (multi && c == q && i_ + 2 < t_.size() && t_[i_ + 1] == q && t_[i_ + 2] == q) {
        i_ += 3;
        return "";
      }
      if (!multi && c == q) {
        ++i_;
        return "";
      }
      // The parser refuses it too, but toml++ 3.3.0 can reach undefined behaviour first
      // (`i=+{"` then U+0490: a fuzzer's find).
      if (!multi && c == '\n') return at(start, "a string not closed on its line");
      if (multi && static_cast<unsigned char>(c) >= 0x80)
        return at(i_, "a non-ASCII character in a multi-line string");
      i_ += (q == '"' && c == '\\' && i_ + 1 < t_.size()) ? 2 : 1;
    }
    return multi ? "" : at(start, "a string not closed on its line");
  }

  std::string at(std::size_t pos, const std::string& what) const {
    std::size_t line = 1, column = 1;
    for (std::size_t k = 0; k < pos && k < t_.size(); ++k) {
      if (t_[k] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return std::to_string(line) + ":" + std::to_string(column) + ": " + what;
  }

  std::string_view t_;
  std::size_t i_ = 0;
};

}  // namespace

std::string toml_text_problem(std::string_view text) { return Scanner(text).run(); }

}  // namespace symmer::daemon
