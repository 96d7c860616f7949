// SPDX-License-Identifier: BSD-3-Clause
// Validating node segment reader: pread copies (segment_file.hpp), seqlock retries,
// field-by-field checks.
#include "symmer/segment/reader.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <optional>
#include <set>

#include "symmer/segment/job_process.hpp"
#include "symmer/segment/naming.hpp"
#include "symmer/segment/segment_file.hpp"

namespace symmer::segment {
namespace {

// Slack on time bounds: clocks of different processes are the same system clock, but a
// publish may land between our clock read and our copy.
constexpr std::uint64_t kTimeSlackNs = 5'000'000'000ull;
constexpr std::uint64_t kMaxThreadsPerRank = 1u << 16;
constexpr std::uint64_t kMaxEagerLimit = 1ull << 40;

std::uint64_t pid_max() {
  static const std::uint64_t value = [] {
    std::ifstream in("/proc/sys/kernel/pid_max");
    std::uint64_t v = 0;
    return in >> v && v > 0 ? v : std::uint64_t{1} << 22;  // else the kernel's upper limit
  }();
  return value;
}

std::int64_t configured_cpus() {
  const long n = ::sysconf(_SC_NPROCESSORS_CONF);
  return n > 0 ? n : 1;
}

std::uint64_t realtime_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

bool nul_terminated(const char* s, std::size_t n) { return std::memchr(s, '\0', n) != nullptr; }

// Collects the first violation found, with the segment path in front.
class Checker {
 public:
  explicit Checker(std::string path) : path_(std::move(path)) {}
  bool ok() const { return message_.empty(); }
  void fail(const std::string& what) {
    if (message_.empty()) message_ = path_ + ": " + what;
  }
  template <typename T>
  void require(bool cond, const char* field, T value, const std::string& expected) {
    if (!cond) fail(std::string(field) + " = " + std::to_string(value) + ", expected " + expected);
  }
  Error error() const { return Error(Errc::kParse, message_); }

