// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// /proc/interrupts: per-CPU counts of every interrupt line, parsed from text. Parsing never
// throws: malformed or truncated text gives an Error naming the line.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "symmer/expected.hpp"

namespace symmer::topology {

/// One line of /proc/interrupts, e.g.
///   " 38:   0   345   PCI-MSIX-0000:00:03.0   1-edge   virtio2-input.0"
///   " 91:   0  1200   IR-PCI-MSI 1572864-edge   mlx5_comp3@pci:0000:3b:00.0"
///   "LOC: 39997 44318   Local timer interrupts"
struct IrqLine {
  std::string id;                     ///< "38", "LOC", "NMI"...
  bool is_device = false;             ///< numeric id: a device (or chip) interrupt line
  std::vector<std::uint64_t> counts;  ///< one per CPU column; empty for ERR and MIS
  std::uint64_t total = 0;            ///< sum of counts (the only number for ERR and MIS)
  std::string description;            ///< everything after the counts, spaces collapsed
  /// Device lines: the handlers' names ("virtio2-input.0", "eth0-TxRx-3"); shared lines
  /// list several. Empty for named lines.
  std::vector<std::string> actions;
};

/// One reading of /proc/interrupts.
struct InterruptsSnapshot {
  std::vector<int> cpus;       ///< Linux CPU number of each count column (online CPUs)
  std::vector<IrqLine> lines;  ///< in file order
};

/// Parses the text of /proc/interrupts: the "CPU0 CPU1 ..." header, then one line per
/// interrupt. A device line must have one count per CPU column.
/// `source` names the text in error messages ("<source> line 3: ...").
Expected<InterruptsSnapshot> parse_proc_interrupts(std::string_view text,
                                                   std::string_view source = "/proc/interrupts");

}  // namespace symmer::topology
