// SPDX-License-Identifier: BSD-3-Clause
// SYMMER_* environment parsing.
#include "config.hpp"

#include <sys/stat.h>

#include <cctype>
#include <charconv>
#include <cstdlib>

namespace symmer::shim {
namespace {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

Error bad(const char* name, const std::string& value, const std::string& accepted) {
  return Error(Errc::kInvalidArgument,
               std::string(name) + "='" + value + "' is not valid (expected " + accepted + ")");
}

std::optional<std::uint64_t> parse_uint(const std::string& text, int base = 10) {
  if (text.empty()) return std::nullopt;
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v, base);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

// "on"/"off" and the usual synonyms.
std::optional<bool> parse_switch(const std::string& text) {
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "on" || t == "1" || t == "yes" || t == "true") return true;
  if (t == "off" || t == "0" || t == "no" || t == "false") return false;
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> parse_bytes(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t scale = 1;
  std::string digits = text;
  switch (std::tolower(static_cast<unsigned char>(text.back()))) {
    case 'k':
      scale = 1ull << 10;
      break;
    case 'm':
      scale = 1ull << 20;
      break;
    case 'g':
      scale = 1ull << 30;
      break;
    default:
      break;
  }
  if (scale != 1) digits.pop_back();
  const auto v = parse_uint(digits);
  if (!v || *v > (1ull << 40) / scale) return std::nullopt;
  return *v * scale;
}

Expected<Config> read_config() {
  Config c;
  if (auto v = env("SYMMER_MONITOR")) {
    const auto on = parse_switch(*v);
    if (!on) return bad("SYMMER_MONITOR", *v, "on or off");
    c.monitor = *on;
  }
  if (auto v = env("SYMMER_ANALYZER")) {
    if (*v == "embedded")
      c.embedded_analyzer = true;
    else if (*v == "off")
      c.embedded_analyzer = false;
    else
      return bad("SYMMER_ANALYZER", *v, "embedded or off");
  }
  if (auto v = env("SYMMER_NODE_ID")) {
    const auto id = parse_uint(*v);
    if (!id || *id > 0x7fffffffu) return bad("SYMMER_NODE_ID", *v, "an integer 0..2147483647");
    c.node_id = id;
  }
  if (auto v = env("SYMMER_JOB_ID")) {
    const bool hex = v->size() > 2 && (*v)[0] == '0' && ((*v)[1] == 'x' || (*v)[1] == 'X');
    const auto id = hex ? parse_uint(v->substr(2), 16) : parse_uint(*v);
    if (!id || *id == 0) return bad("SYMMER_JOB_ID", *v, "a non-zero integer, decimal or 0x-hex");
    c.job_id = id;
  }
  if (auto v = env("SYMMER_EAGER_LIMIT")) {
    const auto b = parse_bytes(*v);
    if (!b) return bad("SYMMER_EAGER_LIMIT", *v, "a byte count up to 1t, e.g. 65536 or 64k");
    c.eager_limit = b;
  }
  if (auto v = env("SYMMER_PERIOD_MS")) {
    const auto ms = parse_uint(*v);
    if (!ms || *ms < 1 || *ms > 60000) return bad("SYMMER_PERIOD_MS", *v, "milliseconds 1..60000");
    c.period_ms = *ms;
  }
  if (auto v = env("SYMMER_EXCHANGE_MS")) {
    const auto ms = parse_uint(*v);
    if (!ms || *ms < 10 || *ms > 600000)
      return bad("SYMMER_EXCHANGE_MS", *v, "milliseconds 10..600000");
    c.exchange_ms = *ms;
  }
  if (auto v = env("SYMMER_PAPI")) {
    const auto on = parse_switch(*v);
    if (!on) return bad("SYMMER_PAPI", *v, "on or off");
    c.papi = *on;
  }
  if (auto v = env("SYMMER_CLOCK")) {
    if (*v == "auto")
      c.clock = ClockChoice::kAuto;
    else if (*v == "tsc")
      c.clock = ClockChoice::kTsc;
    else if (*v == "monotonic")
      c.clock = ClockChoice::kMonotonic;
    else
      return bad("SYMMER_CLOCK", *v, "auto, tsc or monotonic");
  }
  if (auto v = env("SYMMER_DUMP")) c.dump_path = *v;
  if (auto v = env("SYMMER_SHM_DIR")) {
    struct stat st {};
    if (v->empty() || ::stat(v->c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return bad("SYMMER_SHM_DIR", *v, "an existing directory");
    c.shm_dir = *v;
  }
  return c;
}

}  // namespace symmer::shim
