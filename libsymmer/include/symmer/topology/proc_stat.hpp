// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// /proc/stat: cumulative CPU time per Linux CPU, parsed from text (see proc_reader.hpp for
// reading it from a /proc root). Parsing never throws: malformed or truncated text gives an
// Error naming the line.

#include <cstdint>
#include <map>
#include <string_view>

#include "symmer/expected.hpp"

namespace symmer::topology {

/// Cumulative time of one CPU since boot, in clock ticks (USER_HZ, sysconf(_SC_CLK_TCK)).
/// Older kernels print fewer columns; the missing ones read 0.
struct CpuTimes {
  std::uint64_t user = 0;  ///< includes guest
  std::uint64_t nice = 0;  ///< includes guest_nice
  std::uint64_t system = 0;
  std::uint64_t idle = 0;
  std::uint64_t iowait = 0;   ///< idle while I/O is pending; may decrease (kernel quirk)
  std::uint64_t irq = 0;      ///< servicing hardware interrupts
  std::uint64_t softirq = 0;  ///< servicing soft interrupts (network RX/TX, timers, block)
  std::uint64_t steal = 0;    ///< taken by the hypervisor for other guests
  std::uint64_t guest = 0;
  std::uint64_t guest_nice = 0;

  /// Every tick of the CPU: user+nice+system+idle+iowait+irq+softirq+steal (guest time is
  /// already inside user and nice).
  std::uint64_t total() const;
};

/// One reading of /proc/stat.
struct StatSnapshot {
  CpuTimes all;                  ///< the "cpu" line: every online CPU summed
  std::map<int, CpuTimes> cpus;  ///< "cpuN" lines by Linux CPU number (online CPUs only)
};

/// Parses the text of /proc/stat. Needs the "cpu" line and at least one "cpuN" line, each
/// with at least the four original columns; lines after the CPU lines are ignored.
/// `source` names the text in error messages ("<source> line 3: ...").
Expected<StatSnapshot> parse_proc_stat(std::string_view text,
                                       std::string_view source = "/proc/stat");

}  // namespace symmer::topology
