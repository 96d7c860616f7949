// SPDX-License-Identifier: BSD-3-Clause
#include "schedule/schedule_spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

#include "api/error.hpp"

namespace tsar::core {
namespace {

struct NamedKind {
  const char* name;
  ScheduleKind kind;
};

// Hyphens and underscores are both accepted ("chunk_static" is easier in Fortran and shells).
constexpr NamedKind kNames[] = {
    {"static", ScheduleKind::kStatic},
    {"adaptive", ScheduleKind::kAdaptive},
    {"split", ScheduleKind::kSplit},
    {"quick", ScheduleKind::kQuick},
    {"chunk", ScheduleKind::kChunk},
    {"chunk-static", ScheduleKind::kChunkStatic},
    {"chunk-dynamic", ScheduleKind::kChunkDynamic},
    {"hybrid", ScheduleKind::kHybrid},
    {"hguided", ScheduleKind::kHGuided},
};

constexpr const char* kValidNames =
    "static, adaptive, split[:div], quick[:div], chunk[:size], chunk-static[:size], "
    "chunk-dynamic[:size], hybrid[:size], hguided[:min-chunk]";

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw Error(TSAR_ERR_SCHEDULE,
              "schedule '" + std::string(text) + "': " + why + " (valid: " + kValidNames + ")");
}

std::string normalise(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    out.push_back(c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

bool takes_div(ScheduleKind k) { return k == ScheduleKind::kSplit || k == ScheduleKind::kQuick; }

bool takes_chunk(ScheduleKind k) {
  return k == ScheduleKind::kChunk || k == ScheduleKind::kChunkStatic ||
         k == ScheduleKind::kChunkDynamic || k == ScheduleKind::kHybrid ||
         k == ScheduleKind::kHGuided;
}

}  // namespace

const char* schedule_name(ScheduleKind kind) {
  for (const auto& n : kNames)
    if (n.kind == kind) return n.name;
  return "?";
}

std::string ScheduleSpec::to_string() const {
  std::string s = schedule_name(kind);
  if (takes_div(kind) && div > 0) s += ":" + std::to_string(div);
  if (takes_chunk(kind) && chunk > 0) s += ":" + std::to_string(chunk);
  return s;
}

ScheduleSpec parse_schedule(std::string_view text) {
  const std::string s = normalise(text);
  if (s.empty()) bad(text, "empty");
  const auto colon = s.find(':');
  const std::string name = s.substr(0, colon);
  const auto* it = std::find_if(std::begin(kNames), std::end(kNames),
                                [&](const NamedKind& n) { return name == n.name; });
  if (it == std::end(kNames)) bad(text, "unknown name '" + name + "'");
  ScheduleSpec spec;
  spec.kind = it->kind;
  if (colon == std::string::npos) return spec;

  const std::string param = s.substr(colon + 1);
  if (!takes_div(spec.kind) && !takes_chunk(spec.kind))
    bad(text, std::string("'") + it->name + "' takes no parameter");
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(param.data(), param.data() + param.size(), value);
  if (ec != std::errc() || end != param.data() + param.size() || value < 1)
    bad(text, "parameter '" + param + "' is not a positive integer");
  if (takes_div(spec.kind)) {
    if (value > 1'000'000) bad(text, "div " + param + " is larger than 1000000");
    spec.div = static_cast<int>(value);
  } else {
    spec.chunk = value;
  }
  return spec;
}

ScheduleSpec resolve_schedule(const char* text, int div) {
  if (div < 0) throw Error(TSAR_ERR_INVALID, "div " + std::to_string(div) + " is negative");
  ScheduleSpec spec;
  if (text != nullptr && text[0] != '\0') {
    spec = parse_schedule(text);
  } else if (const char* env = std::getenv("TSAR_SCHEDULE"); env != nullptr && env[0] != '\0') {
    try {
      spec = parse_schedule(env);
    } catch (const Error& e) {
      throw Error(TSAR_ERR_SCHEDULE, std::string("TSAR_SCHEDULE: ") + e.what());
    }
  }
  if (div > 0) spec.div = div;
  return spec;
}

}  // namespace tsar::core
