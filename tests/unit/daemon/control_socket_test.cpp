// SPDX-License-Identifier: BSD-3-Clause
// The control socket: one JSON line each way, peer credentials, stale and taken paths, and
// the bounds on what a client may hold.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <csignal>
#include <cstring>
#include <fstream>
#include <thread>

#include "../segment/segment_test_util.hpp"
#include "control_client.hpp"
#include "control_server.hpp"
#include "symmer/segment/reader.hpp"

namespace symmer::daemon {
namespace {

using segment::testing::TempSegmentDir;
using ::testing::HasSubstr;

nlohmann::json echo(const nlohmann::json& request, const PeerCredentials& peer) {
  return {{"ok", true}, {"uid", peer.uid}, {"pid", peer.pid}, {"echo", request}};
}

TEST(ControlSocket, AnswersWithThePeersCredentials) {
  TempSegmentDir dir;
  const std::string path = dir.path() + "/run/d.sock";  // its directory is created
  boost::asio::io_context io;
  auto server = ControlServer::listen(io, path, echo);
  ASSERT_TRUE(server) << server.error().message;
  std::thread loop([&io] { io.run(); });
  const auto reply = send_request(path, {{"request", "status"}, {"x", 1}});
  const auto second = send_request(path, {{"request", "jobs"}});
  io.stop();
  loop.join();
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ((*reply)["uid"], ::geteuid());
  EXPECT_EQ((*reply)["pid"], ::getpid());
  EXPECT_EQ((*reply)["echo"]["x"], 1);
  ASSERT_TRUE(second);
  EXPECT_EQ((*second)["echo"]["request"], "jobs");
  server->reset();
  EXPECT_FALSE(std::filesystem::exists(path)) << "the socket outlived the server";
}

TEST(ControlSocket, ReplacesAStaleSocketButNotALiveOneOrAFile) {
  TempSegmentDir dir;
  const std::string path = dir.path() + "/d.sock";
  {  // a socket file nobody listens on any more
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::close(fd);
  }
  boost::asio::io_context io;
  auto first = ControlServer::listen(io, path, echo);
  ASSERT_TRUE(first) << first.error().message;
  auto second = ControlServer::listen(io, path, echo);
  ASSERT_FALSE(second);
  EXPECT_THAT(second.error().message, HasSubstr("already listens"));
  first->reset();
  std::ofstream(path) << "data";
  auto third = ControlServer::listen(io, path, echo);
  ASSERT_FALSE(third);
  EXPECT_THAT(third.error().message, HasSubstr("not a socket"));
  EXPECT_TRUE(std::filesystem::is_regular_file(path));
}

TEST(ControlSocket, IsOpenToEveryUserFromItsCreation) {
  TempSegmentDir dir;
  const std::string path = dir.path() + "/run/d.sock";
  boost::asio::io_context io;
  const mode_t old = ::umask(077);  // the daemon's umask does not decide who may connect
  auto server = ControlServer::listen(io, path, echo);
  ::umask(old);
  ASSERT_TRUE(server) << server.error().message;
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0666u);
}

TEST(ControlSocket, RefusesADirectoryOthersMayWriteIn) {
  TempSegmentDir dir;
  const std::string run = dir.path() + "/run";
  ASSERT_EQ(::mkdir(run.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(run.c_str(), 0777), 0);
  boost::asio::io_context io;
  auto server = ControlServer::listen(io, run + "/d.sock", echo);
  ASSERT_FALSE(server);
  EXPECT_THAT(server.error().message, HasSubstr("writable by others"));
  EXPECT_FALSE(std::filesystem::exists(run + "/d.sock"));
}

// Connects to `path` without sending anything; -1 on failure.
int connect_raw(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Everything the server sends until it closes the connection (at most `wait`).
std::string read_until_closed(int fd, std::chrono::seconds wait) {
  std::string got;
  const auto end = std::chrono::steady_clock::now() + wait;
  char buf[4096];
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return got;
    got.append(buf, static_cast<std::size_t>(n));
  }
  return got + "(still open)";
}

TEST(ControlSocket, ClosesAConnectionThatNeverFinishesALine) {
  TempSegmentDir dir;
  const std::string path = dir.path() + "/d.sock";
  boost::asio::io_context io;
  ControlLimits limits;
  limits.idle_timeout = std::chrono::milliseconds(100);
  auto server = ControlServer::listen(io, path, echo, limits);
  ASSERT_TRUE(server) << server.error().message;
  std::thread loop([&io] { io.run(); });
  const int quiet = connect_raw(path);
  const int half = connect_raw(path);
  ASSERT_GE(quiet, 0);
  ASSERT_GE(half, 0);
  ASSERT_EQ(::send(half, "{\"request\":", 11, 0), 11);
  EXPECT_EQ(read_until_closed(quiet, std::chrono::seconds(30)), "");
  EXPECT_EQ(read_until_closed(half, std::chrono::seconds(30)), "");
  // A client that keeps to the protocol is served as before.
  EXPECT_TRUE(send_request(path, {{"request", "status"}}));
  io.stop();
  loop.join();
  ::close(quiet);
  ::close(half);
}

TEST(ControlSocket, RequestLinesAreBounded) {
  TempSegmentDir dir;
  const std::string path = dir.path() + "/d.sock";
  boost::asio::io_context io;
  ControlLimits limits;
  limits.max_request_bytes = 1024;
  auto server = ControlServer::listen(io, path, echo, limits);
  ASSERT_TRUE(server) << server.error().message;
  std::thread loop([&io] { io.run(); });
  const int fd = connect_raw(path);
  ASSERT_GE(fd, 0);
  const std::string flood(4096, 'x');
  ASSERT_GT(::send(fd, flood.data(), flood.size(), MSG_NOSIGNAL), 0);
  EXPECT_THAT(read_until_closed(fd, std::chrono::seconds(30)),
              HasSubstr("request longer than 1024 bytes"));
  io.stop();
  loop.join();
  ::close(fd);
}

TEST(ControlSocket, ClientsBelieveOnlyRootOrThemselves) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run a server as another user";
  TempSegmentDir dir;
  const std::string run = dir.path() + "/user";
  ASSERT_EQ(::mkdir(run.c_str(), 0755), 0);
  ASSERT_EQ(::chown(run.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  const std::string path = run + "/fake.sock";
  // Another user listens first and answers anything: "ok".
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 4) != 0)
      ::_exit(3);
    [[maybe_unused]] auto w = ::write(ready[1], "x", 1);
    const int c = ::accept(fd, nullptr, nullptr);
    const char reply[] = "{\"ok\": true, \"paused\": true}\n";
    [[maybe_unused]] auto n = ::write(c, reply, sizeof reply - 1);
    ::sleep(5);
    ::_exit(0);
  }
  char x = 0;
  ASSERT_EQ(::read(ready[0], &x, 1), 1);
  const auto reply = send_request(path, {{"request", "pause"}});
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  ASSERT_FALSE(reply) << "believed " << reply->dump();
  EXPECT_THAT(reply.error().message, HasSubstr("runs as uid 65534, neither root nor you"));
}

TEST(ControlSocket, NoDaemonIsNotFound) {
  const auto r = send_request("/nonexistent/symmerd.sock", {{"request", "status"}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::kNotFound);
}

TEST(ControlSocket, DefaultPaths) {
  EXPECT_EQ(default_socket_path(0), "/run/symmer/symmerd.sock");
  ::setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
  EXPECT_EQ(default_socket_path(1000), "/run/user/1000/symmer/symmerd.sock");
  ::unsetenv("XDG_RUNTIME_DIR");
  EXPECT_EQ(default_socket_path(1000), "/tmp/symmer-1000/symmerd.sock");
  ::setenv("SYMMERD_SOCKET", "/x/y.sock", 1);
  EXPECT_EQ(client_socket_path(), "/x/y.sock");
  ::unsetenv("SYMMERD_SOCKET");
}

}  // namespace
}  // namespace symmer::daemon
