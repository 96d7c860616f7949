// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl policy [--job J] key=value...`: change analysis settings ([analyzer] keys of
// symmerd.toml) of one job, or of every job. Values are JSON (numbers, true/false,
// ["a","b"]) or plain strings.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "daemon_client.hpp"

namespace {

struct Options : symmer::ctl::DaemonOptions {
  std::string job;
  std::vector<std::string> settings;
  bool reset = false;
};

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<Options>();
  symmer::ctl::add_daemon_options(cmd, *o);
  cmd.add_option("--job", o->job, "only this job (id or segment name, or a unique prefix)");
  cmd.add_flag("--reset", o->reset, "drop earlier policy changes first");
  cmd.add_option("settings", o->settings, "key=value, e.g. min_gain=0.1 planner=assignment");
  return [o] {
    nlohmann::json set = nlohmann::json::object();
    for (const auto& s : o->settings) {
      const auto eq = s.find('=');
      if (eq == std::string::npos || eq == 0)
        throw std::runtime_error("'" + s + "' is not key=value");
      const std::string value = s.substr(eq + 1);
      auto parsed = nlohmann::json::parse(value, nullptr, false);
      set[s.substr(0, eq)] = parsed.is_discarded() ? nlohmann::json(value) : parsed;
    }
    nlohmann::json request = {{"request", "policy"}, {"set", set}, {"reset", o->reset}};
    if (!o->job.empty()) request["job"] = o->job;
    return symmer::ctl::run_request(*o, request, [](const nlohmann::json& r) {
      std::cout << "policy of " << (r.contains("job") ? r["job"].get<std::string>() : "every job")
                << ": " << r["policy"].dump() << "\n";
    });
  };
}

const bool registered = symmer::ctl::register_command(
    {"policy", "change analysis settings of a job or of every job (key=value)", setup});

}  // namespace
