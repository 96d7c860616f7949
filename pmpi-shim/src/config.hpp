// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// SYMMER_* environment variables the shim reads at MPI_Init. A bad value makes the whole job
// run unmonitored, with one message naming the variable and the accepted values.
//
//   SYMMER_MONITOR=on|off        off: pass every call through (default on)
//   SYMMER_ANALYZER=embedded|off start the embedded analyzer in local rank 0 (default embedded)
//   SYMMER_NODE_ID=<0..2^31-1>   this rank's node identity (default: the MPI shared-memory
//                                split); different values on one machine act as several nodes
//   SYMMER_JOB_ID=<u64>          job identity, decimal or 0x-hex, not 0 (default: random)
//   SYMMER_EAGER_LIMIT=<bytes>   eager/rendezvous threshold, suffix k/m/g allowed (default: MPI_T)
//   SYMMER_PERIOD_MS=<1..60000>  how often a rank publishes at most (default 10)
//   SYMMER_EXCHANGE_MS=<10..600000> inter-node summary exchange period (default 1000)
//   SYMMER_PAPI=on|off           count cache misses through PAPI where possible (default on)
//   SYMMER_CLOCK=auto|tsc|monotonic  time source (default auto: invariant TSC, else monotonic)
//   SYMMER_DUMP=<path>           local rank 0 writes the node segment as JSON at MPI_Finalize;
//                                "{node}" in the path becomes the node id
//   SYMMER_SHM_DIR=<dir>         where node segments live (default /dev/shm)

#include <cstdint>
#include <optional>
#include <string>

#include "symmer/expected.hpp"

namespace symmer::shim {

enum class ClockChoice { kAuto, kTsc, kMonotonic };

struct Config {
  bool monitor = true;
  bool embedded_analyzer = true;
  std::optional<std::uint64_t> node_id;
  std::optional<std::uint64_t> job_id;
  std::optional<std::uint64_t> eager_limit;
  std::uint64_t period_ms = 10;
  std::uint64_t exchange_ms = 1000;
  bool papi = true;
  ClockChoice clock = ClockChoice::kAuto;
  std::string dump_path;
  std::string shm_dir;  ///< empty: segment_directory()
};

/// Reads the configuration from the environment. The error names the variable, its value
/// and what would have been accepted.
Expected<Config> read_config();

/// Parses a byte count: digits with an optional k/m/g (binary) suffix.
std::optional<std::uint64_t> parse_bytes(const std::string& text);

}  // namespace symmer::shim
