#include "devices/device_list.hpp"

#include <charconv>
#include <string>

#include "api/error.hpp"
#include "devices/host_device.hpp"
#include "symmer/topology/node_model.hpp"

namespace tsar::core {
namespace {

constexpr const char* kSyntax = "expected cpu:N, cpu:N-M, cpu:all, place:N or emul:N";

[[noreturn]] void bad(std::string_view entry, const std::string& why) {
  throw Error(TSAR_ERR_DEVICES,
              "device list entry '" + std::string(entry) + "': " + why + " (" + kSyntax + ")");
}

int parse_index(std::string_view entry, std::string_view text) {
  int value = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0)
    bad(entry, "'" + std::string(text) + "' is not a non-negative number");
  return value;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<std::shared_ptr<Device>> build_devices(const symmer::topology::NodeModel& node,
                                                   std::string_view spec) {
  std::vector<std::shared_ptr<Device>> devices;
  const int cores = static_cast<int>(node.cores().size());
  if (trim(spec).empty()) {
    for (int c = 0; c < cores; ++c) devices.push_back(make_cpu_core(node, c));
    return devices;
  }
  int emulated = 0;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t comma = spec.find(',', start);
    const std::string_view entry =
        trim(spec.substr(start, comma == std::string_view::npos ? spec.npos : comma - start));
    start = comma == std::string_view::npos ? spec.size() + 1 : comma + 1;
    if (entry.empty()) bad(entry, "empty entry");
    const std::size_t colon = entry.find(':');
    if (colon == std::string_view::npos) bad(entry, "no ':'");
    const std::string_view kind = entry.substr(0, colon);
    const std::string_view arg = entry.substr(colon + 1);
    if (kind == "cpu") {
      if (arg == "all") {
        for (int c = 0; c < cores; ++c) devices.push_back(make_cpu_core(node, c));
      } else if (const std::size_t dash = arg.find('-'); dash != std::string_view::npos) {
        const int lo = parse_index(entry, arg.substr(0, dash));
        const int hi = parse_index(entry, arg.substr(dash + 1));
        if (hi < lo) bad(entry, "empty range");
        for (int c = lo; c <= hi; ++c) devices.push_back(make_cpu_core(node, c));
      } else {
        devices.push_back(make_cpu_core(node, parse_index(entry, arg)));
      }
    } else if (kind == "place") {
      devices.push_back(make_cpu_place(node, parse_index(entry, arg)));
    } else if (kind == "emul") {
      devices.push_back(make_emulated(node, emulated++, parse_index(entry, arg)));
    } else {
      bad(entry, "unknown device kind '" + std::string(kind) + "'");
    }
  }
  return devices;
}

}  // namespace tsar::core
