// SPDX-License-Identifier: BSD-3-Clause
// symmerd.toml (see daemon_config.hpp).
#include "daemon_config.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>

#include "private_directory.hpp"
#include "symmer/topology/cpu_list.hpp"

#ifndef SYMMER_SYSCONFDIR
#define SYMMER_SYSCONFDIR "/etc"
#endif

namespace symmer::daemon {
namespace {

// How a value looks in messages: as written in TOML.
std::string shown(const toml::node& node) {
  std::ostringstream s;
  node.visit([&s](const auto& v) {
    if constexpr (toml::is_string<decltype(v)>)
      s << '"' << v.get() << '"';
    else if constexpr (toml::is_table<decltype(v)>)
      s << "{...}";
    else
      s << v;
  });
  return s.str();
}

// Parses a Linux CPU list ("0-3,8"); "" on success, else what is wrong.
std::string parse_cpu_list(std::string_view text, std::set<int>& out) {
  const auto cpus = topology::parse_cpu_list(text);
  if (!cpus) return cpus.error().message;
  out.insert(cpus->begin(), cpus->end());
  return "";
}

// The Linux CPUs of `cpus` as logical cores; every CPU must be on the node, and every core
// must be listed whole (a core shared half with someone else cannot hold a rank alone).
std::string cores_of(const std::set<int>& cpus, const topology::NodeModel& node,
                     std::vector<int>& out) {
  std::set<int> seen;
  for (int cpu : cpus) {
    const int core = node.core_of_pu(cpu);
    if (core < 0) return "CPU " + std::to_string(cpu) + " is not a CPU this daemon may use";
    seen.insert(core);
  }
  for (int core : seen)
    for (int pu : node.cores()[static_cast<std::size_t>(core)].pus)
      if (cpus.count(pu) == 0)
        return "CPU " + std::to_string(pu) + " is missing: list whole cores (core L:" +
               std::to_string(core) + " has CPUs " +
               topology::format_cpu_list(node.cores()[static_cast<std::size_t>(core)].pus) + ")";
  out.assign(seen.begin(), seen.end());
  return "";
}

std::string existing_directory(const std::string& path, bool writable) {
  std::error_code ec;
  if (path.empty() || path.front() != '/') return "expected an absolute path";
  if (!std::filesystem::is_directory(path, ec)) return "not an existing directory";
  if (writable && ::access(path.c_str(), W_OK) != 0) return "not writable by this user";
  return "";
}

struct DaemonKey {
  const char* name;
  // Sets the key from a TOML value; returns what is wrong ("" when fine).
  std::function<std::string(DaemonConfig&, const toml::node&, const topology::NodeModel&)> set;
};

const std::vector<DaemonKey>& daemon_keys() {
  static const std::vector<DaemonKey> keys = {
      {"socket",
       [](DaemonConfig& c, const toml::node& v, const topology::NodeModel&) -> std::string {
         const auto* s = v.as_string();
         if (s == nullptr) return "expected a string";
         if (s->get().empty()) return "";  // the default
         if (s->get().front() != '/') return "expected an absolute path";
         if (s->get().size() >= 100) return "longer than a Unix socket path may be (107)";
         const auto parent = std::filesystem::path(s->get()).parent_path().parent_path();
         std::error_code ec;
         if (!std::filesystem::is_directory(parent, ec))
           return "its parent's parent " + parent.string() + " does not exist";
         c.socket = s->get();
         return "";
       }},
      {"log_level",
       [](DaemonConfig& c, const toml::node& v, const topology::NodeModel&) -> std::string {
         const auto* s = v.as_string();
         const std::string t = s ? s->get() : "";
         const std::pair<const char*, LogLevel> levels[] = {{"trace", LogLevel::kTrace},
                                                            {"debug", LogLevel::kDebug},
                                                            {"info", LogLevel::kInfo},
                                                            {"warn", LogLevel::kWarn},
                                                            {"error", LogLevel::kError}};
         for (const auto& [name, level] : levels)
           if (t == name) {
             c.log_level = level;
             return "";
           }
         return "expected trace, debug, info, warn or error";
       }},
      {"cores",
       [](DaemonConfig& c, const toml::node& v, const topology::NodeModel& node) -> std::string {
         std::set<int> cpus;
         if (const auto* s = v.as_string()) {
           if (s->get() == "all") {
             c.cores.clear();
             return "";
           }
           if (s->get().rfind("L:", 0) == 0) {  // logical cores, whole by construction
             auto cores = topology::parse_core_selection(s->get(), node);
             if (!cores) return cores.error().message;
             c.cores = std::move(*cores);
             return "";
           }
           if (auto e = parse_cpu_list(s->get(), cpus); !e.empty()) return e;
         } else if (const auto* a = v.as_array()) {
           for (const auto& e : *a) {
             const auto* i = e.as_integer();
             if (i == nullptr || i->get() < 0 || i->get() > topology::kMaxCpuNumber)
               return "expected Linux CPU numbers (0.." + std::to_string(topology::kMaxCpuNumber) +
                      ")";
             cpus.insert(static_cast<int>(i->get()));
           }
           if (cpus.empty()) return "no CPU listed";
         } else {
           return "expected \"all\", a Linux CPU list such as \"0-3,8\", logical cores such as "
                  "\"L:0-1\", or an array of Linux CPUs";
         }
         return cores_of(cpus, node, c.cores);
       }},
      {"segment_dir",
       [](DaemonConfig& c, const toml::node& v, const topology::NodeModel&) -> std::string {
         const auto* s = v.as_string();
         if (s == nullptr) return "expected a string";
         if (s->get().empty()) return "";
         if (auto e = existing_directory(s->get(), false); !e.empty()) return e;
         c.segment_dir = s->get();
         return "";
       }},
      {"decision_log_dir",
       [](DaemonConfig& c, const toml::node& v, const topology::NodeModel&) -> std::string {
         const auto* s = v.as_string();
         if (s == nullptr) return "expected a string";
         if (s->get().empty()) return "";
         if (auto e = existing_directory(s->get(), true); !e.empty()) return e;
         // Logs are named after users' segments: nobody else may put a link in their way.
         if (auto dir = open_private_directory(s->get(), ::geteuid()); !dir)
           return dir.error().message;
         c.decision_log_dir = s->get();
         return "";
       }},
      {"coschedule",
       [](DaemonConfig& c, const toml::node& v, const topology::NodeModel&) -> std::string {
         const auto* b = v.as_boolean();
         if (b == nullptr) return "expected true or false";
         c.coschedule = b->get();
         return "";
       }},
      {"nic_bytes_per_s",
       [](DaemonConfig& c, const toml::node& v, const topology::NodeModel&) -> std::string {
         const auto d = v.value<double>();
         if (!d || !std::isfinite(*d) || *d < 0 || *d > 1e13)
           return "expected a number of bytes per second in [0, 1e13]";
         c.nic_bytes_per_s = *d;
         return "";
       }},
      {"nic_wait_saving",
       [](DaemonConfig& c, const toml::node& v, const topology::NodeModel&) -> std::string {
         const auto d = v.value<double>();
         if (!d || !std::isfinite(*d) || *d < 0 || *d > 1) return "expected a share in [0, 1]";
         c.nic_wait_saving = *d;
         return "";
       }},
      {"max_segment_mib",
       [](DaemonConfig& c, const toml::node& v, const topology::NodeModel&) -> std::string {
         const auto* i = v.as_integer();
         if (i == nullptr || i->get() < 1 || i->get() > 65536)
           return "expected MiB in 1..65536 (a segment of 4096 ranks on 1024 nodes is 1 GiB)";
         c.max_segment_bytes = static_cast<std::uint64_t>(i->get()) << 20;
         return "";
       }},
      {"max_user_mib_per_period",
       [](DaemonConfig& c, const toml::node& v, const topology::NodeModel&) -> std::string {
         const auto* i = v.as_integer();
         if (i == nullptr || i->get() < 1 || i->get() > 1 << 20)
           return "expected MiB in 1..1048576";
         c.max_user_bytes_per_period = static_cast<std::uint64_t>(i->get()) << 20;
         return "";
       }},
      {"max_user_segments",
       [](DaemonConfig& c, const toml::node& v, const topology::NodeModel&) -> std::string {
         const auto* i = v.as_integer();
         if (i == nullptr || i->get() < 1 || i->get() > 65536)
           return "expected a count in 1..65536";
         c.max_user_segments = static_cast<std::size_t>(i->get());
         return "";
       }},
      {"start_paused",
       [](DaemonConfig& c, const toml::node& v, const topology::NodeModel&) -> std::string {
         const auto* b = v.as_boolean();
         if (b == nullptr) return "expected true or false";
         c.start_paused = b->get();
         return "";
       }},
  };
  return keys;
}

}  // namespace

DaemonConfigLoad parse_daemon_config(std::string_view text, const std::string& source,
                                     const topology::NodeModel& node) {
  DaemonConfigLoad load;
  if (const auto problem = analysis::toml_text_problem(text); !problem.empty()) {
    load.errors.push_back(source + ":" + problem);
    return load;
  }
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    std::ostringstream s;
    s << source << ":" << e.source().begin.line << ":" << e.source().begin.column << ": "
      << e.description();
    load.errors.push_back(s.str());
    return load;
  }
  for (const auto& [name, value] : root) {
    const std::string table(name.str());
    if (table != "daemon" && table != "analyzer")
      load.errors.push_back(source + ": " + table + ": unknown table (known: daemon, analyzer)");
    else if (!value.is_table())
      load.errors.push_back(source + ": " + table + " must be a table ([" + table + "])");
  }
  if (const auto* d = root["daemon"].as_table()) {
    for (const auto& [name, value] : *d) {
      const std::string key(name.str());
      const DaemonKey* k = nullptr;
      for (const auto& candidate : daemon_keys())
        if (key == candidate.name) k = &candidate;
      if (k == nullptr) {
        load.errors.push_back(source + ": daemon." + key + ": unknown key");
        continue;
      }
      const std::string error = k->set(load.config, value, node);
      if (!error.empty())
        load.errors.push_back(source + ": daemon." + key + " = " + shown(value) + ": " + error);
    }
  }
  if (root["analyzer"].is_table()) {
    // The analysis keys and their checks are the analyzer's own (analysis/config.hpp).
    analysis::ConfigLoad analyzer;
    toml::table only;
    only.insert("analyzer", *root["analyzer"].as_table());
    // Written back with escapes only: one-line strings of ASCII, as the text check takes.
    std::ostringstream t;
    t << toml::toml_formatter(only, toml::format_flags::none);
    analysis::apply_toml(analyzer, t.str(), source);
    for (auto& e : analyzer.errors) load.errors.push_back(std::move(e));
    if (!analyzer.config.decision_log.empty())
      load.errors.push_back(source + ": analyzer.decision_log = \"" + analyzer.config.decision_log +
                            "\": symmerd writes one log per job; set daemon.decision_log_dir");
    analyzer.config.decision_log.clear();
    load.config.analyzer = analyzer.config;
  }
  return load;
}

