// SPDX-License-Identifier: BSD-3-Clause
// symmer-locality: the cache locality benchmark of thesis 3.4.1.
//
// Ranks work in pairs; --heavy-pairs of them exchange --bytes every iteration (and read what
// they received), the others exchange 1 KiB: the heavy traffic is where locality matters.
// With --pairing split (the default) rank r's partner is r + ranks/2, so a block mapping
// (rank i on core i, as mpiexec -bind-to core places them) puts every pair on distant cores:
// other caches, on larger nodes other NUMA nodes or packages. --pairing adjacent pairs
// (0,1), (2,3), ... for the good mapping to compare with.
#include <numeric>
#include <string>
#include <vector>

#include "symptom_bench.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  using namespace symmer::bench;
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  CLI::App app{"symmer-locality: heavy-communicating pairs split across caches or NUMA nodes"};
  int iterations = 400;
  double work_ms = 1.0;
  int bytes = 8 << 20;
  int heavy_pairs = -1;
  std::string pairing = "split";
  app.add_option("--iterations", iterations, "exchange steps")->check(CLI::Range(1, 100000000));
  app.add_option("--work-ms", work_ms, "compute per step (ms of a full core)")
      ->check(CLI::Range(0.0, 60000.0));
  app.add_option("--bytes", bytes, "message size of the heavy pairs")
      ->check(CLI::Range(1, 1 << 30));
  app.add_option("--heavy-pairs", heavy_pairs, "pairs exchanging --bytes (default: all)")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--pairing", pairing, "split (partner r + ranks/2) or adjacent (r xor 1)")
      ->check(CLI::IsMember({"split", "adjacent"}));
  double units_per_ms = 0;
  add_work_option(app, units_per_ms);
  parse(MPI_COMM_WORLD, app, argc, argv);
  if (size % 2 != 0) fail(MPI_COMM_WORLD, "symmer-locality: needs an even number of ranks (pairs)");
  if (heavy_pairs < 0 || heavy_pairs > size / 2) heavy_pairs = size / 2;

  const int half = size / 2;
  const int partner = pairing == "split" ? (rank + half) % size : rank ^ 1;
  const int pair = pairing == "split" ? rank % half : rank / 2;
  const int my_bytes = pair < heavy_pairs ? bytes : 1024;
  std::vector<double> out(static_cast<std::size_t>(my_bytes) / sizeof(double) + 1, 1.0 + rank);
  std::vector<double> in(out.size(), 0.0);
  const int count = static_cast<int>(out.size());

  const Work work = Work::calibrate(MPI_COMM_WORLD, units_per_ms);
  RankStats stats;
  double checksum = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = now();
  for (int i = 0; i < iterations; ++i) {
    const double t = now();
    work.run(work_ms);
    for (auto& v : out) v += 1e-9;                           // produce the data to send
    checksum += std::accumulate(in.begin(), in.end(), 0.0);  // consume what arrived
    stats.compute_s += now() - t;
    timed_mpi(stats, [&] {
      MPI_Sendrecv(out.data(), count, MPI_DOUBLE, partner, 0, in.data(), count, MPI_DOUBLE, partner,
                   0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    });
    stats.sample_cpu(start);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double runtime = now() - start;
  report(MPI_COMM_WORLD, "locality",
         {{"iterations", iterations},
          {"work_ms", work_ms},
          {"bytes", bytes},
          {"heavy_pairs", heavy_pairs},
          {"pairing", pairing},
          {"checksum", checksum}},
         runtime, work, stats);
  MPI_Finalize();
  return 0;
}
