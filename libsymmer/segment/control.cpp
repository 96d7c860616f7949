// SPDX-License-Identifier: BSD-3-Clause
// Decision side of the slot control words.
#include "symmer/segment/control.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "symmer/segment/reader.hpp"
#include "symmer/segment/shared_words.hpp"

namespace symmer::segment {

Expected<SegmentControl> SegmentControl::open(const std::string& path) {
  auto snap = read_segment(path);
  if (!snap) return snap.error();
  const SegmentHeader& h = snap->header;
  const int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Error(Errc::kIo, path + ": " + std::strerror(errno));
  struct stat st {};
  void* base = MAP_FAILED;
  // Map only what the validated header and the file agree on.
  if (::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) == h.total_size)
    base = ::mmap(nullptr, h.total_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (base == MAP_FAILED) return Error(Errc::kIo, path + ": changed size or cannot be mapped");
  return SegmentControl(base, h.total_size, h.slots_offset, h.slot_size, h.local_ranks);
}

SegmentControl::SegmentControl(SegmentControl&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)),
      size_(o.size_),
      slots_offset_(o.slots_offset_),
      slot_size_(o.slot_size_),
      local_ranks_(o.local_ranks_) {}

SegmentControl& SegmentControl::operator=(SegmentControl&& o) noexcept {
  if (this != &o) {
    if (base_) ::munmap(base_, size_);
    base_ = std::exchange(o.base_, nullptr);
    size_ = o.size_;
    slots_offset_ = o.slots_offset_;
    slot_size_ = o.slot_size_;
    local_ranks_ = o.local_ranks_;
  }
  return *this;
}

SegmentControl::~SegmentControl() {
  if (base_) ::munmap(base_, size_);
}

SlotControl& SegmentControl::control(std::uint64_t r) const {
  return *reinterpret_cast<SlotControl*>(static_cast<std::byte*>(base_) + slots_offset_ +
                                         r * slot_size_ + kSlotControlOffset);
}

SlotTarget& SegmentControl::target(std::uint64_t r) const {
  return *reinterpret_cast<SlotTarget*>(static_cast<std::byte*>(base_) + slots_offset_ +
                                        r * slot_size_ + kSlotTargetOffset);
}

Expected<std::uint32_t> SegmentControl::post_command(std::uint64_t local_rank,
                                                     std::span<const int> cpus) const {
  if (local_rank >= local_ranks_)
    return Error(Errc::kInvalidArgument, "local rank " + std::to_string(local_rank) +
                                             " >= " + std::to_string(local_ranks_));
  if (cpus.empty()) return Error(Errc::kInvalidArgument, "a command needs at least one CPU");
  const long limit = std::min<long>(::sysconf(_SC_NPROCESSORS_CONF), kMaxSegmentCpus);
  for (int cpu : cpus)
    if (cpu < 0 || cpu >= limit)
      return Error(Errc::kInvalidArgument,
                   "CPU " + std::to_string(cpu) + " outside 0.." + std::to_string(limit - 1));
  // The command word is the sequence of a seqlock over SlotTarget: kWriting while the set is
  // written, then kBind with the same generation.
  std::atomic_ref<std::uint64_t> word(control(local_rank).command);
  std::uint64_t old = word.load(std::memory_order_relaxed);
  Command next;
  for (int spins = 0;; ++spins) {
    const Command current = decode_command(old);
    // Another writer is filling the target; one that died half-way is taken over.
    if (current.kind == CommandKind::kWriting && spins < 4096) {
      old = word.load(std::memory_order_relaxed);
      continue;
    }
    next.generation = current.generation + 1;
    if (next.generation == 0) next.generation = 1;  // 0 means "no command"
    next.kind = CommandKind::kWriting;
    if (word.compare_exchange_weak(old, encode_command(next), std::memory_order_acq_rel,
                                   std::memory_order_relaxed))
      break;
  }
  std::atomic_thread_fence(std::memory_order_release);
  const CpuMask mask = mask_of(cpus);
  copy_to_shared(&target(local_rank).cpus, &mask, sizeof mask);
  next.kind = CommandKind::kBind;
  word.store(encode_command(next), std::memory_order_release);
  return next.generation;
}

Command SegmentControl::command(std::uint64_t local_rank) const {
  if (local_rank >= local_ranks_) return {};
  return decode_command(
      std::atomic_ref<std::uint64_t>(control(local_rank).command).load(std::memory_order_acquire));
}

std::vector<int> SegmentControl::command_cpus(std::uint64_t local_rank) const {
  if (command(local_rank).kind != CommandKind::kBind) return {};
  CpuMask mask{};
  copy_from_shared(&mask, &target(local_rank).cpus, sizeof mask);
  return mask_cpus(mask);
}

Ack SegmentControl::ack(std::uint64_t local_rank) const {
  if (local_rank >= local_ranks_) return {};
  return decode_ack(
      std::atomic_ref<std::uint64_t>(control(local_rank).ack).load(std::memory_order_acquire));
}

DaemonClaim SegmentControl::daemon_claim() const {
  DaemonClaim c;
  c.pid = std::atomic_ref<std::uint64_t>(header().daemon_pid).load(std::memory_order_acquire);
  c.lease_until_ns =
      std::atomic_ref<std::uint64_t>(header().daemon_lease_ns).load(std::memory_order_acquire);
  return c;
}

bool SegmentControl::claim_for_daemon(std::uint64_t pid, std::uint64_t lease_until_ns,
                                      bool take_over) const {
  if (pid == 0) return false;
  std::atomic_ref<std::uint64_t> holder(header().daemon_pid);
  std::uint64_t current = holder.load(std::memory_order_acquire);
  if (current != pid) {
    if (current != 0 && !take_over && daemon_claim().held(monotonic_ns())) return false;
    // Only one of two daemons racing for a free claim wins the exchange.
    if (!holder.compare_exchange_strong(current, pid, std::memory_order_acq_rel)) return false;
  }
  std::atomic_ref<std::uint64_t>(header().daemon_lease_ns)
      .store(lease_until_ns, std::memory_order_release);
  return true;
}

void SegmentControl::release_daemon_claim(std::uint64_t pid) const {
  std::atomic_ref<std::uint64_t> holder(header().daemon_pid);
  std::uint64_t current = pid;
  if (holder.compare_exchange_strong(current, 0, std::memory_order_acq_rel))
    std::atomic_ref<std::uint64_t>(header().daemon_lease_ns).store(0, std::memory_order_release);
}

}  // namespace symmer::segment
