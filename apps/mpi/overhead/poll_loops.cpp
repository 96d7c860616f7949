// SPDX-License-Identifier: BSD-3-Clause
// symmer-poll-loops: the polls symmer-bench-overhead times, as loops for an instruction
// counter, where a shared machine cannot time a few nanoseconds (one command line):
//
//   LD_PRELOAD=build/lib/libsymmer-pmpi.so SYMMER_ANALYZER=off valgrind --tool=callgrind
//     --toggle-collect=test_null_loop --toggle-collect=iprobe_loop
//     --toggle-collect=test_posted_loop --toggle-collect=self_exchange_loop
//     --toggle-collect=self_recv_loop build/bin/symmer-poll-loops
//
// Each loop's inclusive instructions / 101000 calls, with and without the shim, is what the
// shim adds per call (docs/results/symmer/shim-poll-instructions/); self_exchange_loop's per
// 8-byte exchange with itself (MPI_Irecv, MPI_Send, MPI_Wait), self_recv_loop's with a blocking
// receive (MPI_Isend, MPI_Recv, MPI_Wait): a ping-pong's calls are blocking sends and receives.
#include <mpi.h>

#include <cstdio>
#include <initializer_list>

extern "C" {

// MPI_Test on MPI_REQUEST_NULL (the overhead benchmark's "test").
__attribute__((noinline)) void test_null_loop(long n) {
  MPI_Request r = MPI_REQUEST_NULL;
  int flag = 0;
  for (long i = 0; i < n; ++i) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
}

// MPI_Iprobe that finds nothing (its "iprobe").
__attribute__((noinline)) void iprobe_loop(long n) {
  int flag = 0;
  for (long i = 0; i < n; ++i)
    MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

// MPI_Test on a posted receive that never completes: the shim follows the request.
__attribute__((noinline)) void test_posted_loop(long n) {
  int buf = 0, flag = 0;
  MPI_Request r;
  MPI_Irecv(&buf, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &r);
  for (long i = 0; i < n; ++i) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  MPI_Cancel(&r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}

// An 8-byte blocking MPI_Send to this rank, its receive posted first (a send to oneself may
// wait for the receive).
__attribute__((noinline)) void self_exchange_loop(long n) {
  double out = 1.0, in = 0.0;
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  for (long i = 0; i < n; ++i) {
    MPI_Request r;
    MPI_Irecv(&in, 1, MPI_DOUBLE, me, 5, MPI_COMM_WORLD, &r);
    MPI_Send(&out, 1, MPI_DOUBLE, me, 5, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
}

// An 8-byte MPI_Isend to this rank, received by a blocking MPI_Recv.
__attribute__((noinline)) void self_recv_loop(long n) {
  double out = 1.0, in = 0.0;
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  for (long i = 0; i < n; ++i) {
    MPI_Request r;
    MPI_Isend(&out, 1, MPI_DOUBLE, me, 6, MPI_COMM_WORLD, &r);
    MPI_Recv(&in, 1, MPI_DOUBLE, me, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
}
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  for (long n : {1000L, 100000L}) {  // the first round warms up both sides
    test_null_loop(n);
    iprobe_loop(n);
    test_posted_loop(n);
    self_exchange_loop(n);
    self_recv_loop(n);
  }
  MPI_Finalize();
  std::puts("done");
  return 0;
}
