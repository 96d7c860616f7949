// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Which processes a segment's pids really are. A segment is written by the job's owner and
// may name any pid: a pid counts for the job (keeps it alive, is a rank the coscheduler
// places, may be bound or have its pages moved from outside) only when the process is still
// the one recorded (pid + start time), runs as the segment's owner (real and effective uid)
// and maps the segment file itself, which only processes attached to the job do. A /proc file
// that cannot be read (out of descriptors, a hidden process) makes the answer "unknown",
// never "ended".

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "symmer/expected.hpp"

namespace symmer::segment {

/// What a segment says about a process, and which file the segment is.
struct JobProcessClaim {
  pid_t pid = 0;
  std::uint64_t start_ticks = 0;  ///< as recorded in the segment
  std::uint64_t owner_uid = 0;    ///< the segment's owner (the file's, equal to its header's)
  std::uint64_t device = 0;       ///< the segment file's st_dev
  std::uint64_t inode = 0;        ///< ... and st_ino
  std::string segment_path;       ///< for messages
};

/// Ok when `claim.pid` is one of the job's processes. Errors say which check failed:
/// kNotFound (no such process, or the pid now belongs to another), kInvalidArgument (another
/// owner, does not map the segment), kIo (its /proc files could not be read: unknown).
/// `proc_root` is "/proc" (tests point it elsewhere).
Status check_job_process(const JobProcessClaim& claim, const std::string& proc_root = "/proc");

}  // namespace symmer::segment
