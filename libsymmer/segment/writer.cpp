// SPDX-License-Identifier: BSD-3-Clause
// Node segment creation (local rank 0) and attachment (every local rank).
#include "symmer/segment/writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "symmer/segment/naming.hpp"
#include "symmer/segment/process_identity.hpp"
#include "symmer/segment/reader.hpp"
#include "symmer/segment/segment_file.hpp"
#include "symmer/segment/shared_words.hpp"

namespace symmer::segment {
namespace {

std::string errno_text(int e) { return std::strerror(e); }

std::uint64_t realtime_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

void copy_string(char* dst, std::size_t n, const std::string& src) {
  const std::size_t len = std::min(n - 1, src.size());
  std::memcpy(dst, src.data(), len);
  dst[len] = '\0';
}

// Decides what to do with a file that already has our segment's name.
Status clear_existing(const std::string& path) {
  auto file = SegmentFile::open(path, SegmentFile::Access::kRead);
  if (!file) {
    if (file.error().code == Errc::kNotFound) return {};  // gone meanwhile: retry the create
    return Error(Errc::kIo,
                 path + " already exists and is not a segment (" + file.error().message + ")");
  }
  if (file->status().st_uid != ::geteuid())
    return Error(Errc::kIo, path + " already exists and belongs to uid " +
                                std::to_string(file->status().st_uid) + ", not to this job's uid " +
                                std::to_string(::geteuid()));
  const auto existing = read_segment(*file);
  const Liveness l = segment_liveness(*file, existing);
  if (l != Liveness::kDead) {
    if (!existing)
      return Error(Errc::kIo, path + " already exists and is not a usable segment (" +
                                  existing.error().message + ")");
    return Error(Errc::kIo, path + " already exists and belongs to a running job (creator pid " +
                                std::to_string(existing->header.creator_pid) + ")");
  }
  if (!file->remove() && ::access(path.c_str(), F_OK) == 0)
    return Error(Errc::kIo, "cannot remove stale " + path);
  return {};
}

}  // namespace

Expected<SegmentWriter> SegmentWriter::create(const SegmentParams& p) {
  if (p.job_id == 0) return Error(Errc::kInvalidArgument, "job id 0 is reserved");
  if (p.local_ranks < 1 || p.local_ranks > kMaxLocalRanks)
    return Error(Errc::kInvalidArgument, "local ranks " + std::to_string(p.local_ranks) +
                                             " outside 1.." + std::to_string(kMaxLocalRanks));
  if (p.node_count < 1 || p.node_index >= p.node_count || p.world_size < p.local_ranks ||
      p.world_size > kMaxWorldSize)
    return Error(Errc::kInvalidArgument, "inconsistent node/world sizes");

  const std::string dir = p.directory.empty() ? segment_directory() : p.directory;
  const std::string path = dir + "/" + segment_file_name(::geteuid(), p.job_id, p.node_id);
  remove_stale_segments(dir, ::geteuid());
  int fd = -1;
  for (int attempt = 0; attempt < 2 && fd < 0; ++attempt) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) break;
    if (errno != EEXIST)
      return Error(Errc::kIo, "cannot create " + path + ": " + errno_text(errno));
    if (auto cleared = clear_existing(path); !cleared) return cleared.error();
  }
  if (fd < 0) return Error(Errc::kIo, "cannot create " + path + ": it keeps reappearing");

  const std::uint64_t buckets = std::min(p.node_count, kMaxNodeBuckets);
  const std::uint64_t total = segment_bytes(p.local_ranks, buckets);
  Expected<GuardedMapping> map = Error(Errc::kIo, errno_text(errno));
  if (::fchmod(fd, 0600) == 0 && ::ftruncate(fd, static_cast<off_t>(total)) == 0)
    map = GuardedMapping::map(fd, total);
  else
    map = Error(Errc::kIo, errno_text(errno));
  if (!map) {
    ::close(fd);
    ::unlink(path.c_str());
    return Error(Errc::kIo, "cannot size or map " + path + ": " + map.error().message);
  }

  // The file is zero-filled; the header goes in before the magic makes it valid.
  auto* h = static_cast<SegmentHeader*>(map->data());
  const ProcessIdentity me = this_process();
  h->version = kSegmentVersion;
  h->header_size = sizeof(SegmentHeader);
  h->total_size = total;
  h->slot_size = slot_bytes(p.local_ranks, buckets);
  h->slots_offset = slots_offset(buckets);
  h->summaries_offset = kSummariesOffset;
  h->local_ranks = p.local_ranks;
  h->node_buckets = buckets;
  h->node_count = p.node_count;
  h->node_index = p.node_index;
  h->node_id = p.node_id;
  h->world_size = p.world_size;
  h->job_id = p.job_id;
  h->owner_uid = ::geteuid();
  h->creator_pid = static_cast<std::uint64_t>(me.pid);
  h->creator_start_ticks = me.start_ticks;
  h->pid_namespace = me.pid_namespace;
  h->created_realtime_ns = realtime_ns();
  h->created_monotonic_ns = monotonic_ns();
  h->mpi_family = static_cast<std::uint64_t>(p.mpi_family);
  h->thread_level = p.thread_level;
  h->eager_limit_local = p.eager_limit_local;
  h->eager_limit_remote = p.eager_limit_remote;
  h->publish_period_ns = p.publish_period_ns;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  copy_string(h->hostname, sizeof h->hostname, host);
  copy_string(h->app_name, sizeof h->app_name, p.app_name);
  copy_string(h->mpi_library, sizeof h->mpi_library, p.mpi_library);
  std::atomic_ref<std::uint64_t>(h->magic).store(kSegmentMagic, std::memory_order_release);
  const SegmentHeader made = *h;
  return SegmentWriter(path, fd, std::move(*map), made);
}