 private:
  std::string path_;
  std::string message_;
};

void check_header(const SegmentHeader& h, std::uint64_t file_size, std::uint64_t file_uid,
                  const std::string& path, Checker& c) {
  if (h.magic != kSegmentMagic) {
    char buf[96];
    std::snprintf(buf, sizeof buf,
                  "wrong magic 0x%016" PRIx64 " (not a symmer segment, or not ready)", h.magic);
    c.fail(buf);
    return;
  }
  c.require(h.version == kSegmentVersion, "version", h.version, std::to_string(kSegmentVersion));
  c.require(h.header_size == sizeof(SegmentHeader), "header_size", h.header_size,
            std::to_string(sizeof(SegmentHeader)));
  if (!c.ok()) return;
  c.require(h.local_ranks >= 1 && h.local_ranks <= kMaxLocalRanks, "local_ranks", h.local_ranks,
            "1.." + std::to_string(kMaxLocalRanks));
  c.require(h.node_count >= 1 && h.node_count <= kMaxWorldSize, "node_count", h.node_count, ">= 1");
  if (!c.ok()) return;
  const std::uint64_t buckets = std::min(h.node_count, kMaxNodeBuckets);
  c.require(h.node_buckets == buckets, "node_buckets", h.node_buckets, std::to_string(buckets));
  c.require(h.node_index < h.node_count, "node_index", h.node_index,
            "< node_count " + std::to_string(h.node_count));
  c.require(h.world_size >= h.local_ranks && h.world_size <= kMaxWorldSize, "world_size",
            h.world_size, ">= local_ranks " + std::to_string(h.local_ranks));
  if (!c.ok()) return;
  const std::uint64_t slot = slot_bytes(h.local_ranks, h.node_buckets);
  const std::uint64_t total = segment_bytes(h.local_ranks, h.node_buckets);
  c.require(h.slot_size == slot, "slot_size", h.slot_size, std::to_string(slot));
  c.require(h.slots_offset == slots_offset(h.node_buckets), "slots_offset", h.slots_offset,
            std::to_string(slots_offset(h.node_buckets)));
  c.require(h.summaries_offset == kSummariesOffset, "summaries_offset", h.summaries_offset,
            std::to_string(kSummariesOffset));
  c.require(h.total_size == total, "total_size", h.total_size, std::to_string(total));
  if (!c.ok()) return;
  if (file_size != total)
    c.fail("file is " + std::to_string(file_size) + " bytes, header says " + std::to_string(total) +
           (file_size < total ? " (truncated)" : ""));
  c.require(h.job_id != 0, "job_id", h.job_id, "non-zero");
  c.require(h.owner_uid == file_uid, "owner_uid", h.owner_uid,
            "the file's owner uid " + std::to_string(file_uid));
  c.require(h.creator_pid > 0 && h.creator_pid <= pid_max(), "creator_pid", h.creator_pid,
            "1.." + std::to_string(pid_max()));
  c.require(h.mpi_family <= static_cast<std::uint64_t>(MpiFamily::kOpenMpi), "mpi_family",
            h.mpi_family, "0..2");
  c.require(h.thread_level <= 3, "thread_level", h.thread_level, "0..3");
  c.require(h.eager_limit_local <= kMaxEagerLimit, "eager_limit_local", h.eager_limit_local,
            "<= 2^40");
  c.require(h.eager_limit_remote <= kMaxEagerLimit, "eager_limit_remote", h.eager_limit_remote,
            "<= 2^40");
  c.require(h.publish_period_ns >= 1000 && h.publish_period_ns <= 3600'000'000'000ull,
            "publish_period_ns", h.publish_period_ns, "1 us .. 1 h");
  c.require(h.created_realtime_ns <= realtime_ns() + kTimeSlackNs, "created_realtime_ns",
            h.created_realtime_ns, "a time in the past");
  c.require(h.created_monotonic_ns <= monotonic_ns() + kTimeSlackNs, "created_monotonic_ns",
            h.created_monotonic_ns, "a time in the past");
  if (!nul_terminated(h.hostname, sizeof h.hostname)) c.fail("hostname is not NUL-terminated");
  if (!nul_terminated(h.app_name, sizeof h.app_name)) c.fail("app_name is not NUL-terminated");
  if (!nul_terminated(h.mpi_library, sizeof h.mpi_library))
    c.fail("mpi_library is not NUL-terminated");
  // The name must agree with the header (a renamed or copied file is somebody else's).
  const auto slash = path.rfind('/');
  const auto name =
      parse_segment_file_name(slash == std::string::npos ? path : path.substr(slash + 1));
  if (name && (name->uid != h.owner_uid || name->job_id != h.job_id || name->node_id != h.node_id))
    c.fail("file name does not match the header's uid/job/node");
}

void check_slot(const SegmentHeader& h, std::uint64_t index, const SlotSnapshot& s,
                std::uint64_t now_ns, Checker& c) {
  const std::string where = "slot " + std::to_string(index) + " ";
  const auto& id = s.identity;
  auto field = [&where](const char* f) { return where + f; };
  if (id.state > static_cast<std::uint64_t>(SlotState::kFinished)) {
    c.require(false, field("state").c_str(), id.state, "0..2");
    return;
  }
  if (s.state() == SlotState::kFree) {
    c.require(id.pid == 0, field("pid").c_str(), id.pid, "0 in a free slot");
    return;
  }
  c.require(id.local_rank == index, field("local_rank").c_str(), id.local_rank,
            std::to_string(index) + " (its slot index, < local_ranks " +
                std::to_string(h.local_ranks) + ")");
  c.require(id.global_rank < h.world_size, field("global_rank").c_str(), id.global_rank,
            "< world_size " + std::to_string(h.world_size));
  c.require(id.pid > 0 && id.pid <= pid_max(), field("pid").c_str(), id.pid,
            "1.." + std::to_string(pid_max()));
  const std::int64_t cpus = configured_cpus();
  c.require(id.cpu >= -1 && id.cpu < cpus, field("cpu").c_str(), id.cpu,
            "-1.." + std::to_string(cpus - 1));
  c.require(id.threads <= kMaxThreadsPerRank, field("threads").c_str(), id.threads, "<= 65536");

  const auto& k = s.counters;
  c.require(k.last_publish_ns <= now_ns + kTimeSlackNs, field("last_publish_ns").c_str(),
            k.last_publish_ns, "a time in the past");
  // A rank's threads cannot have spent more time than they existed.
  const std::uint64_t elapsed =
      now_ns > h.created_monotonic_ns ? now_ns - h.created_monotonic_ns : 0;
  const std::uint64_t bound = (elapsed + kTimeSlackNs) * std::max<std::uint64_t>(id.threads, 1);
  const std::pair<const char*, std::uint64_t> times[] = {
      {"idle_ns", k.idle_ns},
      {"compute_ns", k.compute_ns},
      {"other_mpi_ns", k.other_mpi_ns},
      {"out_of_sync_ns", k.out_of_sync_ns},
      {"pending_send_compute_ns", k.pending_send_compute_ns},
      {"send_wait_ns", k.send_wait_ns},
      {"late_sender_ns", k.late_sender_ns},
      {"shim_ns", k.shim_ns}};
  for (const auto& [name, value] : times)
    c.require(value <= bound, field(name).c_str(), value,
              "<= " + std::to_string(bound) + " (threads x time since the job started)");
  c.require(k.out_of_sync_ns <= k.compute_ns, field("out_of_sync_ns").c_str(), k.out_of_sync_ns,
            "<= compute_ns " + std::to_string(k.compute_ns));
  c.require(k.counters_status <= static_cast<std::uint64_t>(CountersStatus::kDisabled),
            field("counters_status").c_str(), k.counters_status, "0..3");
  c.require(k.counters_event <= static_cast<std::uint64_t>(CacheEvent::kL3Tcm),
            field("counters_event").c_str(), k.counters_event, "0..3");
  c.require(k.in_mpi_threads <= std::max<std::uint64_t>(id.threads, 1),
            field("in_mpi_threads").c_str(), k.in_mpi_threads,
            "<= threads " + std::to_string(id.threads));
  auto check_peers = [&](const std::vector<PeerCounters>& peers, const char* what) {
    for (std::size_t p = 0; p < peers.size(); ++p) {
      const auto name = std::string(what) + "[" + std::to_string(p) + "].";
      c.require(peers[p].late_sender_ns <= bound, field((name + "late_sender_ns").c_str()).c_str(),
                peers[p].late_sender_ns, "<= " + std::to_string(bound));
      c.require(peers[p].send_wait_ns <= bound, field((name + "send_wait_ns").c_str()).c_str(),
                peers[p].send_wait_ns, "<= " + std::to_string(bound));
    }
  };
  check_peers(s.local_peers, "local_peers");
  check_peers(s.remote_nodes, "remote_nodes");

  // CPU sets: only CPUs this node has; a running rank always has a set.
  const auto& pl = s.placement;
  const auto check_mask = [&](const CpuMask& m, const char* name, bool required) {
    const auto cpus_in = mask_cpus(m);
    if (required && cpus_in.empty()) c.fail(field(name) + " is empty");
    if (!cpus_in.empty() && cpus_in.back() >= cpus)
      c.require(false, field(name).c_str(), cpus_in.back(),
                "CPUs 0.." + std::to_string(cpus - 1) + " only");
  };
  check_mask(pl.launch, "placement.launch", true);
  check_mask(pl.current, "placement.current", true);
  check_mask(pl.runtime_workers, "placement.runtime_workers", false);
  check_mask(pl.runtime_control, "placement.runtime_control", false);
  c.require(pl.compute_threads <= kMaxThreadsPerRank, field("placement.compute_threads").c_str(),
            pl.compute_threads, "<= 65536");
  const Command cmd = decode_command(s.control.command);
  c.require(static_cast<std::uint32_t>(cmd.kind) <= static_cast<std::uint32_t>(CommandKind::kBind),
            field("command.kind").c_str(), static_cast<std::uint32_t>(cmd.kind), "0..2");
  // The target set is the rank's to check before it acts (it answers invalid-cpu).

  const Ack ack = decode_ack(s.control.ack);
  c.require(
      static_cast<std::uint32_t>(ack.status) <= static_cast<std::uint32_t>(AckStatus::kFailed),
      field("ack.status").c_str(), static_cast<std::uint32_t>(ack.status), "0..4");
  c.require(ack.cpu >= -1 && ack.cpu < cpus, field("ack.cpu").c_str(), ack.cpu,
            "-1.." + std::to_string(cpus - 1));
}

// Copies one slot through its seqlock.
bool read_slot(const SegmentFile& file, const SegmentHeader& h, std::uint64_t index, int max_tries,
               std::vector<std::byte>& buf, SlotSnapshot& out) {
  buf.resize(h.slot_size);
  if (!file.read_consistent(h.slots_offset + index * h.slot_size, buf, max_tries)) return false;
  std::memcpy(&out.identity, buf.data(), sizeof out.identity);
  std::memcpy(&out.control, buf.data() + kSlotControlOffset, sizeof out.control);
  std::memcpy(&out.target, buf.data() + kSlotTargetOffset, sizeof out.target);
  std::memcpy(&out.placement, buf.data() + kSlotPlacementOffset, sizeof out.placement);
  std::memcpy(&out.counters, buf.data() + kSlotCountersOffset, sizeof out.counters);
  out.local_peers.resize(h.local_ranks);
  out.remote_nodes.resize(h.node_buckets);
  const std::byte* peers = buf.data() + kSlotPeersOffset;
  std::memcpy(out.local_peers.data(), peers, h.local_ranks * sizeof(PeerCounters));
  std::memcpy(out.remote_nodes.data(), peers + h.local_ranks * sizeof(PeerCounters),
              h.node_buckets * sizeof(PeerCounters));
  return true;
}

// Copies the summary area and its node summaries through their seqlock.
bool read_summaries(const SegmentFile& file, const SegmentHeader& h, int max_tries,
                    SegmentSnapshot& out) {
  std::vector<std::byte> buf(sizeof(SummaryArea) + h.node_buckets * sizeof(NodeSummary));
  if (!file.read_consistent(h.summaries_offset, buf, max_tries)) return false;
  std::memcpy(&out.summary_area, buf.data(), sizeof out.summary_area);
  out.summaries.resize(h.node_buckets);
  std::memcpy(out.summaries.data(), buf.data() + sizeof(SummaryArea),
              h.node_buckets * sizeof(NodeSummary));
  return true;
}

}  // namespace

std::uint64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

ProcessIdentity SegmentSnapshot::creator() const {
  ProcessIdentity p;
  p.pid = static_cast<pid_t>(header.creator_pid);
  p.start_ticks = header.creator_start_ticks;
  p.pid_namespace = header.pid_namespace;
  return p;
}

Expected<SegmentSnapshot> read_segment(const std::string& path, const ReadOptions& options) {
  auto file = SegmentFile::open(path, SegmentFile::Access::kRead);
  if (!file) return file.error();
  return read_segment(*file, options);
}

Expected<SegmentSnapshot> read_segment(const SegmentFile& file, const ReadOptions& options) {
  const std::string& path = file.path();
  const struct stat& st = file.status();
  if (!options.other_users && st.st_uid != ::geteuid())
    return Error(Errc::kParse, path + ": owned by uid " + std::to_string(st.st_uid) +
                                   ", not by this user (uid " + std::to_string(::geteuid()) + ")");
  const auto file_size = static_cast<std::uint64_t>(st.st_size);
  if (file_size < sizeof(SegmentHeader))
    return Error(Errc::kParse, path + ": truncated: " + std::to_string(file_size) +
                                   " bytes, smaller than the " +
                                   std::to_string(sizeof(SegmentHeader)) + "-byte header");

  SegmentSnapshot snap;
  snap.path = path;
  snap.file_uid = st.st_uid;
  snap.file_device = st.st_dev;
  snap.file_inode = st.st_ino;
  if (!file.read(0, &snap.header, sizeof snap.header))
    return Error(Errc::kIo, path + ": cannot read the header");
  Checker check(path);
  check_header(snap.header, file_size, snap.file_uid, path, check);
  if (!check.ok()) return check.error();

  const SegmentHeader& h = snap.header;
  if (options.max_bytes != 0 && h.total_size > options.max_bytes)
    return Error(Errc::kParse, path + ": " + std::to_string(h.total_size) +
                                   " bytes, more than the " + std::to_string(options.max_bytes) +
                                   " read of one segment");
  if (options.admit)
    if (auto admitted = options.admit(h); !admitted) return admitted.error();
  if (!read_summaries(file, h, options.max_tries, snap))
    return Error(Errc::kParse, path + ": node summaries changed size or never settled");
  for (std::uint64_t i = 0; i < h.node_buckets; ++i) {
    const NodeSummary& s = snap.summaries[i];
    if (s.valid > 1 || (s.valid && s.node_index >= h.node_count))
      check.fail("node summary " + std::to_string(i) + " has node_index " +
                 std::to_string(s.node_index) + " >= node_count " + std::to_string(h.node_count));
  }

  snap.slots.resize(h.local_ranks);
  std::vector<std::byte> buf;
  snap.read_monotonic_ns = monotonic_ns();
  std::set<std::uint64_t> pids;
  for (std::uint64_t i = 0; i < h.local_ranks && check.ok(); ++i) {
    if (!read_slot(file, h, i, options.max_tries, buf, snap.slots[i]))
      return Error(Errc::kParse, path + ": slot " + std::to_string(i) +
                                     " could not be read consistently (file shrank, or its "
                                     "writer died while publishing)");
    check_slot(h, i, snap.slots[i], snap.read_monotonic_ns, check);
    const auto& id = snap.slots[i].identity;
    if (check.ok() && id.pid != 0 && !pids.insert(id.pid).second)
      check.fail("slot " + std::to_string(i) + " pid " + std::to_string(id.pid) +
                 " also appears in another slot");
  }
  if (!check.ok()) return check.error();
  return snap;
}

Liveness job_liveness(const SegmentSnapshot& snap, const std::string& proc_root) {
  const std::uint64_t mine = this_process().pid_namespace;
  if (snap.header.pid_namespace != 0 && mine != 0 && snap.header.pid_namespace != mine)
    return Liveness::kUnknown;  // its pids mean other processes here
  bool unknown = false;
  auto member = [&](std::uint64_t pid, std::uint64_t start_ticks) {
    const auto ok = check_job_process({static_cast<pid_t>(pid), start_ticks, snap.file_uid,
                                       snap.file_device, snap.file_inode, snap.path},
                                      proc_root);
    if (!ok && ok.error().code == Errc::kIo) unknown = true;
    return static_cast<bool>(ok);
  };
  if (member(snap.header.creator_pid, snap.header.creator_start_ticks)) return Liveness::kAlive;
  for (const auto& slot : snap.slots)
    if (slot.state() != SlotState::kFree && slot.identity.pid != snap.header.creator_pid &&
        member(slot.identity.pid, slot.identity.start_ticks))
      return Liveness::kAlive;
  return unknown ? Liveness::kUnknown : Liveness::kDead;
}

Liveness segment_liveness(const SegmentFile& file, const Expected<SegmentSnapshot>& snapshot,
                          std::uint64_t grace_ns) {
  if (snapshot) return job_liveness(*snapshot);
  if (snapshot.error().code != Errc::kParse) return Liveness::kUnknown;  // could not look
  // Corrupt: whoever the header names as creator, if the fields can be read at all, must not
  // be a process of this file; and it must have been left alone a while (one being created
  // has no magic yet).
  const struct stat& st = file.status();
  const std::uint64_t changed_ns =
      static_cast<std::uint64_t>(st.st_ctim.tv_sec) * 1'000'000'000ull +
      static_cast<std::uint64_t>(st.st_ctim.tv_nsec);
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const std::uint64_t now_ns = static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000ull +
                               static_cast<std::uint64_t>(now.tv_nsec);
  if (now_ns < changed_ns + grace_ns) return Liveness::kUnknown;
  SegmentHeader h{};
  if (file.read(0, &h, sizeof h) && h.creator_pid > 0 && h.creator_pid <= pid_max()) {
    const auto ok = check_job_process({static_cast<pid_t>(h.creator_pid), h.creator_start_ticks,
                                       st.st_uid, st.st_dev, st.st_ino, file.path()});
    if (ok) return Liveness::kAlive;
    if (ok.error().code == Errc::kIo) return Liveness::kUnknown;
  }
  return Liveness::kDead;
}

namespace {

// The segment files of `dir` (names made by segment_file_name; of `uid` only, when given).
std::vector<std::string> segment_names(const std::string& dir, std::optional<std::uint64_t> uid) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const auto parsed = parse_segment_file_name(e->d_name);
      if (parsed && (!uid || parsed->uid == *uid)) names.emplace_back(e->d_name);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

std::vector<ScanEntry> scan_segments(const std::string& directory, const ReadOptions& options) {
  const std::string dir = directory.empty() ? segment_directory() : directory;
  std::vector<ScanEntry> out;
  for (const auto& name : segment_names(dir, std::nullopt)) {
    ScanEntry entry;
    entry.path = dir + "/" + name;
    auto file = SegmentFile::open(entry.path, SegmentFile::Access::kRead);
    if (!file) {
      entry.snapshot = file.error();
    } else {
      entry.snapshot = read_segment(*file, options);
      entry.removed_stale =
          segment_liveness(*file, entry.snapshot) == Liveness::kDead && file->remove();
    }
    out.push_back(std::move(entry));
  }
  return out;
}

int remove_stale_segments(const std::string& directory, std::uint64_t uid, int limit) {
  const std::string dir = directory.empty() ? segment_directory() : directory;
  int removed = 0;
  ReadOptions options;
  options.max_tries = 8;  // a slot caught mid-publish is not corrupt: only a live job does that
  // Whether it is needed is told from its header and slot identities: a bigger segment is
  // judged by its creator as a corrupt one is (segment_liveness), without reading it.
  options.max_bytes = kStaleScanBytes;
  for (const auto& name : segment_names(dir, uid)) {
    if (limit-- <= 0) break;
    auto file = SegmentFile::open(dir + "/" + name, SegmentFile::Access::kRead);
    if (!file || file->status().st_uid != uid) continue;
    if (segment_liveness(*file, read_segment(*file, options)) == Liveness::kDead && file->remove())
      ++removed;
  }
  return removed;
}

}  // namespace symmer::segment
