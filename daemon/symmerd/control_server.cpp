// SPDX-License-Identifier: BSD-3-Clause
// The control socket (see control_server.hpp).
#include "control_server.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <cstring>

#include "private_directory.hpp"

namespace symmer::daemon {

using boost::asio::local::stream_protocol;

struct ControlServer::Shared {
  Handler handler;
  ControlLimits limits;
  uid_t daemon_uid = 0;
  std::map<uid_t, std::size_t> per_uid;  // open connections of each counted uid
  std::size_t counted = 0;               // ... of all of them together
  std::size_t open = 0;                  // every connection

  bool counts(uid_t uid) const { return uid != 0 && uid != daemon_uid; }
};

namespace {

// While out of descriptors with none left to turn connections away, accepting waits this long.
constexpr auto kOutOfDescriptorsPause = std::chrono::milliseconds(100);

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(stream_protocol::socket socket, std::shared_ptr<ControlServer::Shared> shared,
          PeerCredentials peer)
      : socket_(std::move(socket)),
        shared_(std::move(shared)),
        peer_(peer),
        buffer_(shared_->limits.max_request_bytes),
        idle_(socket_.get_executor()) {
    ++shared_->open;
    if (shared_->counts(peer_.uid)) {
      ++shared_->per_uid[peer_.uid];
      ++shared_->counted;
    }
  }
  ~Session() {
    --shared_->open;
    if (shared_->counts(peer_.uid)) {
      --shared_->counted;
      if (--shared_->per_uid[peer_.uid] == 0) shared_->per_uid.erase(peer_.uid);
    }
  }

  void read() {
    idle_.expires_after(shared_->limits.idle_timeout);
    idle_.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
      if (ec) return;
      if (auto self = weak.lock()) {
        boost::system::error_code ignored;
        self->socket_.close(ignored);  // the pending read ends, and with it the session
      }
    });
    boost::asio::async_read_until(
        socket_, buffer_, '\n',
        [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
          self->idle_.cancel();
          if (ec) {
            if (ec == boost::asio::error::not_found)
              self->reply({{"ok", false},
                           {"error", "request longer than " +
                                         std::to_string(self->shared_->limits.max_request_bytes) +
                                         " bytes"}},
                          false);
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
            answer = self->shared_->handler(request, self->peer_);
          self->reply(answer, true);
        });
  }

 private:
  void reply(const nlohmann::json& answer, bool more) {
    auto text = std::make_shared<std::string>(
        answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    // A client that never reads its reply is cut off like one that never finishes a line.
    idle_.expires_after(shared_->limits.idle_timeout);
    idle_.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
      if (ec) return;
      if (auto self = weak.lock()) {
        boost::system::error_code ignored;
        self->socket_.close(ignored);
      }
    });
    boost::asio::async_write(
        socket_, boost::asio::buffer(*text),
        [self = shared_from_this(), text, more](const boost::system::error_code& ec, std::size_t) {
          self->idle_.cancel();
          if (!ec && more) self->read();
        });
  }

  stream_protocol::socket socket_;
  std::shared_ptr<ControlServer::Shared> shared_;
  PeerCredentials peer_;
  boost::asio::streambuf buffer_;
  boost::asio::steady_timer idle_;
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

// Tells a client why it is turned away (best effort, never blocking) and closes.
void refuse(stream_protocol::socket& socket, const std::string& why) {
  const std::string line = nlohmann::json{{"ok", false}, {"error", why}}.dump() + "\n";
  [[maybe_unused]] auto n =
      ::send(socket.native_handle(), line.data(), line.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  boost::system::error_code ignored;
  socket.close(ignored);
}

}  // namespace

