// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The process-wide TSAR_TRACE file: every region appends its passes as they end (JSON lines,
// or CSV rows when the name ends in .csv). Opened, truncated, on the first pass traced.
//
// A pass's leader only copies its statistics into a queue; the queue becomes text in the order
// the passes were queued when it fills, before a partition's line, and at flush (a region's or
// partition's end, exit()). Formatting each pass as it ended cost more than a short pass.

#include <cstddef>
#include <cstdio>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "tsar/tsar.h"

namespace tsar::core {

struct TraceContext;

class TraceSink {
 public:
  /// The sink named by TSAR_TRACE, or nullptr when it is unset or cannot be opened (said once
  /// on stderr).
  static TraceSink* from_env();

  bool csv() const { return csv_; }
  /// Queues one pass (copies of its statistics). `ctx` is read when the pass is written: flush()
  /// before changing or destroying it.
  void record(const TraceContext& ctx, const tsar_pass_stats& pass,
              std::span<const tsar_device_stats> devices);
  /// Appends text (whole lines) after the queued passes, atomically with respect to other
  /// regions.
  void write(const std::string& text);
  /// Writes the queued passes and flushes the file.
  void flush();

 private:
  // Passes queued at most, and their device entries (6 MB): a benchmark's thousands of short
  // passes are written after it (tsar-suite's full Gram-Schmidt: 1280 passes on 16 devices in
  // each of its warm-up and timed runs).
  static constexpr std::size_t kPasses = 4096;
  static constexpr std::size_t kDevices = 16 * kPasses;
  static constexpr std::size_t kTextChunk = std::size_t{1} << 20;  ///< bytes per fwrite

  struct Queued {
    const TraceContext* ctx;
    tsar_pass_stats pass;
    std::size_t first_device, devices;
  };

  TraceSink(std::FILE* file, bool csv);
  void write_queued();  // mutex_ held

  std::mutex mutex_;
  std::FILE* file_;
  bool csv_;
  std::vector<Queued> queued_;
  std::vector<tsar_device_stats> devices_;
  std::string text_;  ///< reused
};

}  // namespace tsar::core
