// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Identity of a process that survives pid reuse: pid + start time + pid namespace. The segment
// records it for its writers so readers can tell a live job from a dead one.

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "symmer/expected.hpp"

namespace symmer::segment {

/// A process as Linux names it at one moment.
struct ProcessIdentity {
  pid_t pid = 0;
  std::uint64_t start_ticks = 0;    ///< /proc/<pid>/stat field 22 (clock ticks after boot)
  std::uint64_t pid_namespace = 0;  ///< inode of /proc/<pid>/ns/pid, 0 when unknown
};

/// The calling process.
ProcessIdentity this_process();

/// Start time of `pid` (/proc/<pid>/stat field 22). Errors: kNotFound when there is no such
/// process, kIo when /proc could not be read (out of descriptors, say): then nobody can tell.
Expected<std::uint64_t> read_start_ticks(pid_t pid, const std::string& proc_root = "/proc");

/// Start time of `pid`, 0 when it does not exist or cannot be read.
std::uint64_t process_start_ticks(pid_t pid);

/// Whether a recorded process still runs.
enum class Liveness {
  kAlive,    ///< same pid with the same start time exists
  kDead,     ///< no such process, or the pid now belongs to a later process
  kUnknown,  ///< recorded in another pid namespace, or /proc unreadable: cannot tell from here
};

/// Liveness of a process recorded as `who`, judged from the calling process.
Liveness liveness(const ProcessIdentity& who);

}  // namespace symmer::segment
