// SPDX-License-Identifier: BSD-3-Clause
// Decision side of a job's segment (see control.hpp).
#include "symmer/segment/control.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstddef>

namespace symmer::segment {

Expected<SegmentControl> SegmentControl::open(const std::string& path, const ReadOptions& options) {
  auto file = SegmentFile::open(path, SegmentFile::Access::kReadWrite);
  if (!file) return file.error();
  auto snap = read_segment(*file, options);
  if (!snap) return snap.error();
  return SegmentControl(std::move(*file), snap->header);
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
  // written, then kBind with the same generation. Only the claim's holder writes it.
  const std::uint64_t word =
      offset(local_rank, kSlotControlOffset + offsetof(SlotControl, command));
  std::uint64_t old = 0;
  if (!file_.read_word_stable(word, old))
    return Error(Errc::kIo, file_.path() + ": cannot read the command word");
  Command next;
  next.generation = decode_command(old).generation + 1;
  if (next.generation == 0) next.generation = 1;  // 0 means "no command"
  next.kind = CommandKind::kWriting;
  const CpuMask mask = mask_of(cpus);
  if (!file_.store_word(word, encode_command(next)) ||
      !file_.write(offset(local_rank, kSlotTargetOffset), &mask, sizeof mask))
    return Error(Errc::kIo, file_.path() + ": cannot write a command");
  next.kind = CommandKind::kBind;
  if (!file_.store_word(word, encode_command(next)))
    return Error(Errc::kIo, file_.path() + ": cannot write a command");
  return next.generation;
}

Command SegmentControl::command(std::uint64_t local_rank) const {
  std::uint64_t w = 0;
  if (local_rank >= local_ranks_ ||
      !file_.read_word_stable(
          offset(local_rank, kSlotControlOffset + offsetof(SlotControl, command)), w))
    return {};
  return decode_command(w);
}

Ack SegmentControl::ack(std::uint64_t local_rank) const {
  std::uint64_t w = 0;
  if (local_rank >= local_ranks_ ||
      !file_.read_word_stable(offset(local_rank, kSlotControlOffset + offsetof(SlotControl, ack)),
                              w))
    return {};
  return decode_ack(w);
}

}  // namespace symmer::segment
