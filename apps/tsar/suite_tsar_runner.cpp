// SPDX-License-Identifier: BSD-3-Clause
#include "suite_tsar_runner.hpp"

#include <algorithm>
#include <utility>

namespace tsar::suite {
namespace {

bool is_chunk_schedule(const std::string& schedule) {
  const std::string family = schedule.substr(0, schedule.find(':'));
  return family == "chunk" || family == "chunk-static" || family == "chunk-dynamic" ||
         family == "hybrid";
}

bool has_own_memory(unsigned kind) {
  return kind == TSAR_DEVICE_OMP_TARGET || kind == TSAR_DEVICE_CUDA;
}

}  // namespace

std::vector<tsar_device_info> tsar_devices(const std::string& devices) {
  set_devices(devices);
  Region probe("tsar-suite.devices", "static");
  std::vector<tsar_device_info> out;
  for (int d = 0; d < probe.num_devices(); ++d) out.push_back(probe.device(d));
  return out;
}

TsarRunner::TsarRunner(std::string name, std::string schedule, std::string devices, int chunks,
                       std::string region_prefix)
    : name_(std::move(name)),
      schedule_(std::move(schedule)),
      devices_(std::move(devices)),
      region_prefix_(std::move(region_prefix)),
      chunks_(chunks) {}

TsarRunner::~TsarRunner() = default;

void TsarRunner::begin(kernels::Kernel& kernel) {
  regions_.clear();
  regions_.resize(kernel.loops().size());
  loop_names_.clear();
  for (const auto& loop : kernel.loops()) loop_names_.push_back(loop.name);
}

TsarRunner::LoopRegion TsarRunner::make_region(const kernels::Loop& loop, std::int64_t n) const {
  std::string schedule = schedule_;
  if (is_chunk_schedule(schedule) && schedule.find(':') == std::string::npos)
    schedule += ":" + std::to_string(std::max<std::int64_t>(1, (n + chunks_ - 1) / chunks_));
  set_devices(devices_);
  // Loops without an offload body may only use devices that compute on host memory; loops
  // without a CUDA body, no CUDA device.
  const unsigned kinds = !loop.offload ? (TSAR_DEVICE_CPU | TSAR_DEVICE_EMULATED)
                         : loop.cuda   ? TSAR_DEVICE_ALL
                                       : (TSAR_DEVICE_ALL & ~TSAR_DEVICE_CUDA);
  LoopRegion lr;
  lr.region =
      std::make_unique<Region>(RegionOptions{region_prefix_ + loop.name, schedule, kinds, {}, 0});
  bool copies = false;
  for (int d = 0; d < lr.region->num_devices(); ++d)
    copies = copies || has_own_memory(lr.region->device(d).kind);
  if (copies) {
    for (const auto& b : loop.buffers) {
      if (tsar_reg_mem_desc(lr.region->handle(), b.host, &b.desc) != TSAR_OK)
        throw Error(tsar_last_status(), loop.name + " buffer " + b.name + ": " + tsar_last_error());
    }
  }
  return lr;
}

void TsarRunner::parallel(const kernels::Loop& loop, std::int64_t n) {
  auto& slot = regions_[static_cast<std::size_t>(loop.index)];
  if (!slot.region) slot = make_region(loop, n);
  tsar_region* handle = slot.region->handle();
  const kernels::Translate translate = [handle](const void* host) {
    return tsar_mem(handle, host);
  };
  slot.region->parallel_for(n, [&](const Chunk& c) {
    if (c.kind() == DeviceKind::omp_target)
      loop.offload(c.begin(), c.end(), c.omp_device(), translate);
    else if (c.kind() == DeviceKind::cuda)
      loop.cuda(c.begin(), c.end(), c.stream(), translate);
    else
      loop.host(c.begin(), c.end());
  });
}

void TsarRunner::end() {
  collect();
  split_ = nlohmann::json::object();
  for (std::size_t i = 0; i < regions_.size(); ++i)
    if (regions_[i].region && regions_[i].region->passes() > 0)
      split_[loop_names_[i]] = regions_[i].region->split();
  regions_.clear();
}

void TsarRunner::collect() {
  for (auto& lr : regions_) {
    if (!lr.region) continue;
    const std::int64_t passes = lr.region->passes();
    for (std::int64_t p = std::max(lr.passes_taken, passes - 4096); p < passes; ++p) {
      const auto s = lr.region->pass_stats(p);
      ++pending_.passes;
      pending_.pass_seconds += s.pass.seconds;
      pending_.schedule_seconds += s.pass.schedule_seconds;
      for (const auto& d : s.devices) {
        pending_.idle_seconds += d.idle_seconds;
        pending_.busy_seconds += d.busy_seconds;
        pending_.bytes_to_device += static_cast<double>(d.bytes_to_device);
        pending_.bytes_from_device += static_cast<double>(d.bytes_from_device);
      }
    }
    lr.passes_taken = passes;
  }
}

PassTotals TsarRunner::take_totals() {
  collect();
  return std::exchange(pending_, PassTotals{});
}

}  // namespace tsar::suite
