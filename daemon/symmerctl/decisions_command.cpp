// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl decisions`: symmerd's recent decisions with their evidence, oldest first.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "daemon_client.hpp"

namespace {

using symmer::ctl::cell;

struct Options : symmer::ctl::DaemonOptions {
  std::string job;
  std::size_t limit = 50;
};

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<Options>();
  symmer::ctl::add_daemon_options(cmd, *o);
  cmd.add_option("--job", o->job, "only this job (id or segment name, or a unique prefix)");
  cmd.add_option("--limit", o->limit, "at most this many (default 50)");
  return [o] {
    nlohmann::json request = {{"request", "decisions"}, {"limit", o->limit}};
    if (!o->job.empty()) request["job"] = o->job;
    return symmer::ctl::run_request(*o, request, [](const nlohmann::json& r) {
      std::vector<std::vector<std::string>> rows;
      for (const auto& e : r["decisions"]) {
        std::string what = cell(e.value("metric", nlohmann::json()));
        if (e.contains("verdict")) what += " " + cell(e["verdict"]);
        if (e.contains("message")) what += " " + cell(e["message"]);
        std::string moves;
        if (e.contains("moves"))
          for (const auto& m : e["moves"])
            moves += (moves.empty() ? "" : " ") + std::string("r") + m["rank"].dump() + ":c" +
                     m["from"].dump() + "->c" + m["to"].dump();
        rows.push_back({cell(e.value("job", std::string())).substr(0, 40), cell(e["event"]), what,
                        moves.empty() ? "-" : moves,
                        e.contains("gain")
                            ? cell(e["gain"])
                            : (e.contains("observed_gain") ? cell(e["observed_gain"]) : "-")});
      }
      if (rows.empty()) {
        std::cout << "no decisions yet\n";
        return;
      }
      std::cout << symmer::ctl::format_table({"JOB", "EVENT", "WHAT", "MOVES", "GAIN"}, rows)
                << "(--json shows each decision's evidence)\n";
    });
  };
}

const bool registered = symmer::ctl::register_command(
    {"decisions", "show symmerd's recent decisions (evidence with --json)", setup});

}  // namespace
