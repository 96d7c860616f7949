// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// symmerd's control socket: a Unix stream socket where each line a client sends is one JSON
// request and each reply one JSON line. Every local user may connect (mode 0666, set by the
// umask at bind, never by a chmod of the path); the handler decides from SO_PEERCRED who may
// change what. What one hostile user can cost the daemon is bounded: connections per uid and
// in all, the length of a request line, the time a connection may stay idle, and running out
// of descriptors (one is kept in reserve to turn connections away).

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "peer_credentials.hpp"
#include "symmer/expected.hpp"

namespace symmer::daemon {

/// What one connection, and one user, may hold of the daemon.
struct ControlLimits {
  /// Connections one uid may have open at once; root and the daemon's own user are not
  /// counted.
  std::size_t per_uid = 32;
  /// Connections of everyone else together.
  std::size_t total = 512;
  /// A connection whose next request line is not complete this long after it connected or
  /// got its previous reply is closed.
  std::chrono::milliseconds idle_timeout{5000};
  /// Longest request line.
  std::size_t max_request_bytes = 64 * 1024;
};

class ControlServer {
 public:
  using Handler = std::function<nlohmann::json(const nlohmann::json&, const PeerCredentials&)>;

  /// Listens at `path`. Its directory is created when missing (mode 0755) and must belong to
  /// the daemon's user (or root) and be writable by nobody else, nor may any directory above
  /// it be (private_directory.hpp): otherwise symmerd refuses to start. A stale socket left
  /// by a dead daemon is replaced; a live daemon there, or a file that is not a socket, is an
  /// error.
  static Expected<std::unique_ptr<ControlServer>> listen(boost::asio::io_context& io,
                                                         const std::string& path, Handler handler,
                                                         ControlLimits limits = {});
  /// Stops listening and removes the socket file.
  ~ControlServer();

  const std::string& path() const { return path_; }
  /// Connections open now.
  std::size_t connections() const;
  /// {"open": connections open now, "turned_away": connections closed unanswered for lack of
  /// descriptors, "accepts_out_of_descriptors": accepts that failed for lack of them}.
  nlohmann::json to_json() const;

  /// What the sessions share with their server, which they may outlive.
  struct Shared;

 private:
  ControlServer(boost::asio::io_context& io, std::string path, Handler handler,
                ControlLimits limits);
  void accept();
  /// Out of descriptors: closes one pending connection with the reserved descriptor, then
  /// accepts again once another connection is pending (never in a loop on an empty queue).
  void turn_away();

  std::string path_;
  std::shared_ptr<Shared> shared_;
  boost::asio::local::stream_protocol::acceptor acceptor_;
  int reserve_fd_ = -1;  // closed to accept (and close) a connection when out of descriptors
  bool said_out_of_fds_ = false;
  std::uint64_t turned_away_ = 0;
  std::uint64_t accepts_out_of_fds_ = 0;
};

}  // namespace symmer::daemon
