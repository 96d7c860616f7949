// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What tsar-suite measured for one kernel, and its forms: the JSON line, the table row and
// the goals of issue 9 (reported, not asserted).

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tsar::suite {

/// One runtime's runs of one kernel.
struct RuntimeResult {
  std::vector<double> seconds;  ///< timed runs
  double median_s = 0.0;
  bool correct = true;  ///< every run (warm-ups included) matched the reference
  double max_error = 0.0;
  std::string failure;  ///< the first failing check, or an exception, "" when none
};

struct KernelResult {
  std::string kernel, kind, size;
  std::int64_t passes_per_run = 0;
  std::string tsar_runtime;  ///< the runtime that is "TSAR" in the comparison ("tsar")
  std::map<std::string, RuntimeResult> runtimes;
  std::vector<std::string> order;                ///< runtimes in the order they ran
  std::vector<double> standalone_s;              ///< per TSAR device; empty when not measured
  std::vector<std::string> standalone_measured;  ///< devices timed (others copy their class)
  std::vector<std::string> standalone_skipped;   ///< devices without a standalone time, why
  nlohmann::json tsar_extra;                     ///< split, pass totals, devices
};

/// True for the peer runtimes (everything not named tsar*).
bool is_peer(const std::string& runtime);
/// The kernel's JSON line (keys of issue 9: kernel, correct, tsar_s, best_peer, best_peer_s,
/// speedup_vs_best_peer, efficiency, plus the details).
nlohmann::json kernel_json(const KernelResult& r);
/// The table of all kernels, one row each, times in ms.
std::string table(const std::vector<KernelResult>& results,
                  const std::vector<std::string>& runtimes);
/// The summary line: correctness, the goals per kernel, geometric means.
nlohmann::json summary_json(const std::vector<nlohmann::json>& kernels);

}  // namespace tsar::suite
