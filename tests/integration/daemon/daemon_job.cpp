// SPDX-License-Identifier: BSD-3-Clause
// A 1-rank (or more) MPI job for the daemon tests: computes in ~1 ms steps with an MPI call
// after each (where the shim applies moves), until a stop file appears or a time limit
// passes, then prints one JSON line: the CPUs it ran on at start and end, and its steps.
#include <mpi.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "symmer/testing/busy.hpp"

namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return !path.empty() && ::stat(path.c_str(), &st) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::string stop_file;
  double limit_s = 60;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--stop-file") == 0)
      stop_file = argv[i + 1];
    else if (std::strcmp(argv[i], "--seconds") == 0)
      limit_s = std::atof(argv[i + 1]);
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int cpu_start = sched_getcpu();
  const auto start = std::chrono::steady_clock::now();
  long steps = 0;
  int stop = 0;
  while (!stop) {
    symmer::testing::compute_for(std::chrono::microseconds(1000));
    ++steps;
    if (steps % 20 == 0) {
      int local =
          exists(stop_file) ||
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit_s;
      MPI_Allreduce(&local, &stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  std::printf("{\"rank\": %d, \"pid\": %d, \"cpu_start\": %d, \"cpu_end\": %d, \"steps\": %ld}\n",
              rank, static_cast<int>(::getpid()), cpu_start, sched_getcpu(), steps);
  MPI_Finalize();
  return 0;
}
