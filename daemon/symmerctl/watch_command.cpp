// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl watch`: a live per-core and per-rank view, refreshed in place.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "command.hpp"
#include "cores_view.hpp"
#include "daemon_client.hpp"
#include "local_view.hpp"

namespace {

struct Options : symmer::ctl::DaemonOptions {
  double interval = 1.0;
  int count = 0;
};

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<Options>();
  cmd.add_option("--socket", o->socket, "symmerd's control socket");
  symmer::ctl::add_segment_dir_option(cmd, *o);
  cmd.add_option("--interval", o->interval, "seconds between refreshes (default 1)")
      ->check(CLI::Range(0.05, 3600.0));
  cmd.add_option("--count", o->count, "stop after this many refreshes (default: until Ctrl-C)")
      ->check(CLI::NonNegativeNumber);
  return [o] {
    // A terminal is redrawn in place; a pipe or file gets one refresh after another, as
    // `top -b` writes, so a log of it reads without control codes.
    const bool terminal = isatty(STDOUT_FILENO) != 0;
    for (int i = 0; o->count == 0 || i < o->count; ++i) {
      if (i > 0) std::this_thread::sleep_for(std::chrono::duration<double>(o->interval));
      nlohmann::json status, cores, ranks;
      std::string head;
      try {
        status = symmer::ctl::ask(*o, {{"request", "status"}});
        cores = symmer::ctl::ask(*o, {{"request", "cores"}});
        ranks = symmer::ctl::ask(*o, {{"request", "ranks"}});
        head = "symmerd pid " + status["pid"].dump() + ": " + status["jobs"].dump() + " job(s)" +
               (status.value("paused", false) ? ", PAUSED" : "") +
               (status.value("advice_only", false) ? ", advice only" : "");
      } catch (const std::runtime_error&) {
        // No daemon: the jobs' own segments, sampled over half the interval each.
        const auto half = std::chrono::milliseconds(static_cast<long>(o->interval * 250));
        status = symmer::ctl::local_status(o->dir);
        cores = symmer::ctl::local_cores(o->dir, half);
        ranks = symmer::ctl::local_ranks(o->dir, half);
        head = "no symmerd (embedded mode): " + status["jobs"].dump() + " job(s)";
      }
      const char* start = terminal ? "\033[H\033[2J" : i > 0 ? "\n" : "";  // home + clear
      std::cout << start << head << "\n\n"
                << symmer::ctl::cores_table(cores) << "\n"
                << symmer::ctl::ranks_table(ranks) << std::flush;
    }
    return 0;
  };
}

const bool registered = symmer::ctl::register_command(
    {"watch", "live per-core and per-rank view (symmerd's, or the jobs'; refreshes in place)",
     setup});

}  // namespace
