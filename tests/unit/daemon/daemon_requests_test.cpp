// SPDX-License-Identifier: BSD-3-Clause
// Daemon requests with injected peer credentials: read-only requests for anyone, changes for
// root, the daemon's user and the job's owner only. The job is a real segment whose only
// rank is this test process.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>

#include "../segment/segment_test_util.hpp"
#include "daemon.hpp"
#include "symmer/segment/reader.hpp"

namespace symmer::daemon {
namespace {

using segment::testing::TempSegmentDir;
using ::testing::HasSubstr;

class DaemonRequests : public ::testing::Test {
 protected:
  void SetUp() override {
    auto params = segment::testing::small_params(dir_.path(), 1);
    params.node_count = 1;
    params.world_size = 1;
    auto w = segment::SegmentWriter::create(params);
    ASSERT_TRUE(w) << w.error().message;
    writer_.emplace(std::move(*w));
    writer_->attach_slot(0, 0, segment::mask_of(std::vector<int>{0}), 0);
    DaemonConfig config;
    config.segment_dir = dir_.path();
    config.analyzer.period = std::chrono::milliseconds(100);
    daemon_ = std::make_unique<Daemon>(
        io_, config, "", topology::NodeModel::from_this_node(topology::GpuQuery::kNone));
    daemon_->run_period();
    jobs_ = daemon_->handle({{"request", "jobs"}}, owner_)["jobs"];
    ASSERT_EQ(jobs_.size(), 1u) << jobs_.dump();
  }
  nlohmann::json ask(const nlohmann::json& request, const PeerCredentials& who) {
    return daemon_->handle(request, who);
  }
  std::string job() const { return jobs_[0]["job_id"]; }

