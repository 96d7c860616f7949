// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl reserve --cpus 2,3 [--pid P]`: keep MPI ranks off cores that drive GPUs for a
// process (TSAR registers its GPU-driver cores this way); the reservation ends with the
// process or `symmerctl release`.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "command.hpp"
#include "daemon_client.hpp"
#include "symmer/topology/cpu_list.hpp"

namespace {

struct Options : symmer::ctl::DaemonOptions {
  std::string cpus;
  int pid = 0;
  std::string reason = "gpu-driver";
};

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<Options>();
  symmer::ctl::add_daemon_options(cmd, *o);
  cmd.add_option("--cpus", o->cpus,
                 "Linux CPU list, as taskset -c takes it (2,3 or 2-3); their whole cores are "
                 "reserved")
      ->required();
  cmd.add_option("--pid", o->pid, "the process the cores serve (default: symmerctl's parent)");
  cmd.add_option("--reason", o->reason, "shown in status (default gpu-driver)");
  return [o] {
    const auto cpus = symmer::topology::parse_cpu_list(o->cpus);
    if (!cpus) {
      std::cerr << "symmerctl reserve: --cpus: " << cpus.error().message << "\n";
      return 2;
    }
    const int pid = o->pid > 0 ? o->pid : static_cast<int>(::getppid());
    nlohmann::json request = {
        {"request", "reserve"}, {"cpus", *cpus}, {"pid", pid}, {"reason", o->reason}};
    return symmer::ctl::run_request(*o, request, [](const nlohmann::json& r) {
      std::vector<int> cores;
      for (const auto& c : r["cores"]) cores.push_back(c.get<int>());
      std::cout << "CPUs " << symmer::topology::format_cpu_list(r["cpus"].get<std::vector<int>>())
                << " (cores L:" << symmer::topology::format_cpu_list(cores) << ") reserved for pid "
                << r["pid"] << " (" << r["reason"].get<std::string>() << ", "
                << (r.value("all_jobs", false) ? "every job" : "your jobs") << ")\n";
    });
  };
}

const bool registered = symmer::ctl::register_command(
    {"reserve", "keep ranks off cores that drive GPUs for a process", setup});

}  // namespace
