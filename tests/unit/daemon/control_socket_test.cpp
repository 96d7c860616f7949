// SPDX-License-Identifier: BSD-3-Clause
// The control socket: one JSON line each way, peer credentials, stale and taken paths; and
// the daemon claim words of the segment (segment/control.hpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <fstream>
#include <thread>

#include "../segment/segment_test_util.hpp"
#include "control_client.hpp"
#include "control_server.hpp"
#include "symmer/segment/control.hpp"
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

TEST(DaemonClaim, OneDaemonAtATimeUntilItsLeaseLapses) {
  TempSegmentDir dir;
  auto w = segment::SegmentWriter::create(segment::testing::small_params(dir.path(), 1));
  ASSERT_TRUE(w) << w.error().message;
  auto control = segment::SegmentControl::open(w->path());
  ASSERT_TRUE(control) << control.error().message;
  const auto now = segment::monotonic_ns();
  EXPECT_FALSE(control->daemon_claim().held(now));  // a new segment has no claim
  ASSERT_TRUE(control->claim_for_daemon(100, now + 10'000'000'000ull));
  EXPECT_TRUE(control->daemon_claim().held(now));
  EXPECT_EQ(control->daemon_claim().pid, 100u);
  EXPECT_FALSE(control->claim_for_daemon(200, now + 10'000'000'000ull));  // held by 100
  EXPECT_TRUE(control->claim_for_daemon(100, now + 20'000'000'000ull));   // renewal
  control->release_daemon_claim(200);                                     // not 200's
  EXPECT_EQ(control->daemon_claim().pid, 100u);
  EXPECT_TRUE(control->claim_for_daemon(200, now + 10'000'000'000ull, true));  // 100 died
  EXPECT_EQ(control->daemon_claim().pid, 200u);
  control->release_daemon_claim(200);
  EXPECT_FALSE(control->daemon_claim().held(now));
  // A lapsed lease may be taken without take_over.
  ASSERT_TRUE(control->claim_for_daemon(300, now - 1));
  EXPECT_TRUE(control->claim_for_daemon(400, now + 10'000'000'000ull));
  // Readers see the claim, and still accept the segment.
  const auto snap = segment::read_segment(w->path());
  ASSERT_TRUE(snap) << snap.error().message;
  EXPECT_EQ(snap->header.daemon_pid, 400u);
}

}  // namespace
}  // namespace symmer::daemon
