// SPDX-License-Identifier: BSD-3-Clause
// symmerd: the segment directory -- inotify, the scan, adopting jobs and keeping their
// claims, dropping ended ones (see daemon.hpp).
#include <dirent.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "daemon.hpp"
#include "symmer/segment/naming.hpp"

namespace symmer::daemon {
namespace {

using analysis::Clock;
using analysis::TimePoint;

// The claim outlives this many missed periods (and at least kMinLease) before the embedded
// analyzer takes over again.
constexpr int kLeasePeriods = 3;
constexpr auto kMinLease = std::chrono::seconds(2);

// Whether a process exists (signal 0 reaches it, or it exists but belongs to someone else).
bool process_exists(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

}  // namespace

std::uint64_t Daemon::lease_ns() const {
  const auto lease =
      std::max<std::chrono::nanoseconds>(state_.config.analyzer.period * kLeasePeriods, kMinLease);
  return segment::monotonic_ns() + static_cast<std::uint64_t>(lease.count());
}

void Daemon::watch_directory() {
  // inotify makes discovery prompt; the scan every period finds jobs without it too.
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) {
    spdlog::warn("symmerd: inotify unavailable ({}); jobs are found by the scan every period",
                 std::strerror(errno));
    return;
  }
  if (::inotify_add_watch(fd, segment_dir().c_str(), IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) <
      0) {
    spdlog::warn("symmerd: cannot watch {} ({}); jobs are found by the scan every period",
                 segment_dir(), std::strerror(errno));
    ::close(fd);
    return;
  }
  inotify_.emplace(io_, fd);
  struct Reader {
    Daemon* self;
    void operator()(const boost::system::error_code& ec, std::size_t) const {
      if (ec || self->stopped_) return;
      self->scan(Clock::now());
      self->inotify_->async_read_some(boost::asio::buffer(self->inotify_buffer_), *this);
    }
  };
  inotify_->async_read_some(boost::asio::buffer(inotify_buffer_), Reader{this});
}

void Daemon::scan(TimePoint now) {
  const std::string dir = segment_dir();
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
    ::closedir(d);
  }
  std::set<std::string> present;
  for (const auto& name : names) {
    const auto parsed = segment::parse_segment_file_name(name);
    if (!parsed) continue;
    // An ordinary user's daemon serves that user's jobs only.
    if (state_.uid != 0 && parsed->uid != state_.uid) continue;
    const std::string path = dir + "/" + name;
    present.insert(path);
    if (state_.jobs.count(name)) continue;
    std::string error;
    if (adopt(path, now, &error)) {
      state_.problems.erase(path);
    } else if (!error.empty()) {
      const auto it = state_.problems.find(path);
      if (it == state_.problems.end() || it->second != error) {
        // A segment still being built has no magic yet: only later failures are news.
        if (it != state_.problems.end()) spdlog::warn("symmerd: not adopting {}: {}", path, error);
        state_.problems[path] = error;
      }
    }
  }
  for (auto it = state_.problems.begin(); it != state_.problems.end();)
    it = present.count(it->first) ? std::next(it) : state_.problems.erase(it);
}

bool Daemon::adopt(const std::string& path, TimePoint now, std::string* error) {
  auto snap = segment::read_segment(path);
  if (!snap) {
    if (snap.error().code != Errc::kNotFound) *error = snap.error().message;
    return false;
  }
  if (segment::job_liveness(*snap) == segment::Liveness::kDead) {
    if (::unlink(path.c_str()) == 0)
      spdlog::info("symmerd: removed the segment of ended job {} ({})",
                   segment::job_id_text(snap->header.job_id), path);
    return false;
  }
  const std::string key = path.substr(path.rfind('/') + 1);
  auto job = ManagedJob::open(path, log_dir_, state_.node, settings_for(key), next_order_, now);
  if (!job) {
    if (job.error().code != Errc::kNotFound) *error = job.error().message;
    return false;
  }
  ++next_order_;
  ManagedJob& j = **job;
  const auto holder = j.holder();
  const bool other = holder.pid != 0 && holder.pid != static_cast<std::uint64_t>(state_.pid);
  const bool other_alive = other && holder.held(segment::monotonic_ns()) &&
                           process_exists(static_cast<pid_t>(holder.pid));
  if (j.claim(state_.pid, lease_ns(), other && !other_alive))
    spdlog::info(
        "symmerd: adopted job {} ({}, {} rank(s), uid {}){}", segment::job_id_text(j.job_id()),
        j.snapshot().header.app_name, j.snapshot().header.local_ranks, j.owner_uid(),
        other ? ", taking over from symmerd pid " + std::to_string(holder.pid) + " (gone)" : "");
  else
    spdlog::warn("symmerd: job {} is analysed by symmerd pid {}; watching only",
                 segment::job_id_text(j.job_id()), holder.pid);
  state_.jobs[key] = std::move(*job);
  return true;
}

void Daemon::renew_claims(TimePoint) {
  const auto until = lease_ns();
  for (auto& [key, job] : state_.jobs) {
    const auto holder = job->holder();
    const bool other = holder.pid != 0 && holder.pid != static_cast<std::uint64_t>(state_.pid);
    const bool holder_dead = other && !process_exists(static_cast<pid_t>(holder.pid));
    job->claim(state_.pid, until, holder_dead);
  }
}

void Daemon::drop(const std::string& key, const std::string& why, TimePoint now) {
  const auto it = state_.jobs.find(key);
  if (it == state_.jobs.end()) return;
  spdlog::info("symmerd: job {} {}", segment::job_id_text(it->second->job_id()), why);
  it->second->tick(now);
  state_.jobs.erase(it);
  state_.overrides.erase(key);
}

}  // namespace symmer::daemon