  TempSegmentDir dir_;
  std::optional<segment::SegmentWriter> writer_;
  boost::asio::io_context io_;
  std::unique_ptr<Daemon> daemon_;
  nlohmann::json jobs_;
  // The job's owner is this process's user, who also runs the daemon here; a stranger is
  // anyone else.
  const PeerCredentials owner_{::getpid(), ::geteuid(), ::getegid()};
  const PeerCredentials stranger_{4242, ::geteuid() + 4321, 4321};
  const PeerCredentials root_{1, 0, 0};
};

TEST_F(DaemonRequests, AdoptsTheJobAndClaimsItInTheSegment) {
  EXPECT_EQ(jobs_[0]["state"], "managed");
  EXPECT_EQ(jobs_[0]["app"], "unit-test");
  EXPECT_EQ(jobs_[0]["daemon_pid"], ::getpid());
  const auto snap = segment::read_segment(writer_->path());
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->header.claim_pid, static_cast<std::uint64_t>(::getpid()));
  EXPECT_EQ(snap->header.claim_kind, static_cast<std::uint64_t>(segment::ClaimKind::kDaemon));
  EXPECT_GT(snap->header.claim_lease_ns, segment::monotonic_ns());
  daemon_->stop();  // hands the job back to its embedded analyzer
  EXPECT_EQ(segment::read_segment(writer_->path())->header.claim_pid, 0u);
}

TEST_F(DaemonRequests, ReadOnlyRequestsAreForEveryone) {
  for (const char* r : {"status", "jobs", "ranks", "cores", "decisions"}) {
    const auto reply = ask({{"request", r}}, stranger_);
    EXPECT_TRUE(reply["ok"]) << r << ": " << reply.dump();
  }
  const auto ranks = ask({{"request", "ranks"}, {"job", job()}}, stranger_);
  ASSERT_EQ(ranks["ranks"].size(), 1u);
  EXPECT_EQ(ranks["ranks"][0]["pid"], ::getpid());
}

TEST_F(DaemonRequests, ChangesAreRefusedToStrangers) {
  const nlohmann::json refused[] = {
      {{"request", "pause"}},
      {{"request", "pause"}, {"job", job()}},
      {{"request", "resume"}, {"job", job()}},
      {{"request", "advice"}, {"on", true}},
      {{"request", "advice"}, {"on", true}, {"job", job()}},
      {{"request", "policy"}, {"set", {{"min_gain", 0.2}}}},
      {{"request", "policy"}, {"job", job()}, {"set", {{"min_gain", 0.2}}}},
      {{"request", "reload"}},
      {{"request", "register"}, {"segment", jobs_[0]["job"]}},
      {{"request", "reserve"}, {"cpus", {0}}, {"pid", ::getpid()}},
  };
  for (const auto& r : refused) {
    const auto reply = ask(r, stranger_);
    EXPECT_FALSE(reply["ok"]) << r.dump();
    EXPECT_TRUE(reply.value("denied", false)) << r.dump() << " -> " << reply.dump();
    EXPECT_THAT(reply.value("error", ""), HasSubstr("permission denied")) << r.dump();
  }
  const auto status = ask({{"request", "status"}}, stranger_);
  EXPECT_FALSE(status["paused"]);
  EXPECT_FALSE(status["advice_only"]);
  const auto j = ask({{"request", "jobs"}}, stranger_)["jobs"][0];
  EXPECT_FALSE(j["paused"]);
  EXPECT_FALSE(j["advice_only"]);
  EXPECT_EQ(j["analysis"]["min_gain"], 0.05);
  EXPECT_EQ(ask({{"request", "cores"}}, stranger_)["cores"][0]["reserved"].size(), 0u);
}

TEST_F(DaemonRequests, TheOwnerAndRootMayChangeTheJob) {
  EXPECT_TRUE(ask({{"request", "pause"}, {"job", job()}}, owner_)["ok"]);
  EXPECT_TRUE(ask({{"request", "jobs"}}, owner_)["jobs"][0]["paused"]);
  EXPECT_TRUE(ask({{"request", "resume"}, {"job", job()}}, root_)["ok"]);
  EXPECT_FALSE(ask({{"request", "jobs"}}, owner_)["jobs"][0]["paused"]);
  EXPECT_TRUE(ask({{"request", "advice"}, {"on", true}, {"job", job()}}, owner_)["ok"]);
  EXPECT_TRUE(ask({{"request", "jobs"}}, owner_)["jobs"][0]["advice_only"]);
  const auto p =
      ask({{"request", "policy"}, {"job", job()}, {"set", {{"min_gain", 0.25}}}}, owner_);
  ASSERT_TRUE(p["ok"]) << p.dump();
  EXPECT_EQ(ask({{"request", "jobs"}}, owner_)["jobs"][0]["analysis"]["min_gain"], 0.25);
  // The daemon as a whole: root or its own user.
  EXPECT_TRUE(ask({{"request", "pause"}}, root_)["ok"]);
  EXPECT_TRUE(ask({{"request", "status"}}, owner_)["paused"]);
  EXPECT_TRUE(ask({{"request", "resume"}}, owner_)["ok"]);
}

TEST_F(DaemonRequests, BadRequestsSayWhatIsWrong) {
  EXPECT_THAT(
      ask({{"request", "policy"}, {"job", job()}, {"set", {{"min_gain", 9}}}}, owner_)["error"]
          .get<std::string>(),
      HasSubstr("analyzer.min_gain"));
  EXPECT_THAT(ask({{"request", "fly"}}, owner_)["error"].get<std::string>(),
              HasSubstr("unknown request"));
  EXPECT_THAT(ask(nlohmann::json::array(), owner_)["error"].get<std::string>(),
              HasSubstr("request"));
  EXPECT_THAT(ask({{"request", "pause"}, {"job", "ffff"}}, owner_)["error"].get<std::string>(),
              HasSubstr("no job"));
  EXPECT_THAT(ask({{"request", "advice"}}, owner_)["error"].get<std::string>(),
              HasSubstr("\"on\""));
  EXPECT_THAT(
      ask({{"request", "register"}, {"segment", "/etc/passwd"}}, root_)["error"].get<std::string>(),
      HasSubstr("not in"));
  EXPECT_THAT(ask({{"request", "reserve"}, {"cpus", {99999}}}, owner_)["error"].get<std::string>(),
              HasSubstr("not on this node"));
}

TEST_F(DaemonRequests, ReservationsShowAndEnd) {
  const auto r = ask({{"request", "reserve"}, {"cpus", {0}}, {"pid", ::getpid()}}, owner_);
  ASSERT_TRUE(r["ok"]) << r.dump();
  const auto cores = ask({{"request", "cores"}}, stranger_)["cores"];
  EXPECT_EQ(cores[0]["reserved"].size(), 1u);
  EXPECT_TRUE(ask({{"request", "release"}, {"pid", ::getpid()}}, owner_)["ok"]);
  EXPECT_EQ(ask({{"request", "cores"}}, stranger_)["cores"][0]["reserved"].size(), 0u);
}

// Reservations take Linux CPUs and answer with them, on a node whose Linux numbering is not
// its logical order: CPU 1 is on logical core 2, with CPU 5 (hwloc numbers a package's cores
// first; Linux alternates the packages).
TEST(DaemonNumbering, ReservationsSpeakLinuxCpusWhereTheyDifferFromLogicalCores) {
  TempSegmentDir dir;
  boost::asio::io_context io;
  DaemonConfig config;
  config.segment_dir = dir.path();
  Daemon daemon(io, config, "",
                topology::NodeModel::from_synthetic("pack:2 core:2 pu:2(indexes=0,4,2,6,1,5,3,7)"));
  const PeerCredentials owner{::getpid(), ::geteuid(), ::getegid()};
  const auto r = daemon.handle({{"request", "reserve"}, {"cpus", {1}}, {"pid", ::getpid()}}, owner);
  ASSERT_TRUE(r["ok"]) << r.dump();
  EXPECT_EQ(r["cpus"], nlohmann::json({1, 5}));
  EXPECT_EQ(r["cores"], nlohmann::json({2}));
  for (const auto& c : daemon.handle({{"request", "cores"}}, owner)["cores"])
    EXPECT_EQ(c["reserved"].size(), c["cpus"] == nlohmann::json({1, 5}) ? 1u : 0u) << c.dump();
}

TEST_F(DaemonRequests, AnEndedJobIsDropped) {
  ASSERT_TRUE(writer_->remove());
  daemon_->run_period();
  EXPECT_TRUE(ask({{"request", "jobs"}}, owner_)["jobs"].empty());
}

}  // namespace
}  // namespace symmer::daemon
