// SPDX-License-Identifier: BSD-3-Clause
// Decision side of the slot control words.
#include "symmer/segment/control.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "symmer/segment/reader.hpp"

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

Expected<std::uint32_t> SegmentControl::post_command(std::uint64_t local_rank, int cpu) const {
  if (local_rank >= local_ranks_)
    return Error(Errc::kInvalidArgument, "local rank " + std::to_string(local_rank) +
                                             " >= " + std::to_string(local_ranks_));
  const long cpus = ::sysconf(_SC_NPROCESSORS_CONF);
  if (cpu < 0 || cpu >= cpus)
    return Error(Errc::kInvalidArgument,
                 "cpu " + std::to_string(cpu) + " outside 0.." + std::to_string(cpus - 1));
  std::atomic_ref<std::uint64_t> word(control(local_rank).command);
  std::uint64_t old = word.load(std::memory_order_relaxed);
  Command next;
  do {
    next.generation = decode_command(old).generation + 1;
    if (next.generation == 0) next.generation = 1;  // 0 means "no command"
    next.cpu = cpu;
  } while (!word.compare_exchange_weak(old, encode_command(next), std::memory_order_release,
                                       std::memory_order_relaxed));
  return next.generation;
}

Command SegmentControl::command(std::uint64_t local_rank) const {
  if (local_rank >= local_ranks_) return {};
  return decode_command(
      std::atomic_ref<std::uint64_t>(control(local_rank).command).load(std::memory_order_acquire));
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
