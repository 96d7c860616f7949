// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Every decision the analyzer makes, with its evidence, as JSON lines: one object per event,
// each with "event" (config, symptom, decision, plan, advice, actuation, evaluation,
// migration, fault, summary) and "t_s" (seconds since the analyzer started). The file is the
// record `symmer-run --report` summarises (report.hpp).

#include <cstddef>
#include <deque>
#include <nlohmann/json.hpp>
#include <string>

namespace symmer::analysis {

class DecisionLog {
 public:
  /// Appends to `path` (created if needed); an empty path keeps events in memory only.
  explicit DecisionLog(const std::string& path = {}, std::size_t keep_in_memory = 256);
  /// Appends to the file open at `fd` (write, append), which the log then owns and closes;
  /// `path` names it. The caller opened it as safely as it must (symmerd: O_NOFOLLOW in a
  /// directory it checked).
  DecisionLog(int fd, std::string path, std::size_t keep_in_memory = 256);
  ~DecisionLog();
  DecisionLog(const DecisionLog&) = delete;
  DecisionLog& operator=(const DecisionLog&) = delete;

  /// Records one event (written and flushed at once: the job may end any time).
  void write(const nlohmann::json& event);
  /// The most recent events, oldest first.
  const std::deque<nlohmann::json>& recent() const { return recent_; }
  /// Why the file could not be opened; empty when it is fine (or there is none).
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::size_t keep_;
  std::deque<nlohmann::json> recent_;
  std::string error_;
};

}  // namespace symmer::analysis
