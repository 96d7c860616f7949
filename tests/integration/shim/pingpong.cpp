// A small 2-rank MPI program (MPICH or Open MPI build): 100 ping-pongs of 1 KiB and a barrier.
// With an argument it writes "<rank> ok" lines to <arg>.<rank> so tests can see it completed.
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<char> buf(1024, 'p');
  if (size >= 2 && rank < 2) {
    for (int i = 0; i < 100; ++i) {
      if (rank == 0) {
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
