// SPDX-License-Identifier: BSD-3-Clause
#include "devices/device.hpp"

#include <pthread.h>
#include <sched.h>

#include <charconv>
#include <cstring>
#include <string>

#include "devices/link_speed.hpp"
#include "symmer/topology/node_model.hpp"

namespace tsar::core {

cpu_set_t Device::worker_cpus(const symmer::topology::NodeModel& node) const {
  const auto& d = description_;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (!d.cpus.empty()) {
    for (int cpu : d.cpus) CPU_SET(cpu, &set);
    return set;
  }
  const auto add = [&](int core) {
    for (int pu : node.cores().at(static_cast<std::size_t>(core)).pus) CPU_SET(pu, &set);
  };
  // A team's worker may run on every core of it, so nested parallelism spreads over them.
  if (d.cores.size() > 1)
    for (int core : d.cores) add(core);
  else
    add(d.control_core);
  return set;
}

void Device::bind_worker(const symmer::topology::NodeModel& node) const {
  const cpu_set_t set = worker_cpus(node);
  if (int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set); rc != 0)
    throw Error(TSAR_ERR_SYSTEM,
                "binding the worker of " + description_.key + ": " + std::strerror(rc));
}

void* Device::allocate(std::size_t bytes) {
  const std::size_t limit = description_.memory_limit;
  std::size_t held = allocated_.load(std::memory_order_relaxed);
  do {
    if (limit != 0 && (bytes > limit || held > limit - bytes))
      throw DeviceOutOfMemory(description_.key + ": allocating " + std::to_string(bytes) +
                              " bytes would pass its TSAR_DEVICE_MEMORY_LIMIT of " +
                              std::to_string(limit) + " bytes (" + std::to_string(held) + " held)");
  } while (!allocated_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
  try {
    return allocate_memory(bytes);
  } catch (...) {
    allocated_.fetch_sub(bytes, std::memory_order_relaxed);
    throw;
  }
}

void Device::copy_peer(Device& to, void*, const void*, std::size_t) {
  throw Error(TSAR_ERR_UNSUPPORTED,
              description_.key + " cannot copy into " + to.description().key + " directly");
}

void Device::release(void* device_ptr, std::size_t bytes) noexcept {
  if (device_ptr == nullptr) return;
  release_memory(device_ptr);
  allocated_.fetch_sub(bytes, std::memory_order_relaxed);
}

namespace {

std::size_t parse_bytes(std::string_view variable, std::string_view entry, std::string_view text) {
  const auto bad = [&] {
    return Error(TSAR_ERR_DEVICES, std::string(variable) + " entry '" + std::string(entry) +
                                       "': expected BYTES or KEY=BYTES, BYTES a number with an "
                                       "optional K, M or G suffix");
  };
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) throw bad();
  std::string_view suffix(end, static_cast<std::size_t>(text.data() + text.size() - end));
  int shift = 0;
  if (suffix == "K" || suffix == "k")
    shift = 10;
  else if (suffix == "M" || suffix == "m")
    shift = 20;
  else if (suffix == "G" || suffix == "g")
    shift = 30;
  else if (!suffix.empty())
    throw bad();
  if (shift != 0 && value > (SIZE_MAX >> shift)) throw bad();
  return value << shift;
}

}  // namespace

void Device::calibrate_link() {
  std::call_once(link_once_, [this] {
    if (description_.host_memory) return;
    const LinkSpeed link = known_link(*this, link_bandwidth_ == 0);
    link_seconds_per_byte_ =
        link_bandwidth_ > 0 ? 1.0 / static_cast<double>(link_bandwidth_) : link.seconds_per_byte;
    link_latency_ = link.latency;
  });
}

double Device::link_seconds_per_byte() {
  calibrate_link();
  return link_seconds_per_byte_;
}

double Device::link_latency() {
  calibrate_link();
  return link_latency_;
}

std::size_t per_device_bytes(std::string_view variable, std::string_view spec,
                             std::string_view key) {
  std::size_t every = 0, mine = 0;
  bool have_mine = false;
  while (!spec.empty()) {
    const std::size_t comma = spec.find(',');
    std::string_view entry = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
    while (!entry.empty() && entry.front() == ' ') entry.remove_prefix(1);
    while (!entry.empty() && entry.back() == ' ') entry.remove_suffix(1);
    if (entry.empty()) continue;
    if (const std::size_t eq = entry.find('='); eq != std::string_view::npos) {
      const std::size_t bytes = parse_bytes(variable, entry, entry.substr(eq + 1));
      if (entry.substr(0, eq) == key) {
        mine = bytes;
        have_mine = true;
      }
    } else {
      every = parse_bytes(variable, entry, entry);
    }
  }
  return have_mine ? mine : every;
}

}  // namespace tsar::core
