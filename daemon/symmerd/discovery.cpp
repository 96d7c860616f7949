// SPDX-License-Identifier: BSD-3-Clause
// symmerd: the segment directory -- inotify, the scan, adopting jobs and keeping their
// claims, removing segments nobody needs, and what one user's segments may cost (see
// daemon.hpp).
#include <dirent.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "daemon.hpp"
#include "symmer/segment/naming.hpp"

namespace symmer::daemon {
namespace {

using analysis::Clock;
using analysis::TimePoint;

// The claim outlives this many missed periods (and at least kMinLease) before another
// analyzer may take the job.
constexpr int kLeasePeriods = 3;
constexpr auto kMinLease = std::chrono::seconds(2);
// A segment that could not be adopted is read again when it changes, or after this many
// periods (its job may have ended meanwhile, and it may go).
constexpr std::uint64_t kRecheckPeriods = 100;
// inotify events closer than this to the previous scan wait for the period's scan.
constexpr auto kMinScanInterval = std::chrono::milliseconds(20);
// Seqlock attempts per slot: a rank holds its slot's sequence odd for microseconds; a slot
// caught mid-publish waits for the next period rather than the daemon for it.
constexpr int kReadTries = 16;

std::string mib(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

std::uint64_t Daemon::lease_ns() const {
  const auto lease =
      std::max<std::chrono::nanoseconds>(state_.config.analyzer.period * kLeasePeriods, kMinLease);
  return static_cast<std::uint64_t>(lease.count());
}

segment::ReadOptions Daemon::read_options() {
  segment::ReadOptions options;
  options.max_tries = kReadTries;
  options.max_bytes = state_.config.max_segment_bytes;
  options.admit = [this](const segment::SegmentHeader& h) -> Status {
    std::uint64_t& used = read_this_period_[static_cast<uid_t>(h.owner_uid)];
    if (used + h.total_size > state_.config.max_user_bytes_per_period)
      return Error(Errc::kUnsupported, "uid " + std::to_string(h.owner_uid) + " used its " +
                                           mib(state_.config.max_user_bytes_per_period) +
                                           " of segment reading this period");
    used += h.total_size;
    return {};
  };
  return options;
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
      const auto now = Clock::now();
      // A user creating files as fast as possible gets the period's scans only.
      if (now - self->last_scan_ >= kMinScanInterval) self->scan(now);
      self->inotify_->async_read_some(boost::asio::buffer(self->inotify_buffer_), *this);
    }
  };
  inotify_->async_read_some(boost::asio::buffer(inotify_buffer_), Reader{this});
}

bool Daemon::due(const std::string& path) {
  const auto it = problem_files_.find(path);
  if (it == problem_files_.end()) return true;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return true;
  const FileSeen& seen = it->second;
  const bool same =
      st.st_dev == seen.device && st.st_ino == seen.inode &&
      static_cast<std::uint64_t>(st.st_size) == seen.size &&
      st.st_mtim.tv_sec == seen.mtime.tv_sec && st.st_mtim.tv_nsec == seen.mtime.tv_nsec &&
      st.st_ctim.tv_sec == seen.ctime.tv_sec && st.st_ctim.tv_nsec == seen.ctime.tv_nsec;
  return !same || state_.periods >= seen.period + kRecheckPeriods;
}

void Daemon::note_problem(const std::string& path, const std::string& error) {
  struct stat st {};
  FileSeen seen;
  if (::lstat(path.c_str(), &st) == 0)
    seen = {st.st_dev,  st.st_ino,  static_cast<std::uint64_t>(st.st_size),
            st.st_mtim, st.st_ctim, state_.periods};
  else
    seen.period = state_.periods;
  problem_files_[path] = seen;
  const auto it = state_.problems.find(path);
  if (it == state_.problems.end() || it->second != error) {
    // A segment still being built has no magic yet: only later failures are news.
    if (it != state_.problems.end()) spdlog::warn("symmerd: not adopting {}: {}", path, error);
    state_.problems[path] = error;
  }
}

void Daemon::scan(TimePoint now) {
  last_scan_ = now;
  const std::string dir = segment_dir();
  std::map<std::uint64_t, std::vector<std::string>> by_user;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const auto parsed = segment::parse_segment_file_name(e->d_name);
      // An ordinary user's daemon serves that user's jobs only.
      if (parsed && (state_.uid == 0 || parsed->uid == state_.uid))
        by_user[parsed->uid].emplace_back(e->d_name);
    }
    ::closedir(d);
  }
  std::set<std::string> present;
  for (auto& [uid, names] : by_user) {
    std::sort(names.begin(), names.end());
    const std::size_t limit = state_.config.max_user_segments;
    const std::string crowd = "uid " + std::to_string(uid);
    if (names.size() > limit) {
      present.insert(crowd);
      if (!state_.problems.count(crowd))
        spdlog::warn("symmerd: uid {} has {} segment files in {}; only the first {} are looked at",
                     uid, names.size(), dir, limit);
      state_.problems[crowd] = std::to_string(names.size()) + " segment files; only the first " +
                               std::to_string(limit) + " are looked at";
      names.resize(limit);
    }
    for (const auto& name : names) {
      const std::string path = dir + "/" + name;
      present.insert(path);
      if (state_.jobs.count(name) || !due(path)) continue;
      std::string error;
      if (adopt(path, now, &error)) {
        state_.problems.erase(path);
        problem_files_.erase(path);
      } else if (!error.empty()) {
        note_problem(path, error);
      }
    }
  }
  for (auto it = state_.problems.begin(); it != state_.problems.end();)
    it = present.count(it->first) ? std::next(it) : state_.problems.erase(it);
  for (auto it = problem_files_.begin(); it != problem_files_.end();)
    it = present.count(it->first) ? std::next(it) : problem_files_.erase(it);
}

