// SPDX-License-Identifier: BSD-3-Clause
// Which cores take which device's interrupts: attribution by PCI address, by OS device name
// as a whole word, and by MSI IRQ numbers, on hand-written and real /proc captures.
#include "symmer/topology/device_interrupts.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "proc_fixtures.hpp"

namespace {

using namespace symmer::topology;
using symmer::topology::testing::snapshot;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

PciDevice device(const std::string& address, std::vector<std::string> names) {
  PciDevice d;
  d.pci_address = address;
  d.names = std::move(names);
  return d;
}

TEST(DeviceInterrupts, NicQueuesAndGpuLinesInAWindow) {
  const ProcSnapshot a = snapshot("synthetic-4cpu/a"), b = snapshot("synthetic-4cpu/b");
  const std::vector<PciDevice> devices = {
      device("0000:3b:00.0", {"ib0", "mlx5_0"}),  // by address in the handler name
      device("0000:d8:00.0", {"ens7f0"}),         // by name: i40e-ens7f0-TxRx-N
      device("0000:d8:00.1", {"ens7f1"}),         // must not take i40e-ens7f10-TxRx-0
      device("0000:00:03.0", {"eth0"}),           // by the MSI-X chip's address
      device("0000:41:00.0", {}),                 // "nvidia": only the MSI list names it
  };
  const auto got = device_interrupts(devices, a.interrupts, b.interrupts, {{"0000:41:00.0", {50}}});
  ASSERT_EQ(got.size(), 5u);

  EXPECT_THAT(got[0].irqs, ElementsAre("24", "25"));
  EXPECT_THAT(got[0].queues,
              ElementsAre("mlx5_comp0@pci:0000:3b:00.0", "mlx5_comp1@pci:0000:3b:00.0"));
  EXPECT_THAT(got[0].per_cpu, ElementsAre(Pair(1, 2000u), Pair(2, 500u)));
  EXPECT_EQ(got[0].total, 2500u);
  EXPECT_THAT(got[0].cpus(), ElementsAre(1, 2));

  EXPECT_THAT(got[1].irqs, ElementsAre("30", "31"));
  EXPECT_THAT(got[1].per_cpu, ElementsAre(Pair(1, 300u)));

  EXPECT_THAT(got[2].irqs, IsEmpty());
  EXPECT_EQ(got[2].total, 0u);

  EXPECT_THAT(got[3].irqs, ElementsAre("40"));
  EXPECT_THAT(got[3].per_cpu, ElementsAre(Pair(3, 50u)));

  EXPECT_THAT(got[4].irqs, ElementsAre("50"));
  EXPECT_THAT(got[4].cpus(), ElementsAre(0));
  EXPECT_EQ(got[4].total, 70u);
}

TEST(DeviceInterrupts, SinceBootOnARealCapture) {
  // This VM's virtio NIC eth0 at 0000:00:03.0: config 37, input.0 38 (CPU1), output.0 39 (CPU0).
  const ProcSnapshot a = snapshot("vm-2cpu/a");
  const auto got = device_interrupts({device("0000:00:03.0", {"eth0"})}, a.interrupts);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_THAT(got[0].irqs, ElementsAre("37", "38", "39"));
  EXPECT_THAT(got[0].queues, ElementsAre("virtio2-config", "virtio2-input.0", "virtio2-output.0"));
  EXPECT_THAT(got[0].per_cpu, ElementsAre(Pair(0, 355u), Pair(1, 345u)));
}

TEST(DeviceInterrupts, H100LinesFoundByTheirMsixChipAddress) {
  // The GPU's eight "nvidia" lines 42-49 name only the driver; the chip names the address.
  const ProcSnapshot a = snapshot("h100-16cpu/a");
  const auto got = device_interrupts({device("0000:00:06.0", {})}, a.interrupts);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_THAT(got[0].irqs, ElementsAre("42", "43", "44", "45", "46", "47", "48", "49"));
  EXPECT_THAT(got[0].per_cpu, ElementsAre(Pair(0, 5u)));
}

TEST(IrqLineBelongsTo, NamesMatchAsWholeWordsOnly) {
  IrqLine line;
  line.id = "58";
  line.is_device = true;
  line.description = "IR-PCI-MSI 1572864-edge i40e-eth1-TxRx-0";
  line.actions = {"i40e-eth1-TxRx-0"};
  EXPECT_TRUE(irq_line_belongs_to(line, device("0000:01:00.0", {"eth1"})));
  EXPECT_FALSE(irq_line_belongs_to(line, device("0000:01:00.0", {"eth"})));
  EXPECT_FALSE(irq_line_belongs_to(line, device("0000:01:00.0", {"th1"})));
  line.actions = {"eth10-rx"};
  EXPECT_FALSE(irq_line_belongs_to(line, device("0000:01:00.0", {"eth1"})));
  line.actions = {"veth1"};
  EXPECT_FALSE(irq_line_belongs_to(line, device("0000:01:00.0", {"eth1"})));
  // Addresses must match whole too: domain 10000 (VMD) is not domain 0000.
  line.actions = {"nvme0q1"};
  line.description = "PCI-MSIX-10000:01:00.0 1-edge nvme0q1";
  EXPECT_FALSE(irq_line_belongs_to(line, device("0000:01:00.0", {})));
  EXPECT_TRUE(irq_line_belongs_to(line, device("10000:01:00.0", {})));
  // Named lines (LOC, NMI...) belong to no device.
  IrqLine loc;
  loc.id = "LOC";
  loc.description = "Local timer interrupts eth1";
  EXPECT_FALSE(irq_line_belongs_to(loc, device("0000:01:00.0", {"eth1"})));
}

TEST(MsiIrqsOf, ReadsAFakeSysfsTree) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / "fake-sys";
  const fs::path dev = root / "bus/pci/devices/0000:3b:00.0";
  fs::create_directories(dev / "msi_irqs");
  for (const char* irq : {"91", "7", "120"}) std::ofstream(dev / "msi_irqs" / irq) << "msix\n";
  fs::create_directories(root / "bus/pci/devices/0000:00:1f.0");  // no MSI
  auto irqs = msi_irqs_of(root.string(), "0000:3b:00.0");
  ASSERT_TRUE(irqs) << irqs.error().to_string();
  EXPECT_THAT(*irqs, ElementsAre(7, 91, 120));
  auto none = msi_irqs_of(root.string(), "0000:00:1f.0");
  ASSERT_TRUE(none);
  EXPECT_THAT(*none, IsEmpty());
  auto missing = msi_irqs_of(root.string(), "0000:99:00.0");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, symmer::Errc::kNotFound);
  fs::remove_all(root);
}

}  // namespace
