// SPDX-License-Identifier: BSD-3-Clause
// symmerd: the node daemon. Reads its configuration (refusing to start on any bad value),
// listens on its control socket, and runs Daemon on one Asio event loop until SIGTERM/SIGINT;
// SIGHUP re-reads the configuration.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <filesystem>
#include <iostream>

#include "control_client.hpp"
#include "control_server.hpp"
#include "daemon.hpp"
#include "symmer_version.hpp"

namespace {

// The soft descriptor limit (often 1024) up to the hard one: room for every connection the
// control socket admits beside the jobs' segments and /proc reads.
void raise_descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

int main(int argc, char** argv) try {
  using namespace symmer::daemon;
  CLI::App app{"symmerd: symmer's node daemon (analyses and places every MPI job on this node)"};
  std::string config_path;
  std::string socket;
  std::string segment_dir;
  bool check_only = false;
  app.add_option("--config", config_path,
                 "configuration file (default " + default_config_path() + " when it exists)");
  app.add_option("--socket", socket, "control socket (overrides daemon.socket)");
  app.add_option("--segment-dir", segment_dir,
                 "where node segments appear (overrides daemon.segment_dir)");
  app.add_flag("--check-config", check_only, "check the configuration and exit");
  symmer::add_version_flag(app, "symmerd");
  CLI11_PARSE(app, argc, argv);

  spdlog::set_default_logger(spdlog::stderr_color_mt("symmerd"));
  spdlog::set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %v");
  auto node = symmer::topology::NodeModel::from_this_node(symmer::topology::GpuQuery::kNone);

  DaemonConfigLoad load;
  if (config_path.empty() && std::filesystem::exists(default_config_path()))
    config_path = default_config_path();
  if (!config_path.empty()) load = load_daemon_config(config_path, node);
  if (!socket.empty()) load.config.socket = socket;
  if (!segment_dir.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(segment_dir, ec))
      load.errors.push_back("--segment-dir " + segment_dir + ": not an existing directory");
    load.config.segment_dir = segment_dir;
  }
  for (const auto& e : load.errors) std::cerr << "symmerd: " << e << "\n";
  if (!load.errors.empty()) {
    std::cerr << "symmerd: refusing to start: " << load.errors.size()
              << " configuration error(s)\n";
    return 2;
  }
  if (check_only) {
    std::cout << "symmerd: " << (config_path.empty() ? "built-in defaults" : config_path)
              << ": configuration is valid\n";
    return 0;
  }
  DaemonConfig config = std::move(load.config);
  spdlog::set_level(static_cast<spdlog::level::level_enum>(static_cast<int>(config.log_level)));
  if (config.socket.empty()) config.socket = default_socket_path(::geteuid());

  raise_descriptor_limit();
  boost::asio::io_context io;
  Daemon daemon(io, config, config_path, node);
  auto server = ControlServer::listen(
      io, config.socket, [&daemon](const nlohmann::json& request, const PeerCredentials& peer) {
        return daemon.handle(request, peer);
      });
  if (!server) {
    std::cerr << "symmerd: refusing to start: " << server.error().message << "\n";
    return 2;
  }
  daemon.state().connections = [&s = **server] { return s.to_json(); };
  boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& ec, int signal) {
        if (ec) return;
        if (signal == SIGHUP) {
          spdlog::info("symmerd: SIGHUP: re-reading the configuration");
          daemon.reload();
          signals.async_wait(on_signal);
          return;
        }
        spdlog::info("symmerd: signal {}: stopping", signal);
        daemon.stop();
        io.stop();
      };
  signals.async_wait(on_signal);
  std::signal(SIGPIPE, SIG_IGN);
  spdlog::info("symmerd: listening at {}", (*server)->path());
  daemon.start();
  io.run();
  return 0;
} catch (const std::exception& e) {
  std::cerr << "symmerd: " << e.what() << "\n";
  return 1;
}
