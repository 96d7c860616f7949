// SPDX-License-Identifier: BSD-3-Clause
#include "devices/link_speed.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "devices/device.hpp"

namespace tsar::core {

double measure_link_seconds_per_byte(Device& device) {
  std::size_t bytes = kLinkCalibrationBytes;
  if (const std::size_t limit = device.description().memory_limit; limit != 0)
    bytes = std::min(bytes, (limit - std::min(limit, device.allocated())) / 2);
  if (bytes < 4096) return 0.0;  // too little to time: no room left under the limit
  std::vector<unsigned char> host(bytes, 1);
  try {
    device.prepare_copies();
    const auto pinned =
        device.description().pin_host ? device.pin_host(host.data(), bytes) : nullptr;
    void* on_device = device.allocate(bytes);
    double seconds = 0.0;
    try {
      device.copy_to_device(on_device, host.data(), bytes);
      device.synchronize();
      const auto t0 = std::chrono::steady_clock::now();
      device.copy_to_device(on_device, host.data(), bytes);
      device.synchronize();
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } catch (...) {
      device.release(on_device, bytes);
      throw;
    }
    device.release(on_device, bytes);
    return seconds > 0.0 ? seconds / static_cast<double>(bytes) : 0.0;
  } catch (const Error&) {
    return 0.0;  // the region meets the device's real failure when it uses it
  }
}

double measure_link_latency(Device& device) {
  constexpr std::size_t bytes = 64;
  constexpr int kCopies = 5;
  unsigned char host[bytes] = {};
  try {
    device.prepare_copies();
    void* on_device = device.allocate(bytes);
    double best = 0.0;
    try {
      for (int k = 0; k <= kCopies; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        device.copy_to_device(on_device, host, bytes);
        device.synchronize();
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (k > 0 && (best == 0.0 || s < best)) best = s;  // the first sets the path up
      }
    } catch (...) {
      device.release(on_device, bytes);
      throw;
    }
    device.release(on_device, bytes);
    return best;
  } catch (const Error&) {
    return 0.0;  // no room or a failed copy: the region meets the real failure when it uses it
  }
}

LinkSpeed known_link(Device& device, bool bytes) {
  static std::mutex mutex;
  static std::map<std::string, LinkSpeed> known;
  const DeviceDescription& d = device.description();
  const std::string key =
      d.key + '/' + std::to_string(d.memory_limit) + '/' + (d.pin_host ? "pinned" : "pageable");
  // Held while measuring: each device measures once a process, and two objects of one key
  // measure once between them. A value still 0 could not be measured and is tried again.
  std::lock_guard lock(mutex);
  LinkSpeed& kept = known[key];
  if (bytes && kept.seconds_per_byte == 0.0)
    kept.seconds_per_byte = measure_link_seconds_per_byte(device);
  if (kept.latency == 0.0) kept.latency = measure_link_latency(device);
  LinkSpeed link = kept;
  if (bytes && link.seconds_per_byte == 0.0)
    link.seconds_per_byte = 1.0 / kFallbackLinkBytesPerSecond;
  return link;
}

}  // namespace tsar::core
