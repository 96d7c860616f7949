// SPDX-License-Identifier: BSD-3-Clause
// `symmerctl ranks`: the live per-rank figures of every symmer job on this node, read from the
// node segments (validated; corrupt ones are reported, those of dead jobs removed), or with
// --daemon as symmerd sees them.
#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "command.hpp"
#include "cores_view.hpp"
#include "daemon_client.hpp"
#include "symmer/segment/naming.hpp"
#include "symmer/segment/reader.hpp"
#include "symmer/segment/report.hpp"

namespace {

using namespace symmer::segment;

struct Options {
  bool json = false;
  std::string dir;
  double window_seconds = 0;
  bool daemon = false;
  std::string socket;
};

struct Scan {
  std::vector<SegmentSnapshot> live;
  nlohmann::json problems = nlohmann::json::array();
  nlohmann::json removed = nlohmann::json::array();
};

Scan scan(const std::string& dir) {
  Scan out;
  for (auto& e : scan_segments(dir)) {
    if (e.removed_stale)
      out.removed.push_back(e.path);
    else if (e.snapshot)
      out.live.push_back(std::move(*e.snapshot));
    else
      out.problems.push_back({{"path", e.path}, {"error", e.snapshot.error().message}});
  }
  return out;
}

symmer::ctl::CommandRun setup(CLI::App& cmd) {
  auto o = std::make_shared<Options>();
  cmd.add_flag("--json", o->json, "print JSON instead of a table");
  cmd.add_option("--dir", o->dir,
                 "where the node segments are (default $SYMMER_SHM_DIR or /dev/shm)");
  cmd.add_option("--window", o->window_seconds,
                 "read twice, this many seconds apart, and show the figures of that window")
      ->check(CLI::Range(0.0, 3600.0));
  cmd.add_flag("--daemon", o->daemon,
               "ask symmerd instead (its latest window, each rank's affinity and core)");
  cmd.add_option("--socket", o->socket, "symmerd's control socket (with --daemon)");
  return [o] {
    if (o->daemon) {
      symmer::ctl::DaemonOptions d{o->socket, o->json, o->dir};
      return symmer::ctl::run_request(d, {{"request", "ranks"}}, [](const nlohmann::json& r) {
        std::cout << symmer::ctl::ranks_table(r);
      });
    }
    const std::string dir = o->dir.empty() ? segment_directory() : o->dir;
    Scan first = scan(dir);
    Scan now = first;
    if (o->window_seconds > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(o->window_seconds));
      now = scan(dir);
    }
    std::vector<const SegmentSnapshot*> current, previous;
    for (const auto& s : now.live) current.push_back(&s);
    if (o->window_seconds > 0)
      for (const auto& s : first.live) previous.push_back(&s);

    if (o->json) {
      nlohmann::json jobs = nlohmann::json::array();
      for (const SegmentSnapshot* s : current) {
        const SegmentSnapshot* prev = nullptr;
        for (const SegmentSnapshot* p : previous)
          if (p->path == s->path) prev = p;
        jobs.push_back(to_json(*s, prev));
      }
      nlohmann::json removed = first.removed;
      for (const auto& r : now.removed) removed.push_back(r);
      std::cout << nlohmann::json{{"directory", dir},
                                  {"jobs", jobs},
                                  {"problems", now.problems},
                                  {"removed_stale", removed}}
                       .dump(2)
                << "\n";
      return 0;
    }
    for (const auto& r : first.removed)
      std::cerr << "symmerctl ranks: removed stale segment " << r.get<std::string>()
                << " (its job is gone)\n";
    for (const auto& p : now.problems)
      std::cerr << "symmerctl ranks: ignored " << p["error"].get<std::string>() << "\n";
    if (current.empty()) {
      std::cout << "no symmer jobs on this node (" << dir << ")\n";
      return 0;
    }
    std::cout << to_table(current, previous);
    return 0;
  };
}

const bool registered = symmer::ctl::register_command(
    {"ranks", "show the live per-rank figures of the symmer jobs on this node", setup});

}  // namespace
