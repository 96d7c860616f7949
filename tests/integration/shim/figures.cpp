// SPDX-License-Identifier: BSD-3-Clause
// A 2-rank MPI program with known compute phases, known waits and known per-peer traffic,
// which measures itself: the shim's figures are checked against what it writes to
// <prefix>.<rank>.json (run_shim_test.py figures).
//
// Phases (rank 0 / rank 1):
//   1 late sender   10x: compute 6 ms, Send 1000 ints     / compute 2 ms, Recv (waits ~4 ms)
//   2 communicator  5x on a split communicator that reverses the ranks, derived datatype:
//                   Irecv(ANY_SOURCE)+Wait             / Send 2 x vector(4 x 3 ints)
//   3 out of sync   3x: Isend 64 KiB (above SYMMER_EAGER_LIMIT=16k), compute 30 ms, Wait
//                                                       / Recv
//   4 persistent    4x Start+Wait of a 512-byte Send_init / Recv_init, Startall/Waitall
//   5 collectives   Barrier, Allreduce; MPI_PROC_NULL send/recv (no traffic)
//   6 polling       compute 20 ms, Send 64 ints   / Irecv, then MPI_Test every 5 us until it
//                   completes (the shim clocks only some polls: its split must still hold)
//   7 send wait     4x Ssend 1 KiB, 2x Send 64 KiB (above the eager limit) / compute 5 ms,
//                   Recv: rank 0's blocking sends wait for the receiver
//   8 eager pending 2x Isend 1 KiB (eager), compute 10 ms, Wait / Recv: compute with an
//                   incomplete send that is not out of sync
#include <mpi.h>
#include <time.h>

#include <cstdio>
#include <vector>

