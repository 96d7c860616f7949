// SPDX-License-Identifier: BSD-3-Clause
// The control socket (see control_server.hpp).
#include "control_server.hpp"

#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace symmer::daemon {
namespace {

using boost::asio::local::stream_protocol;

// A request line may not exceed this (a client that never sends a newline is cut off).
constexpr std::size_t kMaxRequestBytes = 1 << 20;

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(stream_protocol::socket socket, const ControlServer::Handler& handler)
      : socket_(std::move(socket)), handler_(handler), buffer_(kMaxRequestBytes) {}

  void start() {
    const auto creds = peer_credentials(socket_.native_handle());
    if (!creds) {
      spdlog::warn("symmerd: a connection without peer credentials; closed");
      return;
    }
    peer_ = *creds;
    read();
  }

 private:
  void read() {
    boost::asio::async_read_until(
        socket_, buffer_, '\n',
        [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
          if (ec) {
            if (ec == boost::asio::error::not_found)
              self->reply({{"ok", false}, {"error", "request longer than 1 MiB"}}, false);
            return;
          }
          std::string line(
              boost::asio::buffers_begin(self->buffer_.data()),
              boost::asio::buffers_begin(self->buffer_.data()) + static_cast<std::ptrdiff_t>(n));
          self->buffer_.consume(n);
          const auto request = nlohmann::json::parse(line, nullptr, false);
          nlohmann::json answer;
          if (request.is_discarded())
            answer = {{"ok", false}, {"error", "the request is not JSON"}};
          else
            answer = self->handler_(request, self->peer_);
          self->reply(answer, true);
        });
  }

  void reply(const nlohmann::json& answer, bool more) {
    auto text = std::make_shared<std::string>(answer.dump() + "\n");
    boost::asio::async_write(
        socket_, boost::asio::buffer(*text),
        [self = shared_from_this(), text, more](const boost::system::error_code& ec, std::size_t) {
          if (!ec && more) self->read();
        });
  }

  stream_protocol::socket socket_;
  ControlServer::Handler handler_;
  boost::asio::streambuf buffer_;
  PeerCredentials peer_;
};

// True when a daemon answers connections at `path`.
bool someone_listens(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool listening = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return listening;
}

}  // namespace

Expected<std::unique_ptr<ControlServer>> ControlServer::listen(boost::asio::io_context& io,
                                                               const std::string& path,
                                                               Handler handler) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
      return Error(Errc::kIo, "cannot create " + dir.string() + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      return Error(Errc::kInvalidArgument, path + " exists and is not a socket; not replacing it");
    if (someone_listens(path))
      return Error(Errc::kInvalidArgument, "another symmerd already listens at " + path);
    ::unlink(path.c_str());  // left by a daemon that died
  }
  std::unique_ptr<ControlServer> server(new ControlServer(io, path, std::move(handler)));
  boost::system::error_code bec;
  server->acceptor_.open(stream_protocol(), bec);
  if (!bec) server->acceptor_.bind(stream_protocol::endpoint(path), bec);
  if (!bec) server->acceptor_.listen(boost::asio::socket_base::max_listen_connections, bec);
  if (bec) {
    server->path_.clear();  // not ours to remove
    return Error(Errc::kIo, "cannot listen at " + path + ": " + bec.message());
  }
  // Everyone may connect; what they may do is decided per request.
  ::chmod(path.c_str(), 0666);
  server->accept();
  return server;
}

ControlServer::ControlServer(boost::asio::io_context& io, std::string path, Handler handler)
    : path_(std::move(path)), handler_(std::move(handler)), acceptor_(io) {}

ControlServer::~ControlServer() {
  boost::system::error_code ec;
  acceptor_.close(ec);
  if (!path_.empty()) ::unlink(path_.c_str());
}

void ControlServer::accept() {
  acceptor_.async_accept(
      [this](const boost::system::error_code& ec, stream_protocol::socket socket) {
        if (ec == boost::asio::error::operation_aborted) return;
        if (!ec) std::make_shared<Session>(std::move(socket), handler_)->start();
        accept();
      });
}

}  // namespace symmer::daemon
