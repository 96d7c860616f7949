// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The actuator's view of the ranks: the command word in each rank's slot of the node
// segment. The analyzer writes (target CPU set, generation); the rank reads it at its next MPI
// call, moves every thread to its relative place in the set and acknowledges with the
// generation and the outcome.
// SegmentRankControl (segment_rank_control.hpp) implements it on the node segment's control
// words; tests use an in-memory fake.

#include <cstdint>
#include <span>

namespace symmer::analysis {

/// How a rank answered a command.
enum class AckStatus : std::uint8_t {
  kNone,    ///< no answer to any command yet
  kBound,   ///< re-bound all its threads to the commanded set
  kFailed,  ///< could not (set not in its allowed cpuset, sched_setaffinity error)
};

struct Ack {
  std::uint64_t generation = 0;  ///< generation of the command answered (0: none)
  AckStatus status = AckStatus::kNone;
  int core = -1;  ///< logical core of the lowest CPU the rank is bound to after answering
};

class RankControl {
 public:
  virtual ~RankControl() = default;
  /// Asks local rank `local_rank` to move its whole set onto the logical cores `cores` (its
  /// threads keep their relative places) and returns the command's generation (a new one
  /// each call; it supersedes an older command the rank has not acted on yet), or 0 when the
  /// command could not be posted (rank or core out of range).
  virtual std::uint64_t command(int local_rank, std::span<const int> cores) = 0;
  /// The rank's latest acknowledgement.
  virtual Ack ack(int local_rank) const = 0;
  /// False once the rank's process is gone.
  virtual bool alive(int local_rank) const = 0;
  /// True while the rank makes no MPI call (segment_window.hpp: silent_ns): a command waits
  /// for its next call, which may be seconds away.
  virtual bool without_calls(int local_rank) const = 0;
  /// Binds the rank's threads onto logical cores `cores` from outside (same user or root,
  /// sched_setaffinity on every thread, each to its relative place), for a rank that does not
  /// answer or makes no call. False when that is not possible.
  virtual bool force_bind(int local_rank, std::span<const int> cores) = 0;
};

}  // namespace symmer::analysis