Expected<std::unique_ptr<ControlServer>> ControlServer::listen(boost::asio::io_context& io,
                                                               const std::string& path,
                                                               Handler handler,
                                                               ControlLimits limits) {
  const auto slash = path.rfind('/');
  if (path.empty() || path.front() != '/' || slash == 0 || slash + 1 == path.size())
    return Error(Errc::kInvalidArgument, path + ": expected an absolute path of a socket file");
  const uid_t me = ::geteuid();
  auto dir = open_private_directory(path.substr(0, slash), me, true);
  if (!dir)
    return Error(Errc::kInvalidArgument, "will not put the control socket in " +
                                             path.substr(0, slash) + ": " + dir.error().message);
  const std::string name = path.substr(slash + 1);
  struct stat st {};
  if (::fstatat(dir->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (!S_ISSOCK(st.st_mode))
      return Error(Errc::kInvalidArgument, path + " exists and is not a socket; not replacing it");
    if (someone_listens(path))
      return Error(Errc::kInvalidArgument, "another symmerd already listens at " + path);
    ::unlinkat(dir->get(), name.c_str(), 0);  // left by a daemon that died
  }
  std::unique_ptr<ControlServer> server(new ControlServer(io, path, std::move(handler), limits));
  server->shared_->daemon_uid = me;
  boost::system::error_code ec;
  server->acceptor_.open(stream_protocol(), ec);
  if (!ec) {
    // Mode 0666 from the start: every user may connect (what they may do is decided per
    // request); nothing changes the file's mode by its path afterwards.
    const mode_t old = ::umask(0111);
    server->acceptor_.bind(stream_protocol::endpoint(path), ec);
    ::umask(old);
  }
  if (!ec) server->acceptor_.listen(boost::asio::socket_base::max_listen_connections, ec);
  if (!ec) server->acceptor_.native_non_blocking(true, ec);
  if (ec) {
    server->path_.clear();  // not ours to remove
    return Error(Errc::kIo, "cannot listen at " + path + ": " + ec.message());
  }
  server->accept();
  return server;
}

ControlServer::ControlServer(boost::asio::io_context& io, std::string path, Handler handler,
                             ControlLimits limits)
    : path_(std::move(path)),
      shared_(std::make_shared<Shared>()),
      acceptor_(io),
      reserve_fd_(::open("/dev/null", O_RDONLY | O_CLOEXEC)) {
  shared_->handler = std::move(handler);
  shared_->limits = limits;
}

ControlServer::~ControlServer() {
  boost::system::error_code ec;
  acceptor_.close(ec);
  if (!path_.empty()) ::unlink(path_.c_str());
  if (reserve_fd_ >= 0) ::close(reserve_fd_);
}

std::size_t ControlServer::connections() const { return shared_->open; }

nlohmann::json ControlServer::to_json() const {
  return {{"open", shared_->open},
          {"turned_away", turned_away_},
          {"accepts_out_of_descriptors", accepts_out_of_fds_}};
}

void ControlServer::turn_away() {
  ++accepts_out_of_fds_;
  if (!said_out_of_fds_)
    spdlog::warn("symmerd: out of file descriptors: turning connections away until some close");
  said_out_of_fds_ = true;
  if (reserve_fd_ >= 0) ::close(reserve_fd_);
  // accept fails for lack of a descriptor before it looks for a connection: the queue may be
  // empty, and accepting again at once would fail the same way for ever.
  const int fd = ::accept4(acceptor_.native_handle(), nullptr, nullptr, SOCK_CLOEXEC);
  if (fd >= 0) {
    ::close(fd);
    ++turned_away_;
  }
  reserve_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (reserve_fd_ < 0) {  // something else took it: no way to turn the next one away yet
    auto pause = std::make_shared<boost::asio::steady_timer>(acceptor_.get_executor(),
                                                             kOutOfDescriptorsPause);
    pause->async_wait([this, pause](const boost::system::error_code& e) {
      if (!e) accept();
    });
    return;
  }
  acceptor_.async_wait(stream_protocol::acceptor::wait_read,
                       [this](const boost::system::error_code& e) {
                         if (!e) accept();
                       });
}

void ControlServer::accept() {
  acceptor_.async_accept(
      [this](const boost::system::error_code& ec, stream_protocol::socket socket) {
        if (ec == boost::asio::error::operation_aborted) return;
        if (ec == boost::asio::error::no_descriptors || ec.value() == ENFILE) {
          turn_away();
          return;
        }
        if (!ec) {
          said_out_of_fds_ = false;
          const auto creds = peer_credentials(socket.native_handle());
          const Shared& s = *shared_;
          if (!creds) {
            refuse(socket, "no peer credentials");
          } else if (s.counts(creds->uid) && s.counted >= s.limits.total) {
            refuse(socket, "symmerd has " + std::to_string(s.counted) + " connections open");
          } else if (s.counts(creds->uid) && s.per_uid.count(creds->uid) &&
                     s.per_uid.at(creds->uid) >= s.limits.per_uid) {
            refuse(socket, "uid " + std::to_string(creds->uid) + " has " +
                               std::to_string(s.limits.per_uid) + " connections open already");
          } else {
            std::make_shared<Session>(std::move(socket), shared_, *creds)->read();
          }
        }
        accept();
      });
}

}  // namespace symmer::daemon
