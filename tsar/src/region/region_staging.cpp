// SPDX-License-Identifier: BSD-3-Clause
// The copy engine around a worker's ranges on devices with their own memory (region.hpp):
// each range's data moves in and out inside the worker's timed range; a device that runs out
// of memory leaves its work to a CPU core; any other failure fails the pass, not the process.
#include <cstdio>

#include "api/error.hpp"
#include "devices/host_device.hpp"
#include "region/region.hpp"
#include "symmer/topology/cpu_list.hpp"

namespace tsar::core {
namespace {

/// The pass's status for a failed copy: a TSAR error's own (TSAR_CHECK's TSAR_ERR_STATE, say),
/// TSAR_ERR_SYSTEM for anything else.
int status_of(const std::exception& e) {
  const auto* error = dynamic_cast<const Error*>(&e);
  return error != nullptr ? error->status() : TSAR_ERR_SYSTEM;
}

}  // namespace

void Region::guard_memory(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    // The planner's copies failed: the pass runs nothing and reports the device's error.
    if (!device_failed_.exchange(true, std::memory_order_acq_rel)) {
      device_failure_ = e.what();
      device_failure_status_ = status_of(e);
    }
    stop_dispatch();
  }
}

void Region::exchange_resident_rows() {
  guard_memory([&] {
    engine_.exchange(memory_,
                     plan_.chunked ? std::span<const Range>{} : std::span<const Range>(ranges_));
  });
}

std::int64_t Region::write_back(const void* host) {
  if (in_pass())
    throw Error(TSAR_ERR_STATE, "registered memory cannot be synchronised during a pass");
  return memory_.find(host) != nullptr ? memory_.write_back(host) : 0;
}

void Region::stage_in(Worker& me, int worker) {
  if (me.device->description().host_memory) return;
  try {
    engine_.stage_in(memory_, reductions_, worker, me.device, me.current);
  } catch (const DeviceOutOfMemory& e) {
    lose_device(me, worker, e.what());
  } catch (const std::exception& e) {
    fail_device(me, me.device->description().key + ": " + e.what(), status_of(e));
  }
}

void Region::stage_out(Worker& me, int worker) {
  try {
    // Accelerators run one range per (sub-)pass unless the plan hands out chunks.
    engine_.stage_out(memory_, reductions_, worker, *me.device, me.current, !plan_.chunked);
  } catch (const std::exception& e) {
    fail_device(me, me.device->description().key + ": " + e.what(), status_of(e));
  }
}

void Region::collect(Worker& me, int worker) {
  if (me.device->description().host_memory) return;
  try {
    engine_.collect_reductions(reductions_, worker, *me.device);
  } catch (const std::exception& e) {
    fail_device(me, me.device->description().key + ": " + e.what(), status_of(e));
  }
}

void Region::lose_device(Worker& me, int worker, const std::string& why) {
  const std::string key = me.device->description().key;
  const int core = me.device->description().control_core;
  engine_.abandon_device(memory_, reductions_, worker, *me.device);
  me.lost_device = true;
  if ((kinds_ & TSAR_DEVICE_CPU) == 0 || core < 0) {
    fail_device(me, why + " (the region allows no CPU device to take over its work)",
                TSAR_ERR_SYSTEM);
    return;
  }
  // Like back-off: the worker goes on as a CPU worker on the core that drove the device,
  // starting with the range it could not stage.
  std::fprintf(stderr,
               "tsar: region '%s': %s; %s is retired for this region and its work continues on "
               "CPUs %s (core L:%d)\n",
               name_.c_str(), why.c_str(), key.c_str(),
               symmer::topology::format_cpu_list(me.device->description().cpus).c_str(), core);
  me.device = make_cpu_core(runtime_->node(), core, me.device->description().cpus);
  device_changes_.fetch_add(1, std::memory_order_relaxed);  // read by the leader after the barrier
  bind_device(me);
}

void Region::fail_device(Worker& me, const std::string& why, int status) {
  if (!device_failed_.exchange(true, std::memory_order_acq_rel)) {
    device_failure_ = why;
    device_failure_status_ = status;
  }
  me.error = status;
  me.current = {};
  set_last_error(me.error, why);
  stop_dispatch();
}

}  // namespace tsar::core
