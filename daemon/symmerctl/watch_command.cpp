// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl watch`: a live per-core and per-rank view, refreshed in place.
#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "command.hpp"
#include "cores_view.hpp"
#include "daemon_client.hpp"

namespace {

struct Options : symmer::ctl::DaemonOptions {
  double interval = 1.0;
  int count = 0;
};

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<Options>();
  cmd.add_option("--socket", o->socket, "symmerd's control socket");
  cmd.add_option("--interval", o->interval, "seconds between refreshes (default 1)")
      ->check(CLI::Range(0.05, 3600.0));
  cmd.add_option("--count", o->count, "stop after this many refreshes (default: until Ctrl-C)")
      ->check(CLI::NonNegativeNumber);
  return [o] {
    for (int i = 0; o->count == 0 || i < o->count; ++i) {
      if (i > 0) std::this_thread::sleep_for(std::chrono::duration<double>(o->interval));
      nlohmann::json status, cores, ranks;
      try {
        status = symmer::ctl::ask(*o, {{"request", "status"}});
        cores = symmer::ctl::ask(*o, {{"request", "cores"}});
        ranks = symmer::ctl::ask(*o, {{"request", "ranks"}});
      } catch (const std::runtime_error& e) {
        std::cerr << "symmerctl watch: " << e.what() << "\n";
        return symmer::ctl::kExitNoDaemon;
      }
      std::cout << "\033[H\033[2J"  // home + clear: redraw in place
                << "symmerd pid " << status["pid"] << ": " << status["jobs"] << " job(s)"
                << (status.value("paused", false) ? ", PAUSED" : "")
                << (status.value("advice_only", false) ? ", advice only" : "") << "\n\n"
                << symmer::ctl::cores_table(cores) << "\n"
                << symmer::ctl::ranks_table(ranks) << std::flush;
    }
    return 0;
  };
}

const bool registered = symmer::ctl::register_command(
    {"watch", "live per-core and per-rank view of symmerd (refreshes in place)", setup});

}  // namespace
