// SPDX-License-Identifier: BSD-3-Clause
#include "cache/time_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tsar::core {
namespace {

std::string entry_key(const std::string& region, const std::vector<std::string>& devices) {
  std::string key = region + "@";
  for (std::size_t i = 0; i < devices.size(); ++i) key += (i ? "," : "") + devices[i];
  return key;
}

/// Reads the cache file; an absent file is an empty cache, a damaged one is reported.
nlohmann::json read_cache(const std::string& path, std::string* problem) {
  std::ifstream in(path);
  if (!in) return nlohmann::json::object();
  try {
    nlohmann::json j = nlohmann::json::parse(in);
    if (!j.is_object() || !j.contains("entries") || !j["entries"].is_object())
      throw std::runtime_error("no \"entries\" object");
    return j;
  } catch (const std::exception& e) {
    *problem = std::string("TSAR_CACHE file ") + path + " is damaged (" + e.what() + ")";
    return nlohmann::json::object();
  }
}

class FileLock {
 public:
  explicit FileLock(const std::string& path)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

std::string now_iso() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buf[32];
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::optional<std::vector<double>> load_cached_times(const std::string& path,
                                                     const std::string& region,
                                                     const std::vector<std::string>& devices) {
  std::string problem;
  const nlohmann::json j = read_cache(path, &problem);
  if (!problem.empty()) {
    std::fprintf(stderr, "tsar: %s; ignoring it\n", problem.c_str());
    return std::nullopt;
  }
  if (!j.contains("entries")) return std::nullopt;
  const auto it = j["entries"].find(entry_key(region, devices));
  if (it == j["entries"].end()) return std::nullopt;
  const auto& times = (*it)["time_per_iteration"];
  if (!times.is_array() || times.size() != devices.size()) return std::nullopt;
  std::vector<double> out;
  for (const auto& t : times) {
    if (!t.is_number()) return std::nullopt;
    const double v = t.get<double>();
    out.push_back(v > 0.0 && std::isfinite(v) ? v : 0.0);
  }
  return out;
}

std::string store_cached_times(const std::string& path, const std::string& region,
                               const std::vector<std::string>& devices,
                               const std::vector<double>& times) {
  FileLock lock(path + ".lock");
  if (!lock.ok()) return "TSAR_CACHE: cannot create " + path + ".lock: " + std::strerror(errno);
  std::string problem;
  nlohmann::json j = read_cache(path, &problem);  // a damaged file is replaced
  if (!j.contains("entries")) j = {{"version", 1}, {"entries", nlohmann::json::object()}};
  auto& entry = j["entries"][entry_key(region, devices)];
  std::vector<double> merged = times;
  if (entry.contains("time_per_iteration") && entry["time_per_iteration"].is_array() &&
      entry["time_per_iteration"].size() == times.size()) {
    for (std::size_t i = 0; i < merged.size(); ++i)
      if (!(merged[i] > 0.0) && entry["time_per_iteration"][i].is_number())
        merged[i] = entry["time_per_iteration"][i].get<double>();
  }
  entry = {{"region", region},
           {"devices", devices},
           {"time_per_iteration", merged},
           {"updated", now_iso()}};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << j.dump(2) << "\n";
    if (!out) return "TSAR_CACHE: cannot write " + tmp;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return "TSAR_CACHE: cannot replace " + path + ": " + why;
  }
  return "";
}

}  // namespace tsar::core
