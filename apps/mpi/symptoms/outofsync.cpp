// SPDX-License-Identifier: BSD-3-Clause
// symmer-outofsync: the out-of-sync communication benchmark of thesis 3.4.1.
//
// Ranks work in pairs. Each iteration has two steps; in the first the even rank sends a large
// message to the odd one, in the second the odd rank sends back; after each transfer both
// compute. The thesis's MPI library (over TCP) sent at once when the receiver was ready and
// otherwise buffered the data and let the sender go on computing, the data then moving only
// when the sender next entered MPI. A rendezvous-size message behaves the same way in MPICH,
// so --mode buffered (the default) reproduces that library behaviour explicitly: the receiver
// announces that it is ready with a zero-byte message; a sender that finds its receiver ready
// (within --grace-ms) sends at once (MPI_Send), otherwise it posts MPI_Isend and computes with
// the send pending, and its receiver waits through that whole compute phase. Peers on cores
// of equal capability stay in step; a capability difference desynchronises them, and every
// step then costs a full extra compute phase.
//   --mode send    always MPI_Send (no buffering: the pair only waits for the slower rank)
//   --mode isend   always MPI_Isend + compute + MPI_Wait (always out of sync)
#include <string>
#include <vector>

#include "symptom_bench.hpp"

namespace {

using namespace symmer::bench;

constexpr int kReadyTag = 1;
constexpr int kDataTag = 2;

struct Step {
  const Work& work;
  RankStats& stats;
  std::string mode;
  double grace_ms;
  double compute_ms;
  std::vector<char>& buffer;
  int bytes;
  int partner;

  // Sender side: send, compute, finish the send.
  void send() {
    char token = 0;
    if (mode == "send") {
      timed_mpi(stats, [&] {
        MPI_Send(buffer.data(), bytes, MPI_CHAR, partner, kDataTag, MPI_COMM_WORLD);
      });
      timed_compute(stats, work, compute_ms);
      return;
    }
    bool ready = false;
    if (mode == "buffered") {
      timed_mpi(stats, [&] {  // is the receiver waiting already (or about to)?
        const double until = now() + grace_ms * 1e-3;
        int flag = 0;
        do MPI_Iprobe(partner, kReadyTag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        while (!flag && now() < until);
        ready = flag != 0;
        if (ready)
          MPI_Recv(&token, 0, MPI_CHAR, partner, kReadyTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      });
    }
    if (ready) {
      timed_mpi(stats, [&] {
        MPI_Send(buffer.data(), bytes, MPI_CHAR, partner, kDataTag, MPI_COMM_WORLD);
      });
      timed_compute(stats, work, compute_ms);
      return;
    }
    MPI_Request request;
    timed_mpi(stats, [&] {
      MPI_Isend(buffer.data(), bytes, MPI_CHAR, partner, kDataTag, MPI_COMM_WORLD, &request);
    });
    timed_compute(stats, work, compute_ms);  // with the send pending: out of sync
    timed_mpi(stats, [&] {
      if (mode == "buffered")
        MPI_Recv(&token, 0, MPI_CHAR, partner, kReadyTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    });
  }

  // Receiver side: (announce,) receive, compute.
  void receive() {
    char token = 0;
    timed_mpi(stats, [&] {
      if (mode == "buffered") MPI_Send(&token, 0, MPI_CHAR, partner, kReadyTag, MPI_COMM_WORLD);
      MPI_Recv(buffer.data(), bytes, MPI_CHAR, partner, kDataTag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    });
    timed_compute(stats, work, compute_ms);
  }
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  CLI::App app{"symmer-outofsync: large transfers followed by long compute"};
  int iterations = 150;
  double work_ms = 10.0;
  double ratio = 1.0;
  int bytes = 1 << 20;
  std::string mode = "buffered";
  double grace_ms = -1;
  app.add_option("--iterations", iterations, "iterations (two transfers each)")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--work-ms", work_ms, "compute after each transfer (ms of a full core)")
      ->check(CLI::Range(0.0, 60000.0));
  app.add_option("--ratio", ratio, "compute of even ranks / compute of odd ranks")
      ->check(CLI::Range(0.001, 1000.0));
  app.add_option("--bytes", bytes, "message size (above the eager limit to go out of sync)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--mode", mode, "buffered, send or isend")
      ->check(CLI::IsMember({"buffered", "send", "isend"}));
  app.add_option("--grace-ms", grace_ms,
                 "how long a sender looks for a ready receiver (default work/10)")
      ->check(CLI::Range(0.0, 60000.0));
  double units_per_ms = 0;
  add_work_option(app, units_per_ms);
  parse(MPI_COMM_WORLD, app, argc, argv);
  if (size % 2 != 0)
    fail(MPI_COMM_WORLD, "symmer-outofsync: needs an even number of ranks (pairs)");
  if (grace_ms < 0) grace_ms = work_ms / 10;

  const bool even = rank % 2 == 0;
  const double my_ms = even ? work_ms * ratio : work_ms;
  std::vector<char> buffer(static_cast<std::size_t>(bytes), static_cast<char>(rank));
  const Work work = Work::calibrate(MPI_COMM_WORLD, units_per_ms);
  RankStats stats;
  Step step{work, stats, mode, grace_ms, my_ms, buffer, bytes, rank ^ 1};

  MPI_Barrier(MPI_COMM_WORLD);
  const double start = now();
  for (int i = 0; i < iterations; ++i) {
    if (even) {
      step.send();
      step.receive();
    } else {
      step.receive();
      step.send();
    }
    stats.sample_cpu(start);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double runtime = now() - start;
  report(MPI_COMM_WORLD, "outofsync",
         {{"iterations", iterations},
          {"work_ms", work_ms},
          {"ratio", ratio},
          {"bytes", bytes},
          {"mode", mode},
          {"grace_ms", grace_ms}},
         runtime, work, stats);
  MPI_Finalize();
  return 0;
}
