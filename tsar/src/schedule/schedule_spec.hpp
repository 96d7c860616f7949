// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A schedule as the user names it: "adaptive", "split:10", "chunk-dynamic:500" (TSAR_SCHEDULE
// or the API's schedule argument, in the manner of OMP_SCHEDULE).

#include <cstdint>
#include <string>
#include <string_view>

namespace tsar::core {

enum class ScheduleKind {
  kStatic,
  kAdaptive,
  kSplit,
  kQuick,
  kChunk,
  kChunkStatic,
  kChunkDynamic,
  kHybrid,
  kHGuided,
};

struct ScheduleSpec {
  ScheduleKind kind = ScheduleKind::kAdaptive;
  int div = 0;             ///< split/quick sub-passes; 0 = default (10)
  std::int64_t chunk = 0;  ///< chunk schedules: base chunk size (hguided: minimum); 0 = automatic

  /// Canonical text ("split:10"); parse(to_string()) gives the same spec back.
  std::string to_string() const;
};

inline constexpr int kDefaultDiv = 10;

/// Parses a schedule. Throws Error(TSAR_ERR_SCHEDULE) naming the bad part and the valid names.
ScheduleSpec parse_schedule(std::string_view text);

/// The schedule of a new region: `text` when given, else TSAR_SCHEDULE, else adaptive; a
/// positive `div` overrides the schedule's own. Throws Error(TSAR_ERR_SCHEDULE/INVALID).
ScheduleSpec resolve_schedule(const char* text, int div);

const char* schedule_name(ScheduleKind kind);

}  // namespace tsar::core
