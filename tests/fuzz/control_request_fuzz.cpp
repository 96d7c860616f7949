// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: symmerd's control requests, as any local user can send them. Each input is one
// connection: its first byte picks who sends (a stranger, the job's owner, root), the rest
// are request lines, each parsed and answered as the control socket does. A reply is always
// a JSON object with "ok"; nothing may crash, hang or grow without bound. The daemon serves
// one real job (this process is its only rank) in a private segment directory.
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "daemon.hpp"
#include "symmer/segment/writer.hpp"

namespace {

using namespace symmer;

struct World {
  std::string dir;
  std::optional<segment::SegmentWriter> job;
  boost::asio::io_context io;
  std::unique_ptr<daemon::Daemon> daemon;

  World() {
    std::string tmpl = "/tmp/symmer-fuzz-XXXXXX";
    dir = ::mkdtemp(tmpl.data());
    segment::SegmentParams p;
    p.directory = dir;
    p.job_id = 0x1234abcd5678ef01ull;
    p.app_name = "fuzzed";
    auto w = segment::SegmentWriter::create(p);
    if (!w) std::abort();
    job.emplace(std::move(*w));
    job->attach_slot(0, 0, segment::mask_of(std::vector<int>{0}), 1);
    daemon::DaemonConfig config;
    config.segment_dir = dir;
    daemon = std::make_unique<daemon::Daemon>(
        io, config, "", topology::NodeModel::from_synthetic("pack:1 core:4 pu:1"));
    daemon->run_period();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static World world;
  if (size == 0) return 0;
  const daemon::PeerCredentials peers[] = {
      {4242, ::geteuid() + 4321, 4321}, {::getpid(), ::geteuid(), ::getegid()}, {1, 0, 0}};
  const daemon::PeerCredentials& peer = peers[data[0] % 3];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const auto request = nlohmann::json::parse(text.substr(at, end - at), nullptr, false);
    at = end + 1;
    if (request.is_discarded()) continue;
    const auto reply = world.daemon->handle(request, peer);
    if (!reply.is_object() || !reply.contains("ok")) std::abort();
    (void)reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return 0;
}
