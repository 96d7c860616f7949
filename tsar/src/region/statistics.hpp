// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Per-pass statistics of a region: the last kKeep passes in a preallocated ring (recording a
// pass allocates nothing), and their JSON / CSV forms for TSAR_TRACE and tsar_write_trace.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "schedule/participation_trial.hpp"
#include "tsar/tsar.h"

namespace tsar::core {

class Statistics {
 public:
  static constexpr std::int64_t kKeep = 4096;

  explicit Statistics(int workers);

  /// Slots for pass number `pass` (overwrites the oldest kept pass).
  tsar_pass_stats& pass_slot(std::int64_t pass);
  std::span<tsar_device_stats> device_slots(std::int64_t pass);
  /// Marks pass `pass` as recorded.
  void commit(std::int64_t pass) { recorded_ = pass + 1; }

  std::int64_t recorded() const { return recorded_; }
  /// True when `pass` is still kept.
  bool kept(std::int64_t pass) const {
    return pass >= 0 && pass < recorded_ && pass >= recorded_ - kKeep;
  }
  const tsar_pass_stats& pass(std::int64_t pass) const;
  std::span<const tsar_device_stats> devices(std::int64_t pass) const;

 private:
  std::size_t index(std::int64_t pass) const { return static_cast<std::size_t>(pass % kKeep); }
  int workers_;
  std::int64_t recorded_ = 0;
  std::vector<tsar_pass_stats> passes_;
  std::vector<tsar_device_stats> devices_;
};

/// What a trace line names besides the numbers, already in the forms the lines write: made
/// once per region and device set, not per pass.
struct TraceContext {
  TraceContext() = default;
  /// `device_keys`: per worker, at the time of the passes. Throws where nlohmann::json's dump
  /// would (a name that is not UTF-8).
  TraceContext(const std::string& region, const std::string& schedule,
               const std::vector<std::string>& device_keys);

  std::string json_region, json_schedule;  ///< JSON string literals, quoted and escaped
  std::vector<std::string> json_keys;
  std::string csv_names;              ///< "region","schedule" (CSV-quoted)
  std::vector<std::string> csv_keys;  ///< quoted
};

/// Appends one pass as a JSON object on one line (JSON lines), with a trailing newline: the
/// bytes nlohmann::json's dump() writes for it (keys sorted, doubles in its shortest form).
void append_pass_json(std::string& out, const TraceContext& ctx, const tsar_pass_stats& pass,
                      std::span<const tsar_device_stats> devices);
/// One participation trial's decision as a JSON object on one line, with a trailing newline:
/// {"trial": {...the decision...}, "region": ..., "pass": the pass that decided it}. Throws
/// where nlohmann::json's dump would (a name that is not UTF-8).
std::string trial_decision_json(const std::string& region, std::int64_t pass,
                                const ParticipationTrial::Decision& decision);
/// Appends one pass as CSV rows (one per device), with trailing newlines.
void append_pass_csv(std::string& out, const TraceContext& ctx, const tsar_pass_stats& pass,
                     std::span<const tsar_device_stats> devices);
/// The CSV header matching append_pass_csv.
const char* csv_header();
/// True when `path` names a CSV file.
bool is_csv_path(const std::string& path);

}  // namespace tsar::core
