// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Reads /proc/stat, /proc/interrupts and /proc/softirqs from a /proc root, so tests and
// tools can point it at captured files (tests/fixtures/proc/<capture>/).

#include <chrono>
#include <string>

#include "symmer/expected.hpp"
#include "symmer/topology/proc_interrupts.hpp"
#include "symmer/topology/proc_softirqs.hpp"
#include "symmer/topology/proc_stat.hpp"

namespace symmer::topology {

/// The three files read together: one end of a sampling window.
struct ProcSnapshot {
  StatSnapshot stat;
  InterruptsSnapshot interrupts;
  SoftirqsSnapshot softirqs;
  std::chrono::steady_clock::time_point taken;  ///< when reading started
};

/// Reads snapshots from a /proc root ("/proc" for this node).
class ProcReader {
 public:
  explicit ProcReader(std::string root = "/proc");

  const std::string& root() const { return root_; }

  /// <root>/stat parsed; an Error names the file and what was wrong with it.
  Expected<StatSnapshot> read_stat() const;
  /// <root>/interrupts parsed.
  Expected<InterruptsSnapshot> read_interrupts() const;
  /// <root>/softirqs parsed.
  Expected<SoftirqsSnapshot> read_softirqs() const;
  /// All three; the first failure is the Error.
  Expected<ProcSnapshot> read() const;

  /// The text of <root>/<name> (at most 64 MiB: /proc files are far smaller).
  Expected<std::string> read_file(const std::string& name) const;

 private:
  std::string root_;
};

}  // namespace symmer::topology
