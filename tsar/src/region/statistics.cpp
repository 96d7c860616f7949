// SPDX-License-Identifier: BSD-3-Clause
#include "region/statistics.hpp"

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string_view>

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

TraceContext::TraceContext(const std::string& region, const std::string& schedule,
                           const std::vector<std::string>& device_keys)
    : json_region(nlohmann::json(region).dump()), json_schedule(nlohmann::json(schedule).dump()) {
  // Names are text: quoted for CSV (RFC 4180), so a comma or a newline stays in its field.
  const auto quote = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  for (const auto& k : device_keys) {
    json_keys.push_back(nlohmann::json(k).dump());
    csv_keys.push_back(quote(k));
  }
  csv_names = quote(region) + "," + quote(schedule);
}

namespace {

// Each writes `key` (its leading brace or comma, quoted name and colon) and the value, as
// nlohmann::json's dump writes them.

template <std::integral Int>
requires(!std::same_as<Int, bool>) void put(std::string& out, std::string_view key, Int v) {
  out += key;
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

/// Doubles in the serializer's shortest round-trip form ("1.0", "1e-05"), null when not finite.
void put(std::string& out, std::string_view key, double v) {
  out += key;
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[64];  // the serializer's buffer
  out.append(buf, nlohmann::detail::to_chars(buf, buf + sizeof buf, v));
}

void put(std::string& out, std::string_view key, bool v) {
  out += key;
  out += v ? "true" : "false";
}

/// A name that needs no escaping (share modes, device kinds).
void put_name(std::string& out, std::string_view key, std::string_view name) {
  out += key;
  out += '"';
  out += name;
  out += '"';
}

/// A string already written as a JSON literal (TraceContext).
void put_literal(std::string& out, std::string_view key, std::string_view literal) {
  out += key;
  out += literal;
}

}  // namespace

std::string trial_decision_json(const std::string& region, std::int64_t pass,
                                const ParticipationTrial::Decision& decision) {
  const nlohmann::json line{{"region", region},
                            {"pass", pass},
                            {"trial",
                             {{"unit", decision.unit},
                              {"way", decision.back_in ? "back in" : "out"},
                              {"switched", decision.switched},
                              {"why", decision.why},
                              {"rounds", decision.rounds},
                              {"baseline_rounds", decision.baseline},
                              {"u", decision.u},
                              {"critical_u", decision.critical}}}};
  return line.dump() + "\n";
}

void append_pass_json(std::string& out, const TraceContext& ctx, const tsar_pass_stats& pass,
                      std::span<const tsar_device_stats> devices) {
  // The keys in nlohmann::json's (std::map's) order.
  put(out, "{\"canceled\":", pass.canceled != 0);
  put_name(out, ",\"cpu_sharing\":", share_mode_name(static_cast<ShareMode>(pass.cpu_sharing)));
  out += ",\"devices\":[";
  for (std::size_t w = 0; w < devices.size(); ++w) {
    const auto& d = devices[w];
    put(out, w == 0 ? "{\"busy_seconds\":" : ",{\"busy_seconds\":", d.busy_seconds);
    put(out, ",\"bytes_from_device\":", d.bytes_from_device);
    put(out, ",\"bytes_peer\":", d.bytes_peer);
    put(out, ",\"bytes_to_device\":", d.bytes_to_device);
    put(out, ",\"chunks\":", d.chunks);
    put_literal(out, ",\"device\":",
                w < ctx.json_keys.size() ? std::string_view(ctx.json_keys[w]) : "\"\"");
    put(out, ",\"idle_seconds\":", d.idle_seconds);
    put(out, ",\"iterations\":", d.iterations);
    put_name(out, ",\"kind\":", device_kind_name(static_cast<DeviceKind>(d.kind)));
    put(out, ",\"late\":", d.late != 0);
    put(out, ",\"retired\":", d.retired != 0);
    put(out, ",\"stolen_iterations\":", d.stolen_iterations);
    put(out, ",\"time_per_iteration\":", d.time_per_iteration);
    out += '}';
  }
  out += ']';
  put(out, ",\"n\":", pass.n);
  put(out, ",\"pass\":", pass.pass);
  put_literal(out, ",\"region\":", ctx.json_region);
  put_literal(out, ",\"schedule\":", ctx.json_schedule);
  put(out, ",\"schedule_seconds\":", pass.schedule_seconds);
  put(out, ",\"seconds\":", pass.seconds);
  put(out, ",\"sub_passes\":", pass.sub_passes);
  out += "}\n";
}

const char* csv_header() {
  return "region,schedule,pass,n,sub_passes,canceled,pass_seconds,schedule_seconds,cpu_sharing,"
         "worker,device,kind,iterations,chunks,busy_seconds,idle_seconds,time_per_iteration,"
         "retired,bytes_to_device,bytes_from_device,bytes_peer,stolen_iterations,late\n";
}

void append_pass_csv(std::string& out, const TraceContext& ctx, const tsar_pass_stats& pass,
                     std::span<const tsar_device_stats> devices) {
  char line[512];
  for (std::size_t w = 0; w < devices.size(); ++w) {
    const auto& d = devices[w];
    std::snprintf(line, sizeof line,
                  ",%lld,%lld,%d,%d,%.9g,%.9g,%s,%zu,%s,%s,%lld,%lld,%.9g,%.9g,%.9g,%d,%lld,%lld,%"
                  "lld,%lld,%d\n",
                  static_cast<long long>(pass.pass), static_cast<long long>(pass.n),
                  pass.sub_passes, pass.canceled, pass.seconds, pass.schedule_seconds,
                  share_mode_name(static_cast<ShareMode>(pass.cpu_sharing)), w,
                  w < ctx.csv_keys.size() ? ctx.csv_keys[w].c_str() : "\"\"",
                  device_kind_name(static_cast<DeviceKind>(d.kind)),
                  static_cast<long long>(d.iterations), static_cast<long long>(d.chunks),
                  d.busy_seconds, d.idle_seconds, d.time_per_iteration, d.retired,
                  static_cast<long long>(d.bytes_to_device),
                  static_cast<long long>(d.bytes_from_device), static_cast<long long>(d.bytes_peer),
                  static_cast<long long>(d.stolen_iterations), d.late);
    out += ctx.csv_names;
    out += line;
  }
}

bool is_csv_path(const std::string& path) {
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
}

}  // namespace tsar::core
