// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// /proc/softirqs: per-CPU counts of each soft-interrupt kind (NET_RX, NET_TX, TIMER...),
// parsed from text. Parsing never throws: malformed or truncated text gives an Error.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "symmer/expected.hpp"

namespace symmer::topology {

/// One reading of /proc/softirqs.
struct SoftirqsSnapshot {
  std::vector<int> cpus;  ///< Linux CPU number of each count column (possible CPUs)
  /// Counts by kind ("NET_RX", "NET_TX", "TIMER"...), one per column of `cpus`.
  std::map<std::string, std::vector<std::uint64_t>> counts;

  /// The count of `kind` raised on Linux CPU `cpu`; 0 when either is absent.
  std::uint64_t count(const std::string& kind, int cpu) const;
};

/// Parses the text of /proc/softirqs: the "CPU0 CPU1 ..." header, then one line per kind
/// with one count per CPU column.
/// `source` names the text in error messages ("<source> line 3: ...").
Expected<SoftirqsSnapshot> parse_proc_softirqs(std::string_view text,
                                               std::string_view source = "/proc/softirqs");

}  // namespace symmer::topology
