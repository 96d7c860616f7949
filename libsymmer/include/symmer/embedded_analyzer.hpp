// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The embedded analyzer: the analysis loop that runs inside the MPI job itself (default mode,
// no daemon needed). The PMPI shim starts it in local rank 0 of each node right after MPI_Init
// when SYMMER_ANALYZER=embedded (the default) and destroys it before MPI_Finalize.
//
// libsymmer carries a weak default that runs nothing; the analysis code provides the real
// start_embedded_analyzer (a strong definition in the same library replaces the default).

#include <cstdint>
#include <memory>
#include <string>

namespace symmer {

/// What the shim knows when it starts the analyzer of a node.
struct EmbeddedAnalyzerContext {
  std::string segment_path;  ///< this job's node segment (segment/reader.hpp, control.hpp)
  std::uint64_t job_id = 0;
  std::uint64_t node_id = 0;
  std::uint64_t local_ranks = 0;
  std::uint64_t world_size = 0;
  std::uint64_t node_count = 1;
  std::uint64_t publish_period_ns = 0;  ///< ranks publish at most this often
};

/// A running analyzer. Its destructor stops it and joins its thread; it must return promptly
/// (the shim destroys it inside MPI_Finalize).
class EmbeddedAnalyzer {
 public:
  virtual ~EmbeddedAnalyzer() = default;
  /// Kernel id of the analyzer's own thread (0 until it runs). The shim leaves that thread
  /// out when it re-binds the rank's threads to a new core: the analyzer places itself, on a
  /// core no rank uses where there is one.
  virtual int thread_id() const noexcept { return 0; }
};

/// Starts the analyzer on its own thread. That thread must never call MPI: it reads the node
/// segment and writes command words (SegmentControl::post_command); the ranks apply them at
/// their next MPI call. Returns nullptr when there is nothing to run. Must not throw.
std::unique_ptr<EmbeddedAnalyzer> start_embedded_analyzer(const EmbeddedAnalyzerContext& context);

}  // namespace symmer
