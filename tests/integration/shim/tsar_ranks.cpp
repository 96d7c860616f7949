// SPDX-License-Identifier: BSD-3-Clause
// TSAR inside the ranks of an MPI job: how many workers each rank's TSAR runs, and on which
// CPUs. With "swap", rank 0 then plays the analyzer (as rebind.cpp does, through libsymmer's
// SegmentControl) and swaps the two ranks' CPUs; every rank runs more passes, and TSAR's
// workers must follow to the new CPU, and TSAR must have told symmer where they are (the
// slot's runtime_workers). Results go to <prefix>.<rank>.json.
#include <mpi.h>
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "symmer/segment/control.hpp"
#include "symmer/segment/reader.hpp"
#include "symmer/topology/cpu_list.hpp"
#include "tsar/tsar.hpp"

namespace {

using namespace symmer::segment;

std::string find_segment() {
  for (const auto& e : scan_segments())
    if (e.snapshot) return e.path;
  return {};
}

std::string list(const std::set<int>& cpus) {
  const std::vector<int> v(cpus.begin(), cpus.end());
  return symmer::topology::format_cpu_list(v);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const bool swap = argc > 2 && std::strcmp(argv[2], "swap") == 0;
  const std::string launch = symmer::topology::format_cpu_list(symmer::topology::this_thread_cpus());

  tsar::Region region("ranks", "static");
  std::mutex m;
  std::set<int> cpus;
  const auto passes = [&] {
    cpus.clear();
    for (int p = 0; p < 3; ++p)
      region.parallel_for(4000, [&](const tsar::Chunk& c) {
        volatile double x = 0;
        for (auto i = c.begin(); i < c.end(); ++i)
          for (int k = 0; k < 200; ++k) x = x + 1e-3 * static_cast<double>(k);
        std::lock_guard lock(m);
        cpus.insert(sched_getcpu());
      });
    return list(cpus);
  };
  const std::string before = passes();

  std::string moved = "-";
  if (swap) {
    // Each rank's one CPU, as mpiexec -bind-to core gave it.
    const auto mine = symmer::topology::this_thread_cpus();
    int own = mine.size() == 1 ? mine.front() : -1, cpu[2] = {0, 1};
    MPI_Allgather(&own, 1, MPI_INT, cpu, 1, MPI_INT, MPI_COMM_WORLD);
    if (rank == 0) {
      auto ctl = SegmentControl::open(find_segment());
      if (!ctl || cpu[0] < 0 || cpu[1] < 0) MPI_Abort(MPI_COMM_WORLD, 3);
      if (!ctl->post_command(1, std::vector<int>{cpu[0]}) ||
          !ctl->post_command(0, std::vector<int>{cpu[1]}))
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const int target = cpu[1 - rank];
    for (int i = 0; i < 3000; ++i) {  // the rank moves at a publish: keep calling MPI
      int flag = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      if (symmer::topology::this_thread_cpus() == std::vector<int>{target}) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    moved = symmer::topology::format_cpu_list(symmer::topology::this_thread_cpus());
  }
  const std::string after = passes();
  // Calls for a while: the shim publishes what TSAR told it at most every SYMMER_PERIOD_MS.
  for (const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
       std::chrono::steady_clock::now() < end;) {
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  MPI_Barrier(MPI_COMM_WORLD);

  std::string published = "-";
  if (auto snap = read_segment(find_segment()); snap && rank < static_cast<int>(snap->slots.size()))
    published = symmer::topology::format_cpu_list(
        mask_cpus(snap->slots[static_cast<std::size_t>(rank)].placement.runtime_workers));
  if (argc > 1) {
    char path[4096];
    std::snprintf(path, sizeof path, "%s.%d.json", argv[1], rank);
    if (FILE* f = std::fopen(path, "w")) {
      std::fprintf(f,
                   "{\"rank\": %d, \"devices\": %d, \"launch\": \"%s\", \"workers_before\": "
                   "\"%s\", \"moved_to\": \"%s\", \"workers_after\": \"%s\", \"published\": "
                   "\"%s\"}\n",
                   rank, region.num_devices(), launch.c_str(), before.c_str(), moved.c_str(),
                   after.c_str(), published.c_str());
      std::fclose(f);
    }
  }
  MPI_Finalize();
  return 0;
}
