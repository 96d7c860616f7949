// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl decisions`: symmerd's recent decisions with their evidence, oldest first.
#include <iostream>
#include <memory>

#include "command.hpp"
#include "daemon_client.hpp"
#include "local_view.hpp"

namespace {

using symmer::ctl::cell;

// "r0:0->2" in Linux CPUs where the decision names them, else "r0:L:0->L:2".
std::string move_cell(const nlohmann::json& m) {
  const std::string r = "r" + m.value("rank", nlohmann::json(-1)).dump() + ":";
  if (m.contains("from_cpus") && m.contains("to_cpus"))
    return r + cell(m["from_cpus"]) + "->" + cell(m["to_cpus"]);
  return r + "L:" + m.value("from_core", nlohmann::json(-1)).dump() + "->L:" +
         m.value("to_core", nlohmann::json(-1)).dump();
}

struct Options : symmer::ctl::DaemonOptions {
  std::string job;
  std::size_t limit = 50;
};

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<Options>();
  symmer::ctl::add_daemon_options(cmd, *o);
  symmer::ctl::add_segment_dir_option(cmd, *o);
  cmd.add_option("--job", o->job, "only this job (id or segment name, or a unique prefix)");
  cmd.add_option("--limit", o->limit, "at most this many (default 50)");
  return [o] {
    nlohmann::json request = {{"request", "decisions"}, {"limit", o->limit}};
    if (!o->job.empty()) request["job"] = o->job;
    const auto local = [o] { return symmer::ctl::local_decisions(o->dir, o->job, o->limit); };
    return symmer::ctl::run_request_or_local(*o, request, local, [](const nlohmann::json& r) {
      std::vector<std::vector<std::string>> rows;
      for (const auto& e : r["decisions"]) {
        std::string what = cell(e.value("metric", nlohmann::json()));
        if (e.contains("verdict")) what += " " + cell(e["verdict"]);
        if (e.contains("message")) what += " " + cell(e["message"]);
        std::string moves;
        for (const char* key : {"moves", "moves_in_effect"})
          if (e.contains(key) && e[key].is_array())
            for (const auto& m : e[key]) moves += (moves.empty() ? "" : " ") + move_cell(m);
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
                << "(MOVES in Linux CPU numbers, L: logical cores; --json shows the evidence)\n";
    });
  };
}

const bool registered = symmer::ctl::register_command(
    {"decisions", "show the analyzers' recent decisions (symmerd's, or the jobs' own)", setup});

}  // namespace