DaemonConfigLoad load_daemon_config(const std::string& path, const topology::NodeModel& node) {
  DaemonConfigLoad load;
  auto refuse = [&](const std::string& why) {
    load.errors.push_back(path + ": " + why);
    return load;
  };
  // Never blocks (a FIFO), never reads without end (/dev/zero): a regular file of bounded size.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return refuse("cannot read the configuration file: " + std::string(std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return refuse("cannot read the configuration file: " + std::string(std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) return refuse("is a directory, not a configuration file");
  if (!S_ISREG(st.st_mode))
    return refuse("is not a regular file (a device, FIFO or socket), not a configuration file");
  if (static_cast<std::uint64_t>(st.st_size) > kMaxConfigBytes)
    return refuse("is " + std::to_string(st.st_size) + " bytes; a configuration file has at most " +
                  std::to_string(kMaxConfigBytes));
  std::string text(kMaxConfigBytes + 1, '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return refuse("cannot read the configuration file: " + std::string(std::strerror(errno)));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > kMaxConfigBytes)
    return refuse("grew past " + std::to_string(kMaxConfigBytes) + " bytes while being read");
  text.resize(got);
  return parse_daemon_config(text, path, node);
}

std::string default_config_path() {
  return std::string(SYMMER_SYSCONFDIR) + "/symmer/symmerd.toml";
}

const char* to_string(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return "trace";
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

nlohmann::json to_json(const DaemonConfig& c) {
  return {{"socket", c.socket},
          {"log_level", to_string(c.log_level)},
          {"cores", c.cores},
          {"segment_dir", c.segment_dir},
          {"decision_log_dir", c.decision_log_dir},
          {"coschedule", c.coschedule},
          {"nic_bytes_per_s", c.nic_bytes_per_s},
          {"nic_wait_saving", c.nic_wait_saving},
          {"start_paused", c.start_paused},
          {"max_segment_mib", c.max_segment_bytes >> 20},
          {"max_user_mib_per_period", c.max_user_bytes_per_period >> 20},
          {"max_user_segments", c.max_user_segments}};
}

analysis::ConfigLoad apply_policy(const analysis::AnalyzerConfig& base,
                                  const nlohmann::json& overrides) {
  analysis::ConfigLoad load;
  load.config = base;
  if (!overrides.is_object()) {
    load.errors.push_back("policy: expected an object of analyzer keys");
    return load;
  }
  // JSON strings, numbers, booleans and arrays of strings are valid TOML values as dumped.
  std::string text = "[analyzer]\n";
  for (const auto& [key, value] : overrides.items()) {
    if (key == "decision_log") {
      load.errors.push_back("policy: analyzer.decision_log: cannot be changed over the socket");
      continue;
    }
    const bool array_of_strings =
        value.is_array() && std::all_of(value.begin(), value.end(),
                                        [](const nlohmann::json& e) { return e.is_string(); });
    if (!value.is_string() && !value.is_number() && !value.is_boolean() && !array_of_strings) {
      load.errors.push_back("policy: analyzer." + key + " = " + value.dump() +
                            ": expected a string, number, boolean or array of strings");
      continue;
    }
    bool bare = !key.empty();
    for (char ch : key) bare = bare && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
    if (!bare) {
      load.errors.push_back("policy: analyzer." + key + ": unknown key");
      continue;
    }
    text += key + " = " + value.dump() + "\n";
  }
  if (!load.errors.empty()) return load;
  analysis::apply_toml(load, text, "policy");
  return load;
}

}  // namespace symmer::daemon
