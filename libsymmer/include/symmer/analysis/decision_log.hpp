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

/// Where the embedded analyzer of the job whose node segment is `segment_path` publishes its
/// recent decisions for `symmerctl decisions`: beside the segment, named
/// symmerlog-<uid>-<job id>-<node id>.jsonl (not symmer-*: that prefix is the segments').
std::string published_log_path(const std::string& segment_path);

class DecisionLog {
 public:
  /// Appends to `path` (created if needed); an empty path keeps events in memory only. With
  /// `published`, also keeps that file (mode 0600, never through a symlink) holding the recent
  /// events, at most about 256 KiB; it is removed when the log is destroyed.
  explicit DecisionLog(const std::string& path = {}, std::size_t keep_in_memory = 256,
                       const std::string& published = {});
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
  std::string published_;
  int published_fd_ = -1;
  std::size_t published_bytes_ = 0;
};

}  // namespace symmer::analysis