namespace {

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void busy(double seconds) {
  const double end = now() + seconds;
  while (now() < end) {
  }
}

struct Self {
  double in_mpi = 0;           // inside every MPI call after MPI_Init
  double late_from_peer = 0;   // inside receives/waits for messages from the other rank
  double pending_compute = 0;  // computing while a large Isend is incomplete
  double pending_any = 0;      // computing while any Isend is incomplete
  double send_wait = 0;        // inside sends above the eager limit and their completions
  double start = 0, end = 0;   // MPI_Init returned / MPI_Finalize called
  long long bytes_sent = 0, bytes_recv = 0, msgs_sent = 0, msgs_recv = 0;
  int sends = 0, recvs = 0, isends = 0, irecvs = 0, waits = 0, persistent = 0, collectives = 0,
      tests = 0;
};
Self self;

template <typename F>
double timed(F&& f) {
  const double t = now();
  f();
  const double d = now() - t;
  self.in_mpi += d;
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  self.start = now();
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "figures: needs exactly 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int peer = 1 - rank;

  // Phase 1: rank 1 waits about 4 ms per message for rank 0 (late sender).
  std::vector<int> ints(1000, rank);
  for (int i = 0; i < 10; ++i) {
    if (rank == 0) {
      busy(0.006);
      timed([&] { MPI_Send(ints.data(), 1000, MPI_INT, 1, 1, MPI_COMM_WORLD); });
      self.sends++, self.msgs_sent++, self.bytes_sent += 4000;
    } else {
      busy(0.002);
      self.late_from_peer += timed(
          [&] { MPI_Recv(ints.data(), 1000, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); });
      self.recvs++, self.msgs_recv++, self.bytes_recv += 4000;
    }
  }

  // Phase 2: a communicator with reversed ranks and a derived datatype of 48 bytes.
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &reversed);
  int rrank = 0;
  MPI_Comm_rank(reversed, &rrank);  // world 0 is rank 1 here
  MPI_Datatype vec;
  MPI_Type_vector(4, 3, 5, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  std::vector<int> strided(2 * 20, 7);
  for (int i = 0; i < 5; ++i) {
    if (rank == 1) {
      timed([&] { MPI_Send(strided.data(), 2, vec, /*world 0 =*/1 - rrank, 2, reversed); });
      self.sends++, self.msgs_sent++, self.bytes_sent += 96;
    } else {
      MPI_Request req;
      timed([&] { MPI_Irecv(strided.data(), 2, vec, MPI_ANY_SOURCE, 2, reversed, &req); });
      self.late_from_peer += timed([&] { MPI_Wait(&req, MPI_STATUS_IGNORE); });
      self.irecvs++, self.waits++, self.msgs_recv++, self.bytes_recv += 96;
    }
  }
  MPI_Type_free(&vec);

  // Phase 3: rank 0 computes 30 ms while its 64 KiB Isend is incomplete.
  std::vector<char> big(65536, 'x');
  for (int i = 0; i < 3; ++i) {
    if (rank == 0) {
      MPI_Request req;
      timed([&] { MPI_Isend(big.data(), 65536, MPI_CHAR, 1, 3, MPI_COMM_WORLD, &req); });
      const double t = now();
      busy(0.030);
      self.pending_compute += now() - t;
      self.pending_any += now() - t;
      self.send_wait += timed([&] { MPI_Wait(&req, MPI_STATUS_IGNORE); });
      self.isends++, self.waits++, self.msgs_sent++, self.bytes_sent += 65536;
    } else {
      MPI_Status st;
      self.late_from_peer +=
          timed([&] { MPI_Recv(big.data(), 65536, MPI_CHAR, 0, 3, MPI_COMM_WORLD, &st); });
      self.recvs++, self.msgs_recv++, self.bytes_recv += 65536;
    }
  }

  // Phase 4: persistent requests, four rounds of 512 bytes each way from rank 0 to rank 1.
  std::vector<char> small(512, 's');
  MPI_Request preq;
  timed([&] {
    if (rank == 0)
      MPI_Send_init(small.data(), 512, MPI_BYTE, 1, 4, MPI_COMM_WORLD, &preq);
    else
      MPI_Recv_init(small.data(), 512, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &preq);
  });
  self.persistent++;
  for (int i = 0; i < 4; ++i) {
    timed([&] { MPI_Startall(1, &preq); });
    const double d = timed([&] { MPI_Waitall(1, &preq, MPI_STATUSES_IGNORE); });
    self.persistent++, self.waits++;
    if (rank == 0) {
      self.msgs_sent++, self.bytes_sent += 512;
    } else {
      self.late_from_peer += d;
      self.msgs_recv++, self.bytes_recv += 512;
    }
  }
  timed([&] { MPI_Request_free(&preq); });
  self.persistent++;

  // Phase 5: collectives and MPI_PROC_NULL (no traffic, no peer).
  double sum = rank, total = 0;
  timed([&] { MPI_Barrier(MPI_COMM_WORLD); });
  timed([&] { MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); });
  self.collectives += 2;
  timed([&] { MPI_Send(ints.data(), 10, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD); });
  timed([&] {
    MPI_Recv(ints.data(), 10, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  });
  self.sends++, self.recvs++;
  MPI_Comm_free(&reversed);

  // Phase 6: rank 1 polls with MPI_Test while rank 0 computes.
  if (rank == 0) {
    busy(0.020);
    timed([&] { MPI_Send(ints.data(), 64, MPI_INT, 1, 6, MPI_COMM_WORLD); });
    self.sends++, self.msgs_sent++, self.bytes_sent += 256;
  } else {
    MPI_Request req;
    timed([&] { MPI_Irecv(ints.data(), 64, MPI_INT, 0, 6, MPI_COMM_WORLD, &req); });
    int done = 0;
    while (!done) {  // a few microseconds of work between polls, as applications do
      self.late_from_peer += timed([&] { MPI_Test(&req, &done, MPI_STATUS_IGNORE); });
      self.tests++;
      if (!done) busy(5e-6);
    }
    self.irecvs++, self.msgs_recv++, self.bytes_recv += 256;
  }

  // Phase 7: rank 0's synchronous and rendezvous sends wait while rank 1 computes 5 ms.
  std::vector<char> kib(1024, 'k');
  for (int i = 0; i < 6; ++i) {
    const bool large = i >= 4;
    char* buf = large ? big.data() : kib.data();
    const int bytes = large ? 65536 : 1024;
    if (rank == 0) {
      self.send_wait += timed([&] {
        if (large)
          MPI_Send(buf, bytes, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
        else
          MPI_Ssend(buf, bytes, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
      });
      self.sends++, self.msgs_sent++, self.bytes_sent += bytes;
    } else {
      busy(0.005);
      self.late_from_peer +=
          timed([&] { MPI_Recv(buf, bytes, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); });
      self.recvs++, self.msgs_recv++, self.bytes_recv += bytes;
    }
  }

  // Phase 8: rank 0 computes 10 ms while an eager Isend is incomplete (pending, not out of
  // sync: the message is on its way without the receiver).
  for (int i = 0; i < 2; ++i) {
    if (rank == 0) {
      MPI_Request req;
      timed([&] { MPI_Isend(kib.data(), 1024, MPI_CHAR, 1, 8, MPI_COMM_WORLD, &req); });
      const double t = now();
      busy(0.010);
      self.pending_any += now() - t;
      timed([&] { MPI_Wait(&req, MPI_STATUS_IGNORE); });
      self.isends++, self.waits++, self.msgs_sent++, self.bytes_sent += 1024;
    } else {
      self.late_from_peer += timed(
          [&] { MPI_Recv(kib.data(), 1024, MPI_CHAR, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE); });
      self.recvs++, self.msgs_recv++, self.bytes_recv += 1024;
    }
  }

  self.end = now();
  if (argc > 1) {
    char path[4096];
    std::snprintf(path, sizeof path, "%s.%d.json", argv[1], rank);
    if (FILE* f = std::fopen(path, "w")) {
      std::fprintf(
          f,
          "{\"rank\": %d, \"peer\": %d, \"wall\": %.9f, \"in_mpi\": %.9f, \"late_from_peer\": %.9f,"
          " \"pending_compute\": %.9f, \"pending_any\": %.9f, \"send_wait\": %.9f,"
          " \"bytes_sent\": %lld, \"bytes_recv\": %lld,"
          " \"msgs_sent\": %lld, \"msgs_recv\": %lld, \"sends\": %d, \"recvs\": %d,"
          " \"isends\": %d, \"irecvs\": %d, \"waits\": %d, \"persistent\": %d,"
          " \"collectives\": %d, \"tests\": %d, \"total\": %g}\n",
          rank, peer, self.end - self.start, self.in_mpi, self.late_from_peer, self.pending_compute,
          self.pending_any, self.send_wait, self.bytes_sent, self.bytes_recv, self.msgs_sent,
          self.msgs_recv, self.sends, self.recvs, self.isends, self.irecvs, self.waits,
          self.persistent, self.collectives, self.tests, total);
      std::fclose(f);
    }
  }
  MPI_Finalize();
  return 0;
}
