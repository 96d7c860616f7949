// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// symmerd's core: discovers jobs (directory scan plus inotify on the segment directory, and
// `register` requests), adopts them (claim in the segment header: the job's embedded analyzer
// stands by), samples every job each period, places ranks across jobs (coscheduler.hpp),
// runs each job's analyzer on its windows, cleans up after dead jobs, and answers control
// requests (request.hpp; protocol in daemon/README.md). Everything runs on one Asio
// io_context thread, so nothing here locks.
//
//   daemon.cpp      start and stop, timers, the configuration, each job's settings
//   discovery.cpp   the segment directory: inotify, scan, adoption, dropping ended jobs
//   period.cpp      one period: claims, samples, the node's state, coscheduling, analysis
//   request.cpp     the request table; one <name>_request.cpp per request

#include <sys/types.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <ctime>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coscheduler.hpp"
#include "daemon_config.hpp"
#include "managed_job.hpp"
#include "peer_credentials.hpp"
#include "private_directory.hpp"
#include "symmer/topology/proc_reader.hpp"

namespace symmer::daemon {

/// A job's own settings, changed over the socket (they live in memory only).
struct JobOverrides {
  bool paused = false;
  bool advice_only = false;
  nlohmann::json policy = nlohmann::json::object();
};

/// Cores a process keeps free of ranks (`reserve` requests), until it ends.
struct Reservation {
  CoreReservation reservation;
  std::uint64_t start_ticks = 0;  ///< the process's start time: a reused pid is another one
};

/// What the daemon knows and the requests read and change.
struct DaemonState {
  DaemonState(DaemonConfig c, std::string path, topology::NodeModel n)
      : config(std::move(c)), config_path(std::move(path)), node(std::move(n)) {}

  DaemonConfig config;
  std::string config_path;  ///< what SIGHUP re-reads ("" on built-in defaults)
  topology::NodeModel node;
  pid_t pid = 0;
  uid_t uid = 0;
  double started_realtime_s = 0;
  analysis::TimePoint started;
  std::uint64_t periods = 0;  ///< periods run so far (status: lets clients wait for N periods)

  std::map<std::string, std::unique_ptr<ManagedJob>> jobs;  ///< key: segment file name
  std::map<std::string, std::string> problems;              ///< path -> why it is not adopted
  std::map<std::string, JobOverrides> overrides;            ///< key -> the job's own settings
  bool paused = false;                                      ///< every job (global pause)
  bool advice_only = false;                                 ///< every job (global advice-only)
  nlohmann::json policy = nlohmann::json::object();  ///< global policy changes over the socket
  std::map<pid_t, Reservation> reservations;
  NodeState node_state;
  std::vector<std::string> coschedule_notes;
  std::deque<nlohmann::json> decisions;  ///< recent events of every job, oldest first
  /// The control socket's figures (ControlServer::to_json), once it listens.
  std::function<nlohmann::json()> connections;
};

class Daemon {
 public:
  /// `config_path` is what SIGHUP re-reads ("" when running on built-in defaults).
  Daemon(boost::asio::io_context& io, DaemonConfig config, std::string config_path,
         topology::NodeModel node);
  ~Daemon();

  /// Adopts the jobs already running (re-adoption after a restart) and starts the timers.
  void start();
  /// Stops the timers and lets every job's embedded analyzer take over again.
  void stop();
  /// Re-reads the configuration file; on errors keeps the running configuration.
  void reload();

  /// Answers one control request from `peer` (request.cpp).
  nlohmann::json handle(const nlohmann::json& request, const PeerCredentials& peer);

  /// One period's work (public for tests that drive the daemon without timers).
  void run_period();

  const DaemonConfig& config() const { return state_.config; }
  const DaemonState& state() const { return state_; }
  DaemonState& state() { return state_; }

  /// Adopts the job whose segment is at `path`; false with `error` set when it cannot be
  /// (empty error: nothing to adopt there, e.g. a job that just ended).
  bool adopt(const std::string& path, analysis::TimePoint now, std::string* error);
  /// The settings a job runs with: the daemon's plus its own overrides.
  JobSettings settings_for(const std::string& key) const;
  /// Hands every job its current settings.
  void apply_settings(analysis::TimePoint now);
  /// Every rank of every job, as the coscheduler sees it.
  std::vector<PlacedRank> placed_ranks(analysis::TimePoint now) const;
  /// Where segments appear.
  std::string segment_dir() const;

 private:
  void open_log_dir();
  void schedule_period();
  void schedule_tick();
  void watch_directory();
  void scan(analysis::TimePoint now);
  void drop(const std::string& key, const std::string& why, analysis::TimePoint now);
  /// How segments are read this period: bounded tries, max_segment_bytes, and the per-user
  /// budget of bytes per period.
  segment::ReadOptions read_options();
  /// Whether the segment at `path`, which could not be adopted, is worth reading again (it
  /// changed, or kRecheckPeriods passed).
  bool due(const std::string& path);
  void note_problem(const std::string& path, const std::string& error);
  void renew_claims(analysis::TimePoint now);
  void sample_jobs(analysis::TimePoint now);
  void end_reservations();
  void sample_node(analysis::TimePoint now);
  /// Starts the coscheduler's moves; returns the cores they take.
  std::set<int> place(analysis::TimePoint now);
  void analyze_jobs(const std::set<int>& promised, analysis::TimePoint now);
  void collect_events();
  /// How long a claim lasts.
  std::uint64_t lease_ns() const;

  boost::asio::io_context& io_;
  DaemonState state_;
  DirectoryFd log_dir_;  // daemon.decision_log_dir, checked (none when not configured)
  boost::asio::steady_timer period_timer_;
  boost::asio::steady_timer tick_timer_;
  std::optional<boost::asio::posix::stream_descriptor> inotify_;
  std::array<char, 4096> inotify_buffer_{};
  bool tick_scheduled_ = false;
  bool stopped_ = false;
  int next_order_ = 0;
  analysis::TimePoint last_scan_{};

  struct FileSeen {  // a segment that could not be adopted, as it was then
    std::uint64_t device = 0, inode = 0, size = 0;
    timespec mtime{}, ctime{};
    std::uint64_t period = 0;
  };
  std::map<std::string, FileSeen> problem_files_;
  std::map<uid_t, std::uint64_t> read_this_period_;  // bytes of each user's segments read

  topology::ProcReader proc_{"/proc"};
  std::optional<topology::ProcSnapshot> proc_previous_;
  std::map<int, double> cpu_previous_;  // pid -> CPU seconds at the previous sample
  std::map<int, double> cpu_share_;     // pid -> share of a core it got since then
  analysis::TimePoint node_sampled_{};
};

}  // namespace symmer::daemon
