// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// symmerd's core: discovers jobs (directory scan plus inotify on the segment directory, and
// `register` requests), adopts them (claim in the segment header: the job's embedded analyzer
// stands by), samples every job each period, places ranks across jobs (coscheduler.hpp),
// runs each job's analyzer on its windows, cleans up after dead jobs, and answers control
// requests (handle(); protocol in daemon/README.md). Everything runs on one Asio io_context
// thread, so nothing here locks.

#include <sys/types.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <deque>
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
#include "symmer/topology/proc_reader.hpp"

namespace symmer::daemon {

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

  /// Answers one control request from `peer`.
  nlohmann::json handle(const nlohmann::json& request, const PeerCredentials& peer);

  /// One period's work (public for tests that drive the daemon without timers).
  void run_period();
  const DaemonConfig& config() const { return config_; }

 private:
  struct Overrides {
    bool paused = false;
    bool advice_only = false;
    nlohmann::json policy = nlohmann::json::object();
  };
  struct Reservation {
    CoreReservation reservation;
    std::uint64_t start_ticks = 0;
  };

  void schedule_period();
  void schedule_tick();
  void watch_directory();
  void scan(analysis::TimePoint now);
  bool adopt(const std::string& path, analysis::TimePoint now, std::string* error);
  void drop(const std::string& key, const std::string& why, analysis::TimePoint now);
  void renew_claims(analysis::TimePoint now);
  void sample_node(analysis::TimePoint now);
  /// Starts the coscheduler's moves; returns the cores they take.
  std::set<int> place(analysis::TimePoint now);
  void collect_events();
  JobSettings settings_for(const std::string& key) const;
  void apply_settings(analysis::TimePoint now);
  std::vector<PlacedRank> placed_ranks(analysis::TimePoint now) const;
  std::string segment_dir() const;
  std::uint64_t lease_ns() const;

  // Request handlers.
  nlohmann::json status() const;
  nlohmann::json jobs() const;
  nlohmann::json ranks(const nlohmann::json& request) const;
  nlohmann::json cores() const;
  nlohmann::json decisions(const nlohmann::json& request) const;
  nlohmann::json set_flag(const nlohmann::json& request, const PeerCredentials& peer,
                          const std::string& flag, bool on);
  nlohmann::json policy(const nlohmann::json& request, const PeerCredentials& peer);
  nlohmann::json reserve(const nlohmann::json& request, const PeerCredentials& peer);
  nlohmann::json release(const nlohmann::json& request, const PeerCredentials& peer);
  nlohmann::json register_job(const nlohmann::json& request, const PeerCredentials& peer);
  /// The job a request names ("job": key, job id in hex, or a unique prefix of either).
  Expected<ManagedJob*> find_job(const nlohmann::json& request) const;

  boost::asio::io_context& io_;
  DaemonConfig config_;
  std::string config_path_;
  topology::NodeModel node_;
  pid_t pid_;
  uid_t uid_;
  double started_realtime_s_ = 0;
  analysis::TimePoint started_;
  boost::asio::steady_timer period_timer_;
  boost::asio::steady_timer tick_timer_;
  std::optional<boost::asio::posix::stream_descriptor> inotify_;
  std::array<char, 4096> inotify_buffer_{};
  bool tick_scheduled_ = false;
  std::uint64_t periods_ = 0;  // periods run so far (status: lets clients wait for N periods)
  bool stopped_ = false;

  std::map<std::string, std::unique_ptr<ManagedJob>> jobs_;  // key: segment file name
  std::map<std::string, std::string> problems_;              // path -> why it is not adopted
  std::map<std::string, Overrides> overrides_;               // key -> the job's own settings
  int next_order_ = 0;
  bool paused_ = false;                               // every job (global pause)
  bool advice_only_ = false;                          // every job (global advice-only)
  nlohmann::json policy_ = nlohmann::json::object();  // global policy changes over the socket

  std::map<pid_t, Reservation> reservations_;
  topology::ProcReader proc_{"/proc"};
  std::optional<topology::ProcSnapshot> proc_previous_;
  std::map<int, double> cpu_previous_;  // pid -> CPU seconds at the previous sample
  std::map<int, double> cpu_share_;     // pid -> share of a core it got since then
  analysis::TimePoint node_sampled_{};
  NodeState node_state_;
  std::vector<std::string> coschedule_notes_;
  std::deque<nlohmann::json> decisions_;  // recent events of every job
};

}  // namespace symmer::daemon
