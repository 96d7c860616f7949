// SPDX-License-Identifier: BSD-3-Clause
// Shared parts of the symptom benchmarks (see symptom_bench.hpp).
#include "symptom_bench.hpp"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "symmer_version.hpp"

namespace symmer::bench {
namespace {

volatile double g_sink = 0;

// A dependent multiply-add chain: not vectorisable, the same speed on any build.
double kernel(std::uint64_t units, double x) {
  for (std::uint64_t i = 0; i < units; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

}  // namespace

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

Work Work::calibrate(MPI_Comm comm, double units_per_ms) {
  if (units_per_ms > 0) {
    Work w;
    w.units_per_ms_ = units_per_ms;
    return w;
  }
  constexpr std::uint64_t kUnits = 50000;  // ~0.1 ms per trial on current cores
  double best = 1e300;
  for (int trial = 0; trial < 40; ++trial) {
    const double t = now();
    g_sink = kernel(kUnits, g_sink);
    best = std::min(best, now() - t);
  }
  double mine = static_cast<double>(kUnits) / (best * 1e3);
  double fastest = 0;
  MPI_Allreduce(&mine, &fastest, 1, MPI_DOUBLE, MPI_MAX, comm);
  Work w;
  w.units_per_ms_ = fastest;
  return w;
}

void Work::run(double ms) const {
  if (ms <= 0) return;
  g_sink = kernel(static_cast<std::uint64_t>(ms * units_per_ms_), g_sink);
}

void add_work_option(CLI::App& app, double& units_per_ms) {
  app.add_option("--units-per-ms", units_per_ms,
                 "work rate of a full core (0: measure it at start); runs compared with each "
                 "other pass the same value so that they do the same work")
      ->check(CLI::Range(0.0, 1e12));
}

void RankStats::sample_cpu(double start) {
  const int cpu = sched_getcpu();
  if (cpu_start < 0) cpu_start = cpu;
  if (cpu_end >= 0 && cpu != cpu_end) ++cpu_changes;
  if (cpu != cpu_start && moved_at_s < 0) moved_at_s = now() - start;
  cpu_end = cpu;
}

void report(MPI_Comm comm, const std::string& bench, const nlohmann::json& params, double runtime_s,
            const Work& work, const RankStats& s) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const double mine[] = {s.compute_s,
                         s.wait_s,
                         static_cast<double>(s.cpu_start),
                         static_cast<double>(s.cpu_end),
                         s.moved_at_s,
                         static_cast<double>(s.cpu_changes)};
  constexpr int kFields = 6;
  std::vector<double> all(static_cast<std::size_t>(kFields * size));
  MPI_Gather(mine, kFields, MPI_DOUBLE, all.data(), kFields, MPI_DOUBLE, 0, comm);
  if (rank != 0) return;

  nlohmann::json per_rank = nlohmann::json::array();
  std::printf("%s: %d ranks, %.3f s\n", bench.c_str(), size, runtime_s);
  for (int r = 0; r < size; ++r) {
    const double* f = &all[static_cast<std::size_t>(kFields * r)];
    std::printf("  rank %d: compute %.3f s, wait %.3f s, cpu %d -> %d", r, f[0], f[1],
                static_cast<int>(f[2]), static_cast<int>(f[3]));
    if (f[4] >= 0) std::printf(" (moved at %.2f s)", f[4]);
    std::printf("\n");
    per_rank.push_back({{"rank", r},
                        {"compute_s", f[0]},
                        {"wait_s", f[1]},
                        {"cpu_start", static_cast<int>(f[2])},
                        {"cpu_end", static_cast<int>(f[3])},
                        {"moved_at_s", f[4] >= 0 ? nlohmann::json(f[4]) : nlohmann::json(nullptr)},
                        {"cpu_changes", static_cast<int>(f[5])}});
  }
  const nlohmann::json line = {{"bench", bench},
                               {"ranks", size},
                               {"time_s", runtime_s},
                               {"units_per_ms", work.units_per_ms()},
                               {"params", params},
                               {"per_rank", per_rank}};
  std::printf("%s\n", line.dump().c_str());
  std::fflush(stdout);
}

void fail(MPI_Comm comm, const std::string& message) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) std::fprintf(stderr, "%s\n", message.c_str());
  MPI_Finalize();
  std::exit(2);
}

void parse(MPI_Comm comm, CLI::App& app, int argc, char** argv) {
  symmer::add_version_flag(app, std::filesystem::path(argv[0]).filename().string());
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const int code = rank == 0 ? app.exit(e) : e.get_exit_code();
    MPI_Finalize();
    std::exit(code);
  }
}

}  // namespace symmer::bench
