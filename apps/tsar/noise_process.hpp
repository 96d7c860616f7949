// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// symmer-noise as a child process of a benchmark: started on chosen cores, stopped with
// SIGTERM, its final JSON report (the share really stolen) read back.

#include <sys/types.h>

#include <string>

namespace tsar::bench {

class NoiseProcess {
 public:
  /// Starts `program` --cpus `cpus` --share `share` (Linux CPUs, or L:-prefixed logical
  /// cores). Throws std::runtime_error.
  NoiseProcess(const std::string& program, const std::string& cores, double share);
  ~NoiseProcess();
  NoiseProcess(const NoiseProcess&) = delete;
  NoiseProcess& operator=(const NoiseProcess&) = delete;

  /// Stops it and returns its JSON report ("" when it printed none).
  std::string stop();

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
};

/// symmer-noise next to the running executable.
std::string noise_program_path();

}  // namespace tsar::bench
