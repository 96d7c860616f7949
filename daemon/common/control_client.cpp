// SPDX-License-Identifier: BSD-3-Clause
// symmerd control socket client (see control_client.hpp).
#include "control_client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace symmer::daemon {
namespace {

std::uint64_t elapsed_ms(std::chrono::steady_clock::time_point since) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::steady_clock::now() - since)
                                        .count());
}

// Waits until `fd` is ready for `events` or the deadline passes; false on timeout or error.
bool wait_ready(int fd, short events, std::chrono::steady_clock::time_point start,
                std::chrono::milliseconds timeout) {
  while (true) {
    const auto spent = elapsed_ms(start);
    if (spent >= static_cast<std::uint64_t>(timeout.count())) return false;
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(timeout.count() - spent));
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) return false;
  }
}

}  // namespace

std::string default_socket_path(uid_t euid) {
  if (euid == 0) return "/run/symmer/symmerd.sock";
  if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg != nullptr && *xdg != '\0')
    return std::string(xdg) + "/symmer/symmerd.sock";
  return "/tmp/symmer-" + std::to_string(euid) + "/symmerd.sock";
}

std::string client_socket_path() {
  if (const char* s = std::getenv("SYMMERD_SOCKET"); s != nullptr && *s != '\0') return s;
  const std::string own = default_socket_path(::geteuid());
  struct stat st {};
  if (::stat(own.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) return own;
  return default_socket_path(0);
}

Expected<nlohmann::json> send_request(const std::string& socket_path, const nlohmann::json& request,
                                      std::chrono::milliseconds timeout) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof addr.sun_path)
    return Error(Errc::kInvalidArgument, socket_path + ": socket path too long");
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error(Errc::kIo, std::string("socket: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int e = errno;
    return Error(e == ENOENT || e == ECONNREFUSED ? Errc::kNotFound : Errc::kIo,
                 "no symmerd at " + socket_path + ": " + std::strerror(e));
  }
  // Believe only a daemon run by root or by the caller: anyone else listening there (a user
  // who got to the path first) could answer anything.
  ucred server{};
  socklen_t len = sizeof server;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &server, &len) != 0 || len != sizeof server)
    return Error(Errc::kIo, socket_path + ": cannot tell who listens there (SO_PEERCRED)");
  if (server.uid != 0 && server.uid != ::geteuid())
    return Error(Errc::kIo, socket_path + ": the server there runs as uid " +
                                std::to_string(server.uid) +
                                ", neither root nor you: not talking to it");
  const auto start = std::chrono::steady_clock::now();
  const std::string line = request.dump() + "\n";
  for (std::size_t sent = 0; sent < line.size();) {
    if (!wait_ready(fd, POLLOUT, start, timeout))
      return Error(Errc::kIo, socket_path + ": timed out sending the request");
    const ssize_t n = ::send(fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error(Errc::kIo, socket_path + ": send: " + std::strerror(errno));
    sent += static_cast<std::size_t>(n);
  }
  std::string reply;
  char buf[65536];
  while (reply.find('\n') == std::string::npos) {
    if (!wait_ready(fd, POLLIN, start, timeout))
      return Error(Errc::kIo, socket_path + ": timed out waiting for the reply");
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error(Errc::kIo, socket_path + ": receive: " + std::strerror(errno));
    if (n == 0) return Error(Errc::kIo, socket_path + ": the daemon closed the connection");
    reply.append(buf, static_cast<std::size_t>(n));
  }
  reply.resize(reply.find('\n'));
  auto parsed = nlohmann::json::parse(reply, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object())
    return Error(Errc::kParse, socket_path + ": the reply is not a JSON object");
  return parsed;
}

}  // namespace symmer::daemon
