// SPDX-License-Identifier: BSD-3-Clause
// PAPI cache-miss sampling (see papi_sampler.hpp).
#include "papi_sampler.hpp"

#include <papi.h>

#include <atomic>

namespace symmer::shim {
namespace {

using segment::CacheEvent;
using segment::CountersStatus;

int event_set = PAPI_NULL;
CacheEvent event = CacheEvent::kNone;
std::atomic<std::uint64_t> status{static_cast<std::uint64_t>(CountersStatus::kUnknown)};
std::atomic<std::uint64_t> value{0};
std::string note;

}  // namespace

void papi_start(bool enabled) noexcept {
  if (!enabled) {
    status = static_cast<std::uint64_t>(CountersStatus::kDisabled);
    return;
  }
  status = static_cast<std::uint64_t>(CountersStatus::kUnavailable);
  const int v = PAPI_library_init(PAPI_VER_CURRENT);
  if (v != PAPI_VER_CURRENT) {
    note = v > 0 ? "PAPI version mismatch" : std::string("PAPI_library_init: ") + PAPI_strerror(v);
    return;
  }
  // The last-level cache the CPU reports first; L1 data misses as the fallback.
  const std::pair<int, CacheEvent> presets[] = {{PAPI_L3_TCM, CacheEvent::kL3Tcm},
                                                {PAPI_L2_TCM, CacheEvent::kL2Tcm},
                                                {PAPI_L1_DCM, CacheEvent::kL1Dcm}};
  int rc = PAPI_create_eventset(&event_set);
  if (rc != PAPI_OK) {
    note = std::string("PAPI_create_eventset: ") + PAPI_strerror(rc);
    return;
  }
  for (const auto& [code, kind] : presets) {
    if ((rc = PAPI_add_event(event_set, code)) != PAPI_OK) continue;
    if ((rc = PAPI_start(event_set)) == PAPI_OK) {
      event = kind;
      status = static_cast<std::uint64_t>(CountersStatus::kAvailable);
      note.clear();
      return;
    }
    PAPI_remove_event(event_set, code);
  }
  note = std::string("no PAPI cache-miss preset can be counted here (") + PAPI_strerror(rc) + ")";
  PAPI_destroy_eventset(&event_set);
  event_set = PAPI_NULL;
}

void papi_sample() noexcept {
  if (status.load(std::memory_order_relaxed) !=
      static_cast<std::uint64_t>(CountersStatus::kAvailable))
    return;
  long long v = 0;
  if (PAPI_read(event_set, &v) == PAPI_OK && v >= 0)
    value.store(static_cast<std::uint64_t>(v), std::memory_order_relaxed);
}

PapiReading papi_latest() noexcept {
  PapiReading r;
  r.status = static_cast<CountersStatus>(status.load(std::memory_order_relaxed));
  r.event = r.status == CountersStatus::kAvailable ? event : CacheEvent::kNone;
  r.value = value.load(std::memory_order_relaxed);
  return r;
}

const std::string& papi_note() noexcept { return note; }

void papi_stop() noexcept {
  if (event_set == PAPI_NULL) return;
  long long v = 0;
  PAPI_stop(event_set, &v);
  PAPI_cleanup_eventset(event_set);
  PAPI_destroy_eventset(&event_set);
  event_set = PAPI_NULL;
}

}  // namespace symmer::shim
