// SPDX-License-Identifier: BSD-3-Clause
// The trace's lines (statistics.hpp): a JSON line is the bytes nlohmann::json writes for the
// pass (the code the writer replaced, kept here as the reference); a CSV line, read back by an
// RFC 4180 reader, gives the pass's fields: the names as they were, the numbers to the nine
// significant digits the format promises.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

/// The records of RFC 4180 text: fields split at commas and line ends outside quotes, quoted
/// fields unquoted ("" is a quote).
std::vector<std::vector<std::string>> read_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      fields.push_back(std::move(field));
      field.clear();
      records.push_back(std::move(fields));
      fields.clear();
    } else {
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << "an unterminated quote";
  EXPECT_TRUE(field.empty() && fields.empty()) << "text after the last line end";
  return records;
}

/// Whether `text` reads as `value` written with nine significant digits.
::testing::AssertionResult reads_as(const std::string& text, double value) {
  char* end = nullptr;
  const double read = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size())
    return ::testing::AssertionFailure() << "'" << text << "' is not a number";
  const bool same = std::isnan(value)   ? std::isnan(read)
                    : std::isinf(value) ? read == value
                                        : std::abs(read - value) <= 5e-9 * std::abs(value) &&
                                              std::signbit(read) == std::signbit(value);
  if (same) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' reads as " << read << ", not " << value;
}

/// The columns expect_csv reads, in order.
const std::vector<std::string> kCsvColumns = {"region",
                                              "schedule",
                                              "pass",
                                              "n",
                                              "sub_passes",
                                              "canceled",
                                              "pass_seconds",
                                              "schedule_seconds",
                                              "cpu_sharing",
                                              "worker",
                                              "device",
                                              "kind",
                                              "iterations",
                                              "chunks",
                                              "busy_seconds",
                                              "idle_seconds",
                                              "time_per_iteration",
                                              "retired",
                                              "bytes_to_device",
                                              "bytes_from_device",
                                              "bytes_peer",
                                              "stolen_iterations",
                                              "late"};

/// Checks that `records` are the CSV lines of `pass` on `devices` (columns kCsvColumns).
void expect_csv(const std::vector<std::vector<std::string>>& records, const Names& ctx,
                const tsar_pass_stats& pass, const std::vector<tsar_device_stats>& devices) {
  ASSERT_EQ(records.size(), devices.size());
  const auto integer = [](const std::string& f) { return std::stoll(f); };
  for (std::size_t w = 0; w < devices.size(); ++w) {
    const auto& r = records[w];
    const auto& d = devices[w];
    ASSERT_EQ(r.size(), 23u) << "record " << w;
    EXPECT_EQ(r[0], ctx.region);
    EXPECT_EQ(r[1], ctx.schedule);
    EXPECT_EQ(integer(r[2]), pass.pass);
    EXPECT_EQ(integer(r[3]), pass.n);
    EXPECT_EQ(integer(r[4]), pass.sub_passes);
    EXPECT_EQ(integer(r[5]), pass.canceled);
    EXPECT_TRUE(reads_as(r[6], pass.seconds));
    EXPECT_TRUE(reads_as(r[7], pass.schedule_seconds));
    EXPECT_EQ(r[8], share_mode_name(static_cast<ShareMode>(pass.cpu_sharing)));
    EXPECT_EQ(integer(r[9]), static_cast<long long>(w));
    EXPECT_EQ(r[10], w < ctx.device_keys.size() ? ctx.device_keys[w] : "");
    EXPECT_EQ(r[11], device_kind_name(static_cast<DeviceKind>(d.kind)));
    EXPECT_EQ(integer(r[12]), d.iterations);
    EXPECT_EQ(integer(r[13]), d.chunks);
    EXPECT_TRUE(reads_as(r[14], d.busy_seconds));
    EXPECT_TRUE(reads_as(r[15], d.idle_seconds));
    EXPECT_TRUE(reads_as(r[16], d.time_per_iteration));
    EXPECT_EQ(integer(r[17]), d.retired);
    EXPECT_EQ(integer(r[18]), d.bytes_to_device);
    EXPECT_EQ(integer(r[19]), d.bytes_from_device);
    EXPECT_EQ(integer(r[20]), d.bytes_peer);
    EXPECT_EQ(integer(r[21]), d.stolen_iterations);
    EXPECT_EQ(integer(r[22]), d.late);
  }
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

TEST(TraceFormat, JsonLinesAreTheJsonWritersBytesAndCsvLinesReadBackAsThePass) {
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
        std::string json = "[before]", csv;  // appended to
        tsar::core::append_pass_json(json, ctx, pass, devices);
        tsar::core::append_pass_csv(csv, ctx, pass, devices);
        ASSERT_EQ(json, "[before]" + reference_json(n, pass, devices)) << n.region;
        expect_csv(read_csv(csv), n, pass, devices);
        if (::testing::Test::HasFailure()) FAIL() << n.region << ": " << csv;
        ++lines;
      }
    }
  }
  EXPECT_EQ(lines, 5 * 4 * 40);
}

TEST(TraceFormat, TheCsvHeaderNamesTheColumnsTheLinesHave) {
  const auto header = read_csv(tsar::core::csv_header());
  ASSERT_EQ(header.size(), 1u);
  EXPECT_EQ(header[0], kCsvColumns);
}

TEST(TraceFormat, NamesThatAreNotUtf8ThrowAsTheJsonWriterDid) {
  const std::string bad = "bad \xff";
  EXPECT_THROW(nlohmann::json(bad).dump(), nlohmann::json::type_error);
  EXPECT_THROW(tsar::core::TraceContext(bad, "adaptive", {}), nlohmann::json::type_error);
  EXPECT_THROW(tsar::core::TraceContext("r", "adaptive", {bad}), nlohmann::json::type_error);
}
