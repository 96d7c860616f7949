// SPDX-License-Identifier: BSD-3-Clause
// The stricter grammar checked before toml++ parses (why: symmer/analysis/config.hpp).
#include "symmer/analysis/config.hpp"

namespace symmer::analysis {
namespace {

// Deepest nesting of arrays and inline tables accepted.
constexpr int kMaxNesting = 8;

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
        if (++depth > kMaxNesting)
          return at(
              i_, "arrays and inline tables nested deeper than " + std::to_string(kMaxNesting));
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
  // Every byte: no control character but tab, newline and carriage return, and ASCII except
  // in a comment on a line of its own. toml++'s undefined behaviour needs a non-ASCII
  // character that its parser reads outside a string, and where a string ends depends on
  // its grammar; with multi-line strings refused, a line whose first character that is not
  // blank is '#' is a comment for both, whatever came before it.
  std::string check_bytes() const {
    bool line_comment = false, line_start = true;
    for (std::size_t k = 0; k < t_.size(); ++k) {
      const unsigned char b = static_cast<unsigned char>(t_[k]);
      if (b == '\n') {
        line_comment = false;
        line_start = true;
        continue;
      }
      if (line_start && b == '#') line_comment = true;
      if (b != ' ' && b != '\t') line_start = false;
      if ((b < 0x20 && b != '\t' && b != '\r') || b == 0x7f)
        return at(k, "control character " + std::to_string(b));
      if (b >= 0x80 && !line_comment)
        return at(k, "a non-ASCII byte outside a comment on a line of its own");
    }
    return "";
  }

  // A one-line string starting at i_ with quote `q`; leaves i_ after it.
  std::string string(char q) {
    const std::size_t start = i_;
    if (i_ + 2 < t_.size() && t_[i_ + 1] == q && t_[i_ + 2] == q)
      return at(start, "a multi-line string (symmer takes one-line strings only)");
    for (++i_; i_ < t_.size(); ++i_) {
      const char c = t_[i_];
      if (c == q) {
        ++i_;
        return "";
      }
      if (c == '\n') break;
      if (q == '"' && c == '\\' && i_ + 1 < t_.size() && t_[i_ + 1] != '\n') ++i_;
    }
    // The parser refuses it too, but toml++ 3.3.0 can reach undefined behaviour first.
    return at(start, "a string not closed on its line");
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

}  // namespace symmer::analysis
