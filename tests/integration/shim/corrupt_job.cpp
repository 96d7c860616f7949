// SPDX-License-Identifier: BSD-3-Clause
// A job whose segment the test corrupts while it runs: steps of ~1 ms of compute, each ended
// by an Allreduce of (rank + 1 + step) and a ring Sendrecv, until the file `--stop-file`
// appears or `--seconds` pass (rank 0 decides, so every rank runs the same steps). Prints one
// JSON line: the steps, the sum of every Allreduce, and what that sum must be -- the correct
// result the job must reach whatever happens to its segment.
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "symmer/testing/busy.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  double seconds = 3;
  const char* stop_file = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[i + 1]);
    if (std::strcmp(argv[i], "--stop-file") == 0) stop_file = argv[i + 1];
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto start = std::chrono::steady_clock::now();
  long long sum = 0, expected = 0;
  long steps = 0;
  for (int go = 1; go; ++steps) {
    symmer::testing::compute_for(std::chrono::microseconds(1000));
    long long mine = rank + 1 + steps, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    sum += total;
    expected +=
        static_cast<long long>(size) * (size + 1) / 2 + static_cast<long long>(size) * steps;
    int token = rank, got = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT,
                 (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (got != (rank + size - 1) % size) sum = -1;  // a wrong message is a wrong result
    go = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
             seconds &&
         (stop_file == nullptr || ::access(stop_file, F_OK) != 0);
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  if (rank == 0)
    std::printf("{\"steps\": %ld, \"sum\": %lld, \"expected\": %lld}\n", steps, sum, expected);
  MPI_Finalize();
  return 0;
}
