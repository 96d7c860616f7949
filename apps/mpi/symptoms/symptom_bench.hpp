// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Shared parts of the symptom benchmarks: compute calibrated in milliseconds of an undisturbed
// core, per-rank accounting (compute, wait, where the rank ran and when it moved), and the
// common output (a readable summary on rank 0, then one JSON line).

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace symmer::bench {

/// CLOCK_MONOTONIC in seconds.
double now();

/// Busy work measured in milliseconds of a full, undisturbed core. On a core that other work
/// shares, the same amount takes longer: that is what the benchmarks rely on.
class Work {
 public:
  /// Measures the kernel on many short runs and keeps the fastest (short runs slip between
  /// interruptions), then takes the fastest core of all ranks of `comm` as the reference.
  /// With `units_per_ms` > 0 measures nothing and uses that rate: runs that are compared with
  /// each other then do exactly the same work (add_work_option).
  static Work calibrate(MPI_Comm comm, double units_per_ms = 0);
  /// Computes for `ms` milliseconds of a reference core.
  void run(double ms) const;
  double units_per_ms() const { return units_per_ms_; }

 private:
  double units_per_ms_ = 0;
};

/// Adds --units-per-ms (the Work rate, 0 to calibrate; the JSON line reports the one used).
void add_work_option(CLI::App& app, double& units_per_ms);

/// What one rank measures of itself.
struct RankStats {
  double compute_s = 0;  ///< in the benchmark's compute phases
  double wait_s = 0;     ///< inside MPI calls
  int cpu_start = -1;    ///< Linux CPU at the start of the timed loop
  int cpu_end = -1;
  double moved_at_s = -1;  ///< first time seen on another CPU (s after the start), -1: never
  int cpu_changes = 0;

  /// Notes the CPU the rank runs on now (call once per iteration).
  void sample_cpu(double start);
};

/// Times one MPI call (or any callable) into stats.wait_s.
template <typename Call>
void timed_mpi(RankStats& stats, Call&& call) {
  const double t = now();
  call();
  stats.wait_s += now() - t;
}

/// Times one compute phase into stats.compute_s.
inline void timed_compute(RankStats& stats, const Work& work, double ms) {
  const double t = now();
  work.run(ms);
  stats.compute_s += now() - t;
}

/// Gathers every rank's stats on rank 0, which prints one line per rank, the runtime, and the
/// final JSON line {"bench":..., "ranks":..., "time_s":..., "units_per_ms":..., "params":...,
/// "per_rank":[...]}.
void report(MPI_Comm comm, const std::string& bench, const nlohmann::json& params, double runtime_s,
            const Work& work, const RankStats& stats);

/// Exits all ranks with a message from rank 0 (bad arguments).
[[noreturn]] void fail(MPI_Comm comm, const std::string& message);

/// Parses the command line with `app` on every rank; on --help or an error, rank 0 prints and
/// every rank finalizes and exits with CLI11's code.
void parse(MPI_Comm comm, CLI::App& app, int argc, char** argv);

}  // namespace symmer::bench
