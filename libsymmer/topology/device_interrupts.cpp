// SPDX-License-Identifier: BSD-3-Clause
// Attribution of /proc/interrupts lines to PCI devices (see device_interrupts.hpp).
#include "symmer/topology/device_interrupts.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string_view>
#include <unordered_map>

#include "proc_text.hpp"

namespace symmer::topology {
namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// `word` occurs in `text` as a whole word: no letter or digit right before or after it
// ("eth1" is in "i40e-eth1-TxRx-0", not in "eth10-rx" or "veth1").
bool contains_word(std::string_view text, std::string_view word, bool dot_continues) {
  if (word.empty()) return false;
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    const bool starts = at == 0 || !is_alnum(text[at - 1]);
    const bool ends =
        end == text.size() || (!is_alnum(text[end]) && !(dot_continues && text[end] == '.'));
    if (starts && ends) return true;
  }
  return false;
}

std::vector<DeviceInterrupts> attribute(
    const std::vector<PciDevice>& devices, const InterruptsSnapshot* before,
    const InterruptsSnapshot& after,
    const std::map<std::string, std::vector<int>>& msi_irqs_by_address) {
  std::unordered_map<std::string_view, const IrqLine*> earlier;
  std::map<int, size_t> before_column;
  if (before) {
    for (const IrqLine& l : before->lines) earlier.emplace(l.id, &l);
    for (size_t i = 0; i < before->cpus.size(); ++i) before_column[before->cpus[i]] = i;
  }
  static const std::vector<int> kNone;
  std::vector<DeviceInterrupts> out;
  for (const PciDevice& device : devices) {
    DeviceInterrupts d;
    d.pci_address = device.pci_address;
    d.names = device.names;
    auto msi = msi_irqs_by_address.find(device.pci_address);
    const std::vector<int>& msi_irqs = msi == msi_irqs_by_address.end() ? kNone : msi->second;
    for (const IrqLine& line : after.lines) {
      if (!irq_line_belongs_to(line, device, msi_irqs)) continue;
      const IrqLine* base = nullptr;
      if (before) {
        auto it = earlier.find(line.id);
        if (it == earlier.end()) continue;  // the line appeared during the window
        base = it->second;
      }
      d.irqs.push_back(line.id);
      d.queues.insert(d.queues.end(), line.actions.begin(), line.actions.end());
      for (size_t i = 0; i < line.counts.size() && i < after.cpus.size(); ++i) {
        std::uint64_t earlier_count = 0;
        if (base) {
          auto col = before_column.find(after.cpus[i]);
          if (col == before_column.end() || col->second >= base->counts.size()) continue;
          earlier_count = base->counts[col->second];
        }
        const std::uint64_t n = line.counts[i] > earlier_count ? line.counts[i] - earlier_count : 0;
        if (n == 0) continue;
        d.per_cpu[after.cpus[i]] += n;
        d.total += n;
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

std::vector<int> DeviceInterrupts::cpus() const {
  std::vector<int> out;
  for (const auto& [cpu, n] : per_cpu)
    if (n > 0) out.push_back(cpu);
  return out;
}

bool irq_line_belongs_to(const IrqLine& line, const PciDevice& device,
                         const std::vector<int>& msi_irqs) {
  if (!line.is_device) return false;
  if (auto irq = detail::parse_u64(line.id);
      irq && std::find(msi_irqs.begin(), msi_irqs.end(), static_cast<int>(*irq)) != msi_irqs.end())
    return true;
  if (contains_word(line.description, device.pci_address, /*dot_continues=*/false)) return true;
  for (const std::string& action : line.actions)
    for (const std::string& name : device.names)
      if (contains_word(action, name, /*dot_continues=*/true)) return true;
  return false;
}

std::vector<DeviceInterrupts> device_interrupts(
    const std::vector<PciDevice>& devices, const InterruptsSnapshot& before,
    const InterruptsSnapshot& after,
    const std::map<std::string, std::vector<int>>& msi_irqs_by_address) {
  return attribute(devices, &before, after, msi_irqs_by_address);
}

std::vector<DeviceInterrupts> device_interrupts(
    const std::vector<PciDevice>& devices, const InterruptsSnapshot& since_boot,
    const std::map<std::string, std::vector<int>>& msi_irqs_by_address) {
  return attribute(devices, nullptr, since_boot, msi_irqs_by_address);
}

Expected<std::vector<int>> msi_irqs_of(const std::string& sys_root,
                                       const std::string& pci_address) {
  namespace fs = std::filesystem;
  const fs::path device = fs::path(sys_root) / "bus/pci/devices" / pci_address;
  std::error_code ec;
  if (!fs::is_directory(device, ec))
    return Error(Errc::kNotFound, "no PCI device directory " + device.string());
  std::vector<int> irqs;
  const fs::path msi = device / "msi_irqs";
  if (!fs::is_directory(msi, ec)) return irqs;  // legacy INTx only
  for (fs::directory_iterator it(msi, ec), end; !ec && it != end; it.increment(ec)) {
    auto n = detail::parse_u64(it->path().filename().string());
    if (n && *n < (1u << 24)) irqs.push_back(static_cast<int>(*n));
  }
  if (ec) return Error(Errc::kIo, "cannot list " + msi.string() + ": " + ec.message());
  std::sort(irqs.begin(), irqs.end());
  return irqs;
}

}  // namespace symmer::topology