Expected<SegmentWriter> SegmentWriter::attach(const std::string& path, std::uint64_t job_id,
                                              std::uint64_t node_id, std::uint64_t local_ranks) {
  const int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Error(Errc::kIo, "cannot open " + path + ": " + errno_text(errno));
  struct stat st {};
  SegmentHeader h{};
  std::string problem;
  if (::fstat(fd, &st) != 0)
    problem = errno_text(errno);
  else if (st.st_uid != ::geteuid())
    problem = "owned by uid " + std::to_string(st.st_uid) + ", not by this job";
  else if (static_cast<std::uint64_t>(st.st_size) < sizeof h ||
           ::pread(fd, &h, sizeof h, 0) != static_cast<ssize_t>(sizeof h))
    problem = "truncated header";
  else if (h.magic != kSegmentMagic || h.version != kSegmentVersion)
    problem = "wrong magic or version";
  else if (h.job_id != job_id || h.node_id != node_id || h.local_ranks != local_ranks)
    problem = "belongs to another job, node or size";
  else if (h.node_buckets < 1 || h.node_buckets > kMaxNodeBuckets ||
           h.total_size != segment_bytes(h.local_ranks, h.node_buckets) ||
           h.total_size != static_cast<std::uint64_t>(st.st_size))
    problem = "inconsistent sizes";
  Expected<GuardedMapping> map = Error(Errc::kParse, problem);
  if (problem.empty()) {
    map = GuardedMapping::map(fd, h.total_size);
    if (!map) problem = "cannot map: " + map.error().message;
  }
  if (!problem.empty()) {
    ::close(fd);
    return Error(Errc::kParse, path + ": " + problem);
  }
  return SegmentWriter(path, fd, std::move(*map), h);
}

SegmentWriter::SegmentWriter(std::string path, int fd, GuardedMapping map, const SegmentHeader& h)
    : path_(std::move(path)),
      fd_(fd),
      map_(std::move(map)),
      total_(h.total_size),
      slots_offset_(h.slots_offset),
      slot_size_(h.slot_size),
      summaries_offset_(h.summaries_offset),
      local_ranks_(h.local_ranks),
      node_buckets_(h.node_buckets) {}

SegmentWriter::SegmentWriter(SegmentWriter&& o) noexcept
    : path_(std::move(o.path_)),
      fd_(std::exchange(o.fd_, -1)),
      map_(std::move(o.map_)),
      total_(o.total_),
      slots_offset_(o.slots_offset_),
      slot_size_(o.slot_size_),
      summaries_offset_(o.summaries_offset_),
      local_ranks_(o.local_ranks_),
      node_buckets_(o.node_buckets_) {}

SegmentWriter& SegmentWriter::operator=(SegmentWriter&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(o.path_);
    fd_ = std::exchange(o.fd_, -1);
    map_ = std::move(o.map_);
    total_ = o.total_;
    slots_offset_ = o.slots_offset_;
    slot_size_ = o.slot_size_;
    summaries_offset_ = o.summaries_offset_;
    local_ranks_ = o.local_ranks_;
    node_buckets_ = o.node_buckets_;
  }
  return *this;
}

