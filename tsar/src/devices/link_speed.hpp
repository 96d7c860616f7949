// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The speed of a device's link to the host, measured: one calibration copy host -> device
// through the device's own copy interface (after one untimed copy that sets the path up),
// from page-locked memory where the device copies registered buffers from page-locked
// memory. TSAR_LINK_BANDWIDTH (Device::set_link_bandwidth) replaces it: a slower declared
// link is how tests make data movement expensive on the host-as-device.

namespace tsar::core {

class Device;

/// Bytes copied by the calibration (less under a small TSAR_DEVICE_MEMORY_LIMIT).
inline constexpr unsigned long kLinkCalibrationBytes = 4ul << 20;
/// What a device whose calibration cannot run (no room for it, a failed copy) is assumed
/// to move: a PCIe 3 x16 link's bytes per second, a modest GPU link.
inline constexpr double kFallbackLinkBytesPerSecond = 12e9;

/// Seconds per byte of copies to `device` (one with its own memory), measured now; 0 when the
/// calibration cannot run (no room for it, a failed copy).
double measure_link_seconds_per_byte(Device& device);

/// Seconds of a small copy to `device` and its synchronisation, the best of a few (after one
/// that sets the path up): what each separate copy costs whatever its bytes. Not replaced by
/// TSAR_LINK_BANDWIDTH (a declared link is slower per byte, not per copy). 0 when it cannot
/// run.
double measure_link_latency(Device& device);

/// A device's link: seconds per byte (kFallbackLinkBytesPerSecond's where it cannot be
/// measured) and the latency of a small copy.
struct LinkSpeed {
  double seconds_per_byte = 0.0;
  double latency = 0.0;
};

/// The link of `device` as measured above, once per process for each device key, memory limit
/// and page-locking: a runtime built again for another device list (tsar_set_devices) finds
/// the link of a GPU it measured before. Each calibration page-locks, allocates and copies, and
/// took the first pass of such a runtime milliseconds on a GPU
/// (docs/results/tsar/averse-first-pass/). What a calibration could not measure is not kept.
/// `bytes`: measure the seconds per byte too (else only the latency, the bandwidth being
/// declared). Thread-safe.
LinkSpeed known_link(Device& device, bool bytes);

}  // namespace tsar::core
