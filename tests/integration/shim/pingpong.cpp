// SPDX-License-Identifier: BSD-3-Clause
// A small 2-rank MPI program (MPICH or Open MPI build): 100 ping-pongs of 1 KiB and a barrier.
//   pingpong [<out prefix> [<milliseconds> [<stop file>]]]
// With a prefix it writes "<rank> ok" to <prefix>.<rank> so tests can see it completed; with
// milliseconds it keeps going about that long, computing 1 ms between ping-pongs; with a stop
// file, until that file exists (milliseconds then bound it), so a test that reads the running
// job takes as long as a loaded machine makes it.
#include <mpi.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
void busy_ms(double ms) {
  timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do clock_gettime(CLOCK_MONOTONIC, &t);
  while ((t.tv_sec - t0.tv_sec) * 1e3 + (t.tv_nsec - t0.tv_nsec) * 1e-6 < ms);
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<char> buf(1024, 'p');
  const int ms = argc > 2 ? std::atoi(argv[2]) : 0;
  const int rounds = ms > 0 ? ms : 100;
  const char* stop = argc > 3 ? argv[3] : nullptr;
  if (size >= 2 && rank < 2) {
    // Rank 0 decides when to stop and tells rank 1 in the message's first byte.
    for (int i = 0; i < rounds && buf[0] != 's'; ++i) {
      if (ms > 0) busy_ms(1.0);
      if (rank == 0) {
        if (stop != nullptr && access(stop, F_OK) == 0) buf[0] = 's';
        MPI_Send(buf.data(), 1024, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf.data(), 1024, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf.data(), 1024, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf.data(), 1024, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (argc > 1) {
    char path[4096];
    std::snprintf(path, sizeof path, "%s.%d", argv[1], rank);
    if (FILE* f = std::fopen(path, "w")) {
      std::fprintf(f, "%d ok\n", rank);
      std::fclose(f);
    }
  }
  MPI_Finalize();
  return 0;
}