SegmentWriter::~SegmentWriter() {
  if (fd_ >= 0) ::close(fd_);
}

std::byte* SegmentWriter::slot(std::uint64_t local_rank) const {
  return static_cast<std::byte*>(map_.data()) + slots_offset_ + local_rank * slot_size_;
}
SlotIdentity& SegmentWriter::identity(std::uint64_t r) const {
  return *reinterpret_cast<SlotIdentity*>(slot(r));
}
SlotControl& SegmentWriter::control(std::uint64_t r) const {
  return *reinterpret_cast<SlotControl*>(slot(r) + kSlotControlOffset);
}
SlotTarget& SegmentWriter::target(std::uint64_t r) const {
  return *reinterpret_cast<SlotTarget*>(slot(r) + kSlotTargetOffset);
}
SlotPlacement& SegmentWriter::placement(std::uint64_t r) const {
  return *reinterpret_cast<SlotPlacement*>(slot(r) + kSlotPlacementOffset);
}
SlotCounters& SegmentWriter::counters(std::uint64_t r) const {
  return *reinterpret_cast<SlotCounters*>(slot(r) + kSlotCountersOffset);
}
PeerCounters* SegmentWriter::peers(std::uint64_t r) const {
  return reinterpret_cast<PeerCounters*>(slot(r) + kSlotPeersOffset);
}
SummaryArea& SegmentWriter::summary_area() const {
  return *reinterpret_cast<SummaryArea*>(static_cast<std::byte*>(map_.data()) + summaries_offset_);
}
NodeSummary* SegmentWriter::summaries() const {
  return reinterpret_cast<NodeSummary*>(&summary_area() + 1);
}

bool SegmentWriter::attach_slot(std::uint64_t local_rank, std::uint64_t global_rank,
                                const CpuMask& launch, std::uint64_t compute_threads) const {
  SlotIdentity& id = identity(local_rank);
  SlotPlacement& p = placement(local_rank);
  const ProcessIdentity me = this_process();
  SeqlockWriter seq(id.seq);
  if (!seq.try_begin()) return false;
  store_word(id.local_rank, local_rank);
  store_word(id.global_rank, global_rank);
  store_word(id.pid, static_cast<std::uint64_t>(me.pid));
  store_word(id.start_ticks, me.start_ticks);
  store_word(reinterpret_cast<std::uint64_t&>(id.cpu), static_cast<std::uint64_t>(-1));
  store_word(id.threads, 0);
  store_word(p.compute_threads, compute_threads);
  store_word(p.set_generation, 0);
  store_word(p.runtime_updates, 0);
  copy_to_shared(&p.launch, &launch, sizeof launch);
  copy_to_shared(&p.current, &launch, sizeof launch);
  const CpuMask none{};
  copy_to_shared(&p.runtime_workers, &none, sizeof none);
  copy_to_shared(&p.runtime_control, &none, sizeof none);
  store_word(id.state, static_cast<std::uint64_t>(SlotState::kActive));
  seq.end();
  return true;
}

Status SegmentWriter::intact() const {
  struct stat st {};
  if (map_.lost()) return Error(Errc::kIo, path_ + " shrank under the job (a page of it is gone)");
  if (::fstat(fd_, &st) != 0) return Error(Errc::kIo, path_ + ": " + errno_text(errno));
  if (st.st_nlink == 0) return Error(Errc::kIo, path_ + " was removed");
  if (static_cast<std::uint64_t>(st.st_size) != total_)
    return Error(Errc::kIo, path_ + " was resized to " + std::to_string(st.st_size) +
                                " bytes (it had " + std::to_string(total_) + ")");
  return {};
}

Status SegmentWriter::remove() const {
  struct stat mine {
  }, there{};
  if (::fstat(fd_, &mine) != 0 ||
      ::fstatat(AT_FDCWD, path_.c_str(), &there, AT_SYMLINK_NOFOLLOW) != 0)
    return {};  // gone already
  if (mine.st_dev != there.st_dev || mine.st_ino != there.st_ino)
    return Error(Errc::kIo, path_ + " is no longer this job's segment: left alone");
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT)
    return Error(Errc::kIo, "cannot remove " + path_ + ": " + errno_text(errno));
  return {};
}

}  // namespace symmer::segment
