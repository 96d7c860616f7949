// SPDX-License-Identifier: BSD-3-Clause
#include "region/statistics.hpp"

#include <nlohmann/json.hpp>

#include "devices/device.hpp"
#include "schedule/share_probe.hpp"

namespace tsar::core {

Statistics::Statistics(int workers)
    : workers_(workers),
      passes_(static_cast<std::size_t>(kKeep)),
      devices_(static_cast<std::size_t>(kKeep * workers)) {}

tsar_pass_stats& Statistics::pass_slot(std::int64_t pass) { return passes_[index(pass)]; }

std::span<tsar_device_stats> Statistics::device_slots(std::int64_t pass) {
  return {devices_.data() + index(pass) * static_cast<std::size_t>(workers_),
          static_cast<std::size_t>(workers_)};
}

const tsar_pass_stats& Statistics::pass(std::int64_t pass) const { return passes_[index(pass)]; }

std::span<const tsar_device_stats> Statistics::devices(std::int64_t pass) const {
  return {devices_.data() + index(pass) * static_cast<std::size_t>(workers_),
          static_cast<std::size_t>(workers_)};
}

std::string pass_to_json(const TraceContext& ctx, const tsar_pass_stats& pass,
                         std::span<const tsar_device_stats> devices) {
  nlohmann::json j;
  j["region"] = ctx.region;
  j["schedule"] = ctx.schedule;
  j["pass"] = pass.pass;
  j["n"] = pass.n;
  j["sub_passes"] = pass.sub_passes;
  j["canceled"] = pass.canceled != 0;
  j["seconds"] = pass.seconds;
  j["schedule_seconds"] = pass.schedule_seconds;
  j["cpu_sharing"] = share_mode_name(static_cast<ShareMode>(pass.cpu_sharing));
  auto& list = j["devices"] = nlohmann::json::array();
  for (std::size_t w = 0; w < devices.size(); ++w) {
    const auto& d = devices[w];
    list.push_back({{"device", w < ctx.device_keys.size() ? ctx.device_keys[w] : ""},
                    {"kind", device_kind_name(static_cast<DeviceKind>(d.kind))},
                    {"iterations", d.iterations},
                    {"chunks", d.chunks},
                    {"busy_seconds", d.busy_seconds},
                    {"idle_seconds", d.idle_seconds},
                    {"time_per_iteration", d.time_per_iteration},
                    {"retired", d.retired != 0},
                    {"bytes_to_device", d.bytes_to_device},
                    {"bytes_from_device", d.bytes_from_device},
                    {"bytes_peer", d.bytes_peer},
                    {"stolen_iterations", d.stolen_iterations}});
  }
  return j.dump() + "\n";
}

const char* csv_header() {
  return "region,schedule,pass,n,sub_passes,canceled,pass_seconds,schedule_seconds,cpu_sharing,"
         "worker,device,kind,iterations,chunks,busy_seconds,idle_seconds,time_per_iteration,"
         "retired,bytes_to_device,bytes_from_device,bytes_peer,stolen_iterations\n";
}

std::string pass_to_csv(const TraceContext& ctx, const tsar_pass_stats& pass,
                        std::span<const tsar_device_stats> devices) {
  std::string out;
  char line[512];
  for (std::size_t w = 0; w < devices.size(); ++w) {
    const auto& d = devices[w];
    std::snprintf(
        line, sizeof line,
        ",%lld,%lld,%d,%d,%.9g,%.9g,%s,%zu,%s,%s,%lld,%lld,%.9g,%.9g,%.9g,%d,%lld,%lld,%lld,%lld\n",
        static_cast<long long>(pass.pass), static_cast<long long>(pass.n), pass.sub_passes,
        pass.canceled, pass.seconds, pass.schedule_seconds,
        share_mode_name(static_cast<ShareMode>(pass.cpu_sharing)), w,
        w < ctx.device_keys.size() ? ctx.device_keys[w].c_str() : "",
        device_kind_name(static_cast<DeviceKind>(d.kind)), static_cast<long long>(d.iterations),
        static_cast<long long>(d.chunks), d.busy_seconds, d.idle_seconds, d.time_per_iteration,
        d.retired, static_cast<long long>(d.bytes_to_device),
        static_cast<long long>(d.bytes_from_device), static_cast<long long>(d.bytes_peer),
        static_cast<long long>(d.stolen_iterations));
    // Region and schedule names are user text: quote them for CSV.
    const auto quote = [](const std::string& s) {
      std::string q = "\"";
      for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
      return q + "\"";
    };
    out += quote(ctx.region) + "," + quote(ctx.schedule) + line;
  }
  return out;
}

bool is_csv_path(const std::string& path) {
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
}

}  // namespace tsar::core
