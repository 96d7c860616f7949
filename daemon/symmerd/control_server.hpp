// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// symmerd's control socket: a Unix stream socket where each line a client sends is one JSON
// request and each reply one JSON line. The socket is open to every local user (mode 0666;
// the handler decides, from SO_PEERCRED, who may change what).

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "peer_credentials.hpp"
#include "symmer/expected.hpp"

namespace symmer::daemon {

class ControlServer {
 public:
  using Handler = std::function<nlohmann::json(const nlohmann::json&, const PeerCredentials&)>;

  /// Listens at `path`, creating its directory (mode 0755) when missing. A stale socket left
  /// by a dead daemon is replaced; a live daemon there, or a file that is not a socket, is an
  /// error.
  static Expected<std::unique_ptr<ControlServer>> listen(boost::asio::io_context& io,
                                                         const std::string& path, Handler handler);
  /// Stops listening and removes the socket file.
  ~ControlServer();

  const std::string& path() const { return path_; }

 private:
  ControlServer(boost::asio::io_context& io, std::string path, Handler handler);
  void accept();

  std::string path_;
  Handler handler_;
  boost::asio::local::stream_protocol::acceptor acceptor_;
};

}  // namespace symmer::daemon
