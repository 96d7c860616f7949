// SPDX-License-Identifier: BSD-3-Clause
// MPI_THREAD_MULTIPLE: 4 threads per rank each exchange 250 messages of a thread-specific size
// (blocking on even threads, nonblocking on odd ones). The shim's totals must be exact: no
// update of any thread may be lost. Writes the expected figures to <prefix>.<rank>.json.
#include <mpi.h>

#include <cstdio>
#include <thread>
#include <vector>

namespace {
constexpr int kThreads = 4;
constexpr int kMessages = 250;
int bytes_of(int thread) { return 64 * (thread + 1); }
}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0) std::printf("SKIP: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
    MPI_Finalize();
    return 0;
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([rank, t] {
      std::vector<char> buf(bytes_of(t), 'a');
      for (int i = 0; i < kMessages; ++i) {
        if (rank == 0) {
          if (t % 2 == 0) {
            MPI_Send(buf.data(), bytes_of(t), MPI_BYTE, 1, t, MPI_COMM_WORLD);
          } else {
            MPI_Request r;
            MPI_Isend(buf.data(), bytes_of(t), MPI_BYTE, 1, t, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
          }
        } else {
          if (t % 2 == 0) {
            MPI_Recv(buf.data(), bytes_of(t), MPI_BYTE, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          } else {
            MPI_Request r;
            MPI_Irecv(buf.data(), bytes_of(t), MPI_BYTE, MPI_ANY_SOURCE, t, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  long long bytes = 0;
  for (int t = 0; t < kThreads; ++t) bytes += static_cast<long long>(bytes_of(t)) * kMessages;
  const int blocking = kMessages * ((kThreads + 1) / 2), nonblocking = kMessages * (kThreads / 2);
  if (argc > 1) {
    char path[4096];
    std::snprintf(path, sizeof path, "%s.%d.json", argv[1], rank);
    if (FILE* f = std::fopen(path, "w")) {
      std::fprintf(f,
                   "{\"rank\": %d, \"bytes\": %lld, \"messages\": %d, \"blocking\": %d,"
                   " \"nonblocking\": %d}\n",
                   rank, bytes, kThreads * kMessages, blocking, nonblocking);
      std::fclose(f);
    }
  }
  MPI_Finalize();
  return 0;
}