bool Daemon::adopt(const std::string& path, TimePoint now, std::string* error) {
  auto file = segment::SegmentFile::open(path, segment::SegmentFile::Access::kRead);
  if (!file) {
    if (file.error().code != Errc::kNotFound) *error = file.error().message;
    return false;
  }
  const auto read = read_options();
  const auto snap = segment::read_segment(*file, read);
  if (!snap && snap.error().code == Errc::kUnsupported) return false;  // next period
  // Nobody's: a dead job's, or a corrupt one whose creator is not a process of it.
  if (segment::segment_liveness(*file, snap) == segment::Liveness::kDead) {
    if (file->remove()) {
      if (snap)
        spdlog::info("symmerd: removed the segment of ended job {} ({})",
                     segment::job_id_text(snap->header.job_id), path);
      else
        spdlog::info("symmerd: removed {} of uid {}, corrupt and of no live process ({})", path,
                     file->status().st_uid, snap.error().message);
    }
    return false;
  }
  if (!snap) {
    *error = snap.error().message;
    return false;
  }
  const std::string key = path.substr(path.rfind('/') + 1);
  auto job =
      ManagedJob::open(path, log_dir_, state_.node, settings_for(key), next_order_, now, read);
  if (!job) {
    if (job.error().code != Errc::kNotFound && job.error().code != Errc::kUnsupported)
      *error = job.error().message;
    return false;
  }
  ++next_order_;
  ManagedJob& j = **job;
  segment::Claim found;
  const auto outcome = j.claim(lease_ns(), &found);
  const std::string id = segment::job_id_text(j.job_id());
  const bool from_daemon = found.kind == segment::ClaimKind::kDaemon && found.holder.pid != 0 &&
                           found.holder.pid != state_.pid;
  if (outcome == segment::ClaimOutcome::kHeld)
    spdlog::info("symmerd: adopted job {} ({}, {} rank(s), uid {}){}", id,
                 j.snapshot().header.app_name, j.snapshot().header.local_ranks, j.owner_uid(),
                 from_daemon ? ", taking over from symmerd pid " +
                                   std::to_string(found.holder.pid) + " (gone)"
                             : "");
  else if (found.kind == segment::ClaimKind::kEmbedded)
    spdlog::info("symmerd: job {}: asked its embedded analyzer for it", id);
  else
    spdlog::warn("symmerd: job {} is analysed by {} pid {}; watching only", id,
                 segment::claim_kind_name(found.kind), found.holder.pid);
  state_.jobs[key] = std::move(*job);
  return true;
}

void Daemon::renew_claims(TimePoint) {
  for (auto& [key, job] : state_.jobs) {
    const bool was = job->claimed();
    segment::Claim found;
    job->claim(lease_ns(), &found);
    if (job->claimed() && !was)
      spdlog::info("symmerd: job {}: analysed by this daemon now",
                   segment::job_id_text(job->job_id()));
    else if (was && !job->claimed())
      spdlog::warn("symmerd: job {}: lost its claim to {} pid {}; watching only",
                   segment::job_id_text(job->job_id()), segment::claim_kind_name(found.kind),
                   found.holder.pid);
  }
}

void Daemon::drop(const std::string& key, const std::string& why, TimePoint now) {
  const auto it = state_.jobs.find(key);
  if (it == state_.jobs.end()) return;
  spdlog::info("symmerd: job {} {}", segment::job_id_text(it->second->job_id()), why);
  it->second->tick(now);
  // Its summary reaches the decisions (and symmer-run --report) before the job goes.
  it->second->finish(now);
  collect_events();
  state_.jobs.erase(it);
  state_.overrides.erase(key);
}

}  // namespace symmer::daemon
