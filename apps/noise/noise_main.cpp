// SPDX-License-Identifier: BSD-3-Clause
// symmer-noise --cpus LIST --share F [--seconds S] [--period-us P] [--no-realtime]
// Occupies fraction F of the core of each listed Linux CPU ("L:"-prefixed: logical cores) until
// S seconds passed or it gets SIGINT/SIGTERM; then prints one JSON line with the share each core
// really lost.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "duty_cycle.hpp"
#include "symmer/topology/cpu_list.hpp"
#include "symmer/topology/node_model.hpp"
#include "symmer_version.hpp"

namespace {
std::atomic<bool> stop_requested{false};
extern "C" void on_signal(int) { stop_requested.store(true); }
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"symmer-noise: steal a share of cores, as interrupt processing does"};
  std::string cores_text;
  double share = 0.0;
  double seconds = 0.0;
  int period_us = 2000;
  bool no_realtime = false;
  app.add_option("--cpus", cores_text,
                 "Linux CPUs whose cores to occupy, e.g. 1 or 0,2-3 (L:0-1: logical cores)")
      ->required();
  app.add_option("--share", share, "fraction of each core to occupy, in (0, 1)")->required();
  app.add_option("--seconds", seconds, "run time; 0 = until SIGINT/SIGTERM")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--period-us", period_us, "duty-cycle period in microseconds")
      ->check(CLI::Range(100, 1000000));
  app.add_flag("--no-realtime", no_realtime,
               "stay SCHED_OTHER (steals less than the share under contention)");
  symmer::add_version_flag(app, "symmer-noise");
  CLI11_PARSE(app, argc, argv);

  if (!(share > 0.0 && share < 1.0)) {
    std::cerr << "symmer-noise: --share " << share << " must be in (0, 1)\n";
    return 2;
  }
  const auto node = symmer::topology::NodeModel::from_this_node();
  const auto selected = symmer::topology::parse_core_selection(cores_text, node);
  if (!selected) {
    std::cerr << "symmer-noise: --cpus: " << selected.error().message << "\n";
    return 2;
  }
  const std::vector<int>& cores = *selected;

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::vector<symmer::noise::DutyResult> results(cores.size());
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < cores.size(); ++k) {
    symmer::noise::DutyCycle cycle{cores[k], share, std::chrono::microseconds(period_us),
                                   !no_realtime};
    threads.emplace_back(
        [&, cycle, k] { results[k] = symmer::noise::run_duty_cycle(cycle, node, stop_requested); });
  }
  std::fprintf(stderr, "symmer-noise: occupying %.0f%% of the core(s) of CPUs %s, period %d us (pid %d)\n",
               share * 100.0, cores_text.c_str(), period_us, static_cast<int>(getpid()));
  if (seconds > 0.0) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!stop_requested.load() && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stop_requested.store(true);
  }
  for (auto& t : threads) t.join();

  nlohmann::json out{{"tool", "symmer-noise"}, {"share", share}, {"period_us", period_us}};
  bool all_realtime = true;
  for (std::size_t k = 0; k < cores.size(); ++k) {
    const auto& r = results[k];
    all_realtime = all_realtime && r.realtime;
    out["cores"].push_back(
        {{"cpus", symmer::topology::format_cpu_list(node.cores()[static_cast<std::size_t>(cores[k])].pus)},
         {"core", "L:" + std::to_string(cores[k])},
         {"achieved_share", r.wall_seconds > 0 ? r.cpu_seconds / r.wall_seconds : 0.0},
         {"realtime", r.realtime}});
  }
  if (!no_realtime && !all_realtime)
    std::fprintf(stderr,
                 "symmer-noise: SCHED_FIFO refused (needs CAP_SYS_NICE); ran SCHED_OTHER, "
                 "which steals less than the share from a busy core\n");
  std::cout << out.dump() << std::endl;
  return 0;
}
