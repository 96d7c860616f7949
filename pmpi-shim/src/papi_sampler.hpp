// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Cache misses of the rank through PAPI, read in-process and only when the rank publishes
// (never per call). Counts the thread that called MPI_Init. Where PAPI has no usable counter
// (VMs, perf_event_paranoid, no preset), the status says "unavailable" and the reason is kept.

#include <cstdint>
#include <string>

#include "symmer/segment/layout.hpp"

namespace symmer::shim {

struct PapiReading {
  segment::CountersStatus status = segment::CountersStatus::kUnknown;
  segment::CacheEvent event = segment::CacheEvent::kNone;
  std::uint64_t value = 0;
};

/// Starts counting on the calling thread (MPI_Init's). `enabled` false: status kDisabled.
void papi_start(bool enabled) noexcept;
/// Reads the counter; call only from the thread that started it.
void papi_sample() noexcept;
/// The latest reading (any thread).
PapiReading papi_latest() noexcept;
/// Why counters are unavailable ("" when they are available or disabled).
const std::string& papi_note() noexcept;
/// Stops counting (MPI_Finalize, same thread as papi_start).
void papi_stop() noexcept;

}  // namespace symmer::shim
