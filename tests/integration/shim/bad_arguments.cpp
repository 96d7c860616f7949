// SPDX-License-Identifier: BSD-3-Clause
// A 2-rank MPI program that passes MPI bad arguments on a communicator whose errors return
// (an invalid datatype, a rank outside the communicator) and goes on when MPI refuses them:
// the shim must not turn the refused calls into a fatal error of its own.
//   bad_arguments <out prefix>   writes "<rank> ok <refused calls>" to <prefix>.<rank>
#include <mpi.h>

#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int buf[4] = {rank, 0, 0, 0}, refused = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  const int peer = 1 - rank;
  refused += MPI_Send(buf, 1, MPI_DATATYPE_NULL, peer, 1, comm) != MPI_SUCCESS;
  refused += MPI_Isend(buf, 1, MPI_DATATYPE_NULL, peer, 1, comm, &req) != MPI_SUCCESS;
  refused += MPI_Send(buf, 1, MPI_INT, size + 5, 1, comm) != MPI_SUCCESS;
  refused += MPI_Irecv(buf, 1, MPI_INT, size + 5, 1, comm, &req) != MPI_SUCCESS;
  // A good exchange afterwards.
  MPI_Sendrecv(buf, 1, MPI_INT, peer, 2, buf + 1, 1, MPI_INT, peer, 2, comm, MPI_STATUS_IGNORE);
  MPI_Comm_free(&comm);
  if (argc > 1) {
    char path[4096];
    std::snprintf(path, sizeof path, "%s.%d", argv[1], rank);
    if (FILE* f = std::fopen(path, "w")) {
      std::fprintf(f, "%d ok %d\n", rank, refused);
      std::fclose(f);
    }
  }
  MPI_Finalize();
  return 0;
}
