// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Before symmerd acts on a process from outside (binds its threads, moves its pages), it
// checks that the process really is one of the job's: a segment is written by the job's
// owner and may name any pid. The process must still be the one recorded (pid + start
// time), run as the segment's owner (real and effective uid), and map the segment file
// itself, which only processes attached to the job do.

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "symmer/expected.hpp"

namespace symmer::daemon {

/// What the segment says about a process and its job.
struct JobProcessClaim {
  pid_t pid = 0;
  std::uint64_t start_ticks = 0;  ///< as recorded in the slot
  std::uint64_t owner_uid = 0;    ///< the segment's owner (header, equal to the file's)
  std::string segment_path;       ///< the job's segment file
};

/// Ok when symmerd may act on `claim.pid` for the job; otherwise the Error says which check
/// failed. `proc_root` is "/proc" (tests point it elsewhere).
Status check_job_process(const JobProcessClaim& claim, const std::string& proc_root = "/proc");

}  // namespace symmer::daemon
