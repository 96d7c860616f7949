// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Which cores take which device's interrupts: /proc/interrupts lines attributed to the PCI
// devices of the node model (NIC queues, GPU lines), by PCI address and by OS device name.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "symmer/expected.hpp"
#include "symmer/topology/node_model.hpp"
#include "symmer/topology/proc_interrupts.hpp"

namespace symmer::topology {

/// One device's interrupt lines and the CPUs that handled them.
struct DeviceInterrupts {
  std::string pci_address;
  std::vector<std::string> names;        ///< the device's OS names (copied from PciDevice)
  std::vector<std::string> irqs;         ///< ids of its lines ("38", "39"...)
  std::vector<std::string> queues;       ///< their handler names ("virtio2-input.0"...)
  std::map<int, std::uint64_t> per_cpu;  ///< Linux CPU -> interrupts handled
  std::uint64_t total = 0;

  /// Linux CPUs that handled at least one of its interrupts, ascending.
  std::vector<int> cpus() const;
};

/// True when interrupt line `line` belongs to `device`: its text names the device's PCI
/// address (MSI chips "PCI-MSIX-0000:3b:00.0", handlers "mlx5_comp3@pci:0000:3b:00.0"), or
/// one of the device's OS names is a whole word of a handler name ("eth0-TxRx-3",
/// "i40e-eth0-TxRx-0"; "eth1" does not match "eth10-rx"), or its id is among `msi_irqs`.
bool irq_line_belongs_to(const IrqLine& line, const PciDevice& device,
                         const std::vector<int>& msi_irqs = {});

/// Interrupts of each device between two snapshots (lines present in both). `msi_irqs_by_address`
/// optionally adds IRQ numbers per PCI address (from msi_irqs_of()) for kernels whose lines
/// name neither. Devices appear in `devices` order, also when they took no interrupt.
std::vector<DeviceInterrupts> device_interrupts(
    const std::vector<PciDevice>& devices, const InterruptsSnapshot& before,
    const InterruptsSnapshot& after,
    const std::map<std::string, std::vector<int>>& msi_irqs_by_address = {});

/// Interrupts of each device since boot (one snapshot).
std::vector<DeviceInterrupts> device_interrupts(
    const std::vector<PciDevice>& devices, const InterruptsSnapshot& since_boot,
    const std::map<std::string, std::vector<int>>& msi_irqs_by_address = {});

/// MSI/MSI-X IRQ numbers of the PCI device at `pci_address`, from
/// <sys_root>/bus/pci/devices/<address>/msi_irqs (sys_root "/sys" on this node). An empty
/// list when the device uses no MSI; an Error when the device directory does not exist.
Expected<std::vector<int>> msi_irqs_of(const std::string& sys_root, const std::string& pci_address);

}  // namespace symmer::topology
