// SPDX-License-Identifier: BSD-3-Clause
// The trace's lines (statistics.hpp) are the bytes the nlohmann::json / snprintf code they
// replaced wrote for the same pass: that code is kept here as the reference.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "devices/device.hpp"
#include "region/statistics.hpp"
#include "schedule/share_probe.hpp"

namespace {

using tsar::core::DeviceKind;
using tsar::core::ShareMode;

struct Names {
  std::string region, schedule;
  std::vector<std::string> device_keys;
};

// The writers before the trace was queued (commit a2618ed), verbatim but for the names.
std::string reference_json(const Names& ctx, const tsar_pass_stats& pass,
                           const std::vector<tsar_device_stats>& devices) {
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
                    {"stolen_iterations", d.stolen_iterations},
                    {"late", d.late != 0}});
  }
  return j.dump() + "\n";
}

std::string reference_csv(const Names& ctx, const tsar_pass_stats& pass,
                          const std::vector<tsar_device_stats>& devices) {
  std::string out;
  char line[512];
  for (std::size_t w = 0; w < devices.size(); ++w) {
    const auto& d = devices[w];
    std::snprintf(line, sizeof line,
                  ",%lld,%lld,%d,%d,%.9g,%.9g,%s,%zu,%s,%s,%lld,%lld,%.9g,%.9g,%.9g,%d,%lld,%lld,%"
                  "lld,%lld,%d\n",
                  static_cast<long long>(pass.pass), static_cast<long long>(pass.n),
                  pass.sub_passes, pass.canceled, pass.seconds, pass.schedule_seconds,
                  share_mode_name(static_cast<ShareMode>(pass.cpu_sharing)), w,
                  w < ctx.device_keys.size() ? ctx.device_keys[w].c_str() : "",
                  device_kind_name(static_cast<DeviceKind>(d.kind)),
                  static_cast<long long>(d.iterations), static_cast<long long>(d.chunks),
                  d.busy_seconds, d.idle_seconds, d.time_per_iteration, d.retired,
                  static_cast<long long>(d.bytes_to_device),
                  static_cast<long long>(d.bytes_from_device), static_cast<long long>(d.bytes_peer),
                  static_cast<long long>(d.stolen_iterations), d.late);
    const auto quote = [](const std::string& s) {
      std::string q = "\"";
      for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
      return q + "\"";
    };
    out += quote(ctx.region) + "," + quote(ctx.schedule) + line;
  }
  return out;
}

/// Doubles of every kind: times as passes have them, integers, extremes, not finite.
class Doubles {
 public:
  double next() {
    const auto i = count_++;
    if (i < kFixed.size()) return kFixed[i];
    switch (rng_() % 3) {
      case 0:  // any bits: any exponent, subnormals, NaNs
        return std::bit_cast<double>(static_cast<std::uint64_t>(rng_()));
      case 1:  // seconds of a short pass
        return std::uniform_real_distribution<double>(0.0, 1e-4)(rng_);
      default:  // whole numbers (nlohmann writes "3.0")
        return static_cast<double>(rng_() % 100000);
    }
  }

 private:
  static constexpr std::array<double, 16> kFixed = {0.0,
                                                    -0.0,
                                                    1.0,
                                                    0.1,
                                                    1e-7,
                                                    4.217752575641498e-06,
                                                    1e15,
                                                    1e16,
                                                    1e17,
                                                    123456789.125,
                                                    std::numeric_limits<double>::denorm_min(),
                                                    std::numeric_limits<double>::max(),
                                                    std::numeric_limits<double>::lowest(),
                                                    std::numeric_limits<double>::quiet_NaN(),
                                                    std::numeric_limits<double>::infinity(),
                                                    -std::numeric_limits<double>::infinity()};
  std::size_t count_ = 0;
  std::mt19937_64 rng_{20261127};
};

std::int64_t some_int(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      return std::numeric_limits<std::int64_t>::max();
    case 1:
      return std::numeric_limits<std::int64_t>::min();
    case 2:
      return -static_cast<std::int64_t>(rng() % 1000);
    default:
      return static_cast<std::int64_t>(rng() % 100000000);
  }
}

}  // namespace

TEST(TraceFormat, LinesAreTheBytesTheJsonAndSnprintfWritersWrote) {
  const std::vector<Names> names = {
      {"gramschmidt.normalize", "adaptive", {"cpu:0", "cpu:1", "omp:0", "cuda:1"}},
      {"q\"uote\\back/slash", "chunk-dynamic:8", {"emul:0"}},  // fewer keys than devices
      {"ctl\n\t\x01\x1f\x7f", "hguided", {}},
      {"unicode \xc3\xa9\xe2\x82\xac", "split", {"\"k\"", "a,b"}},
      {"", "", {"cpu:L:3"}},
  };
  Doubles doubles;
  std::mt19937_64 rng(7);
  int lines = 0;
  for (const Names& n : names) {
    const tsar::core::TraceContext ctx(n.region, n.schedule, n.device_keys);
    for (std::size_t workers : {0, 1, 3, 16}) {
      for (int repeat = 0; repeat < 40; ++repeat) {
        tsar_pass_stats pass{};
        pass.pass = some_int(rng);
        pass.n = some_int(rng);
        pass.sub_passes = static_cast<int>(rng() % 5) - 1;
        pass.canceled = static_cast<int>(rng() % 3);
        pass.seconds = doubles.next();
        pass.schedule_seconds = doubles.next();
        pass.cpu_sharing = static_cast<int>(rng() % 4);  // 3: not a mode ("?")
        std::vector<tsar_device_stats> devices(workers);
        for (auto& d : devices) {
          d.iterations = some_int(rng);
          d.chunks = some_int(rng);
          d.busy_seconds = doubles.next();
          d.idle_seconds = doubles.next();
          d.time_per_iteration = doubles.next();
          d.kind = static_cast<unsigned>(rng() % 5);  // 4: not a kind ("?")
          d.retired = static_cast<int>(rng() % 3);
          d.bytes_to_device = some_int(rng);
          d.bytes_from_device = some_int(rng);
          d.bytes_peer = some_int(rng);
          d.stolen_iterations = some_int(rng);
          d.late = static_cast<int>(rng() % 3);
        }
        std::string json = "[before]", csv = "[before]";  // appended to
        tsar::core::append_pass_json(json, ctx, pass, devices);
        tsar::core::append_pass_csv(csv, ctx, pass, devices);
        ASSERT_EQ(json, "[before]" + reference_json(n, pass, devices)) << n.region;
        ASSERT_EQ(csv, "[before]" + reference_csv(n, pass, devices)) << n.region;
        ++lines;
      }
    }
  }
  EXPECT_EQ(lines, 5 * 4 * 40);
}

TEST(TraceFormat, NamesThatAreNotUtf8ThrowAsTheJsonWriterDid) {
  const std::string bad = "bad \xff";
  EXPECT_THROW(nlohmann::json(bad).dump(), nlohmann::json::type_error);
  EXPECT_THROW(tsar::core::TraceContext(bad, "adaptive", {}), nlohmann::json::type_error);
  EXPECT_THROW(tsar::core::TraceContext("r", "adaptive", {bad}), nlohmann::json::type_error);
}
