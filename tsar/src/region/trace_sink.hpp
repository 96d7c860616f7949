// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The process-wide TSAR_TRACE file: every region appends its passes as they end (JSON lines,
// or CSV rows when the name ends in .csv). Opened, truncated, on the first pass traced.

#include <cstdio>
#include <mutex>
#include <string>

namespace tsar::core {

class TraceSink {
 public:
  /// The sink named by TSAR_TRACE, or nullptr when it is unset or cannot be opened (said once
  /// on stderr).
  static TraceSink* from_env();

  bool csv() const { return csv_; }
  /// Appends text (whole lines) atomically with respect to other regions.
  void write(const std::string& text);
  void flush();

 private:
  TraceSink(std::FILE* file, bool csv) : file_(file), csv_(csv) {}
  std::mutex mutex_;
  std::FILE* file_;
  bool csv_;
};

}  // namespace tsar::core
