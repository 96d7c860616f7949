// SPDX-License-Identifier: BSD-3-Clause
// symmer-idleness: the communication idleness benchmark of thesis 3.4.1.
//
// Ranks work in pairs (0,1), (2,3), ...: each iteration a rank computes, then exchanges a
// message with its partner (MPI_Sendrecv). Ranks compute different amounts: rank 0 does
// `ratio` times the work of the last rank, the others lie linearly in between, so within each
// pair one rank waits for the other. A rank that computes a lot suffers most from a core that
// loses time to interrupts or other processes; one that mostly waits hardly notices. The best
// mapping puts the busiest ranks on the best cores.
#include <vector>

#include "symptom_bench.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  using namespace symmer::bench;
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  CLI::App app{"symmer-idleness: pairs of ranks with different compute between exchanges"};
  int iterations = 300;
  double work_ms = 5.0;
  double ratio = 4.0;
  int bytes = 1024;
  app.add_option("--iterations", iterations, "exchange steps")->check(CLI::Range(1, 100000000));
  app.add_option("--work-ms", work_ms,
                 "compute per step of the least busy rank (ms of a full core)")
      ->check(CLI::Range(0.0, 60000.0));
  app.add_option("--ratio", ratio, "compute of the busiest rank / compute of the least busy")
      ->check(CLI::Range(1.0, 1000.0));
  app.add_option("--bytes", bytes, "message size of each exchange")->check(CLI::Range(0, 1 << 30));
  double units_per_ms = 0;
  add_work_option(app, units_per_ms);
  parse(MPI_COMM_WORLD, app, argc, argv);

  // Rank 0 the busiest, the last rank the least busy.
  const double share = size > 1 ? static_cast<double>(rank) / (size - 1) : 0.0;
  const double my_ms = work_ms * (ratio - (ratio - 1.0) * share);
  const int partner = (rank ^ 1) < size ? (rank ^ 1) : MPI_PROC_NULL;
  std::vector<char> out(static_cast<std::size_t>(bytes), 1);
  std::vector<char> in(static_cast<std::size_t>(bytes), 0);

  const Work work = Work::calibrate(MPI_COMM_WORLD, units_per_ms);
  RankStats stats;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = now();
  for (int i = 0; i < iterations; ++i) {
    timed_compute(stats, work, my_ms);
    timed_mpi(stats, [&] {
      MPI_Sendrecv(out.data(), bytes, MPI_CHAR, partner, 0, in.data(), bytes, MPI_CHAR, partner, 0,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    });
    stats.sample_cpu(start);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double runtime = now() - start;
  report(MPI_COMM_WORLD, "idleness",
         {{"iterations", iterations}, {"work_ms", work_ms}, {"ratio", ratio}, {"bytes", bytes}},
         runtime, work, stats);
  MPI_Finalize();
  return 0;
}
