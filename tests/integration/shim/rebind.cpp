// SPDX-License-Identifier: BSD-3-Clause
// Rank side of re-binding, driven from inside the job the way the embedded analyzer does it.
//
// Rank 0 plays the analyzer: it opens the node segment through libsymmer (SegmentControl) and
// orders the two ranks to swap CPUs (what the analyzer does); each rank has a helper thread
// that never calls MPI and must move too. The ranks keep calling MPI until the order shows in
// their affinity. Then rank 0 writes a corrupt command (CPU 1023, which this node lacks)
// straight into the file: rank 1 must refuse it (ack invalid-cpu) and the job must go on. Results go to
// <prefix>.<rank>.json.
#include <fcntl.h>
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "symmer/segment/control.hpp"
#include "symmer/segment/reader.hpp"

namespace {

using namespace symmer::segment;

// The segment of this job in $SYMMER_SHM_DIR (the test gives each run a private directory).
std::string find_segment() {
  for (const auto& e : scan_segments())
    if (e.snapshot) return e.path;
  return {};
}

int only_cpu(pid_t tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(tid, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1) return -1;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) return c;
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::atomic<pid_t> helper_tid{0};
  std::atomic<bool> stop{false};
  std::thread helper([&] {  // a second thread of rank 1 that never calls MPI: it must move too
    helper_tid = static_cast<pid_t>(::gettid());
    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  while (helper_tid == 0) std::this_thread::yield();

  // Swap: each rank goes to the CPU the other one runs on (pinned by mpiexec -bind-to core).
  const int start_cpu = only_cpu(0);
  int cpus[2] = {0, 1};
  MPI_Allgather(&start_cpu, 1, MPI_INT, cpus, 1, MPI_INT, MPI_COMM_WORLD);
  if (cpus[0] < 0 || cpus[1] < 0 || cpus[0] == cpus[1]) cpus[0] = 0, cpus[1] = 1;
  const int target = cpus[1 - rank];

  std::string ack_ok = "none", ack_bad = "none";
  int gen_ok = 0;
  if (rank == 0) {
    auto ctl = SegmentControl::open(find_segment());
    if (!ctl) {
      std::fprintf(stderr, "rebind: %s\n", ctl.error().to_string().c_str());
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    gen_ok = static_cast<int>(*ctl->post_command(1, std::vector<int>{cpus[0]}));
    if (static_cast<int>(*ctl->post_command(0, std::vector<int>{cpus[1]})) != gen_ok)
      MPI_Abort(MPI_COMM_WORLD, 5);
  }
  MPI_Bcast(&gen_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);  // each rank applies its order at a next call

  int moved = -1, helper_moved = -1;
  for (int i = 0; i < 1000; ++i) {
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (only_cpu(0) == target && only_cpu(helper_tid) == target) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  moved = only_cpu(0);
  helper_moved = only_cpu(helper_tid);
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank == 0) {
    auto ctl = SegmentControl::open(find_segment());
    for (int r : {0, 1}) {
      const Ack a = ctl->ack(r);
      const std::string s =
          a.generation == static_cast<std::uint32_t>(gen_ok) && a.cpu == cpus[1 - r]
              ? ack_status_name(a.status)
              : "stale";
      if (r == 0 || ack_ok == "ok") ack_ok = s;
    }
    // A corrupt order, written behind the library's back: the set, then the word.
    auto snap = read_segment(find_segment());
    const std::uint64_t slot = snap->header.slots_offset + snap->header.slot_size;
    const std::uint64_t cpu_1023 = std::uint64_t{1} << 63;
    const std::uint64_t word =
        encode_command({static_cast<std::uint32_t>(gen_ok + 1), CommandKind::kBind});
    const int fd = ::open(snap->path.c_str(), O_WRONLY);
    const auto put = [fd](std::uint64_t value, std::uint64_t offset) {
      return ::pwrite(fd, &value, sizeof value, static_cast<off_t>(offset)) == sizeof value;
    };
    if (fd < 0 || !put(cpu_1023, slot + kSlotTargetOffset + 8 * (kCpuMaskWords - 1)) ||
        !put(word, slot + kSlotControlOffset + offsetof(SlotControl, command)))
      MPI_Abort(MPI_COMM_WORLD, 4);
    ::close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  // Rank 1 acts on the corrupt order at its next publish (every SYMMER_PERIOD_MS, 10 ms by
  // default): calls for about 20 periods.
  for (int i = 0; i < 200; ++i) {
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    auto ctl = SegmentControl::open(find_segment());
    const Ack a = ctl->ack(1);
    ack_bad = a.generation == static_cast<std::uint32_t>(gen_ok + 1) ? ack_status_name(a.status)
                                                                     : "stale";
  }
  stop = true;
  helper.join();
  if (argc > 1) {
    char path[4096];
    std::snprintf(path, sizeof path, "%s.%d.json", argv[1], rank);
    if (FILE* f = std::fopen(path, "w")) {
      std::fprintf(
          f,
          "{\"rank\": %d, \"target\": %d, \"start_cpu\": %d, \"cpu\": %d, \"helper_cpu\": %d,"
          " \"ack_ok\": \"%s\", \"ack_bad\": \"%s\"}\n",
          rank, target, start_cpu, moved, helper_moved, ack_ok.c_str(), ack_bad.c_str());
      std::fclose(f);
    }
  }
  MPI_Finalize();
  return 0;
}
