// SPDX-License-Identifier: BSD-3-Clause
// symmer-bench-overhead: what the PMPI shim adds to MPI calls and to a balanced application.
//
// The driver re-runs this program as a 2-rank MPI job (mpiexec -n 2 -bind-to core) in turn
// without libsymmer-pmpi.so, with it, and with it but SYMMER_ANALYZER=off:
//   test      MPI_Test on a completed (null) request
//   iprobe    MPI_Iprobe that finds nothing
//   pingpong  8-byte ping-pong between the two ranks: a round trip is four calls (Send and Recv
//             on each rank), all of them wrapped, so per call = round trip / 4
//   app       a balanced compute + halo exchange + allreduce loop (no symptoms): the time of
//             its rounds through MPI_X (half of --app-iterations; the other half, PMPI_X)
// What the shim adds per call is measured inside each job: rounds of MPI_X (through the shim
// when it is loaded) alternate with rounds of PMPI_X (the MPI library's own entry, which the
// shim does not wrap), on the same cores, buffers and MPI state. Across jobs the same call's
// time moves by tens of ns (docs/results/symmer/shim-clock-cost/), more than the shim adds.
// The jobs without the shim measure the same difference as a control: it should be ~0.
// The application is timed both ways: across jobs (everything the shim costs, its analyzer
// thread included) and inside each job (pairs of rounds through MPI_X and PMPI_X: the
// wrappers alone), with the analyzer thread's own CPU time as a share of a core beside it.
// Last line: {"benchmark":"pmpi_overhead", ..., "added_ns_per_call":{...}, "app_overhead":...}
#include <mpi.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "symmer_version.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Options {
  bool worker = false;
  long iterations = 200000;
  int repeats = 5;
  int app_iterations = 1500;
  bool quick = false;
  std::string shim;
  std::string mpiexec = SYMMER_MPIEXEC;
};

// Pair r of two measurements, `a` first in even pairs and `b` first in odd ones: drift within
// a pair falls on both alike.
template <typename A, typename B>
void in_turn(int r, A&& a, B&& b) {
  if (r % 2 == 0) {
    a();
    b();
  } else {
    b();
    a();
  }
}

struct Timing {
  double mpi_ns;   ///< through MPI_X
  double pmpi_ns;  ///< through PMPI_X
};

// Best of 20 short rounds each of `mpi` and `pmpi` (n calls each in all), alternated and in
// swapped order every other pair, in ns per call: a round that the scheduler interrupted
// (shared machines) loses to one that ran undisturbed, and drift hits both alike.
template <typename Mpi, typename Pmpi>
Timing ns_per_call(long n, Mpi&& mpi, Pmpi&& pmpi) {
  constexpr int kRounds = 20;
  const long per_round = std::max(1L, n / kRounds);
  Timing best{1e300, 1e300};
  const auto round = [&](auto& body, double& out) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t = now();
    for (long i = 0; i < per_round; ++i) body();
    out = std::min(out, (now() - t) * 1e9 / static_cast<double>(per_round));
  };
  for (int r = 0; r < kRounds; ++r)
    in_turn(
        r, [&] { round(mpi, best.mpi_ns); }, [&] { round(pmpi, best.pmpi_ns); });
  return best;
}

// Fixed work per iteration (not a fixed time), so shim overhead shows in the total.
double compute(std::vector<double>& a) {
  double s = 0;
  for (int rep = 0; rep < 40; ++rep)
    for (std::size_t i = 0; i < a.size(); ++i) {
      a[i] = a[i] * 0.999 + 0.001 * static_cast<double>(i & 7);
      s += a[i];
    }
  return s;
}

// CPU time of this process's embedded analyzer thread (named "symmer-analyze"; only the node's
// first rank runs one), in ns from the scheduler's own accounting; -1 without one.
std::int64_t analyzer_cpu_ns() {
  std::error_code ec;
  for (const auto& task : fs::directory_iterator("/proc/self/task", ec)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (!std::getline(comm, name) || name != "symmer-analyze") continue;
    std::ifstream schedstat(task.path() / "schedstat");
    std::int64_t on_cpu = -1;
    return schedstat >> on_cpu ? on_cpu : -1;
  }
  return -1;
}

int worker(const Options& o) {
  MPI_Init(nullptr, nullptr);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) MPI_Abort(MPI_COMM_WORLD, 2);
  const int peer = 1 - rank;
  int flag = 0;

  MPI_Request null_request = MPI_REQUEST_NULL;
  const Timing test = ns_per_call(
      o.iterations, [&] { MPI_Test(&null_request, &flag, MPI_STATUS_IGNORE); },
      [&] { PMPI_Test(&null_request, &flag, MPI_STATUS_IGNORE); });
  const Timing iprobe = ns_per_call(
      o.iterations,
      [&] { MPI_Iprobe(MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); },
      [&] { PMPI_Iprobe(MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); });
  char msg[8] = {};
  const long rounds = std::max(1L, o.iterations / 10);
  const auto ping_pong = [&](auto send, auto recv) {
    return [&, send, recv] {
      if (rank == 0) {
        send(msg, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        recv(msg, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        recv(msg, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        send(msg, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      }
    };
  };
  const Timing round_trip =
      ns_per_call(rounds, ping_pong(&MPI_Send, &MPI_Recv), ping_pong(&PMPI_Send, &PMPI_Recv));

  // The balanced application: same work on both ranks, halo exchange, periodic allreduce; in
  // rounds of a tenth of its iterations, through MPI_X and PMPI_X by turns (swapped every
  // other pair), so that what the wrappers add shows inside the job as well.
  std::vector<double> field(8192, 1.0), halo_out(1024, 1.0), halo_in(1024);
  double checksum = 0;
  const auto app_round = [&](int iterations, auto sendrecv, auto allreduce) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = now();
    for (int it = 0; it < iterations; ++it) {
      checksum += compute(field);
      sendrecv(halo_out.data(), 1024, MPI_DOUBLE, peer, 7, halo_in.data(), 1024, MPI_DOUBLE, peer,
               7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (it % 10 == 0) {
        double local = checksum, global = 0;
        allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return now() - t0;
  };
  constexpr int kAppPairs = 5;
  const int per_round = std::max(1, o.app_iterations / (2 * kAppPairs));
  double app = 0, app_pmpi = 0;
  std::vector<double> pair_ratios;  // each pair's MPI_X round over its PMPI_X round
  app_round(per_round, &PMPI_Sendrecv, &PMPI_Allreduce);  // warms up: first touch, caches
  // The analyzer names its thread once it has found the node (hwloc: up to a good part of a
  // second on a loaded machine); the rank that runs one (the node's first) waits up to 2 s.
  const char* analyzer_env = std::getenv("SYMMER_ANALYZER");
  if (rank == 0 && analyzer_env != nullptr && std::string(analyzer_env) == "embedded")
    for (int wait = 0; wait < 200 && analyzer_cpu_ns() < 0; ++wait) ::usleep(10'000);
  const std::int64_t analyzer_before = analyzer_cpu_ns();
  const double app_start = now();
  for (int r = 0; r < kAppPairs; ++r) {
    double with = 0, without = 0;
    const auto through_mpi = [&] { with = app_round(per_round, &MPI_Sendrecv, &MPI_Allreduce); };
    const auto through_pmpi = [&] {
      without = app_round(per_round, &PMPI_Sendrecv, &PMPI_Allreduce);
    };
    in_turn(r, through_mpi, through_pmpi);
    app += with;
    app_pmpi += without;
    pair_ratios.push_back(with / without);
  }
  std::sort(pair_ratios.begin(), pair_ratios.end());
  const double app_in_job = pair_ratios[pair_ratios.size() / 2];
  const double app_wall = now() - app_start;
  const std::int64_t analyzer_after = analyzer_cpu_ns();
  const json analyzer_share =
      analyzer_before < 0 || analyzer_after < 0
          ? json(nullptr)
          : json(1e-9 * static_cast<double>(analyzer_after - analyzer_before) / app_wall);
  if (rank == 0)
    std::printf("%s\n", json{{"test_ns", test.mpi_ns},
                             {"test_pmpi_ns", test.pmpi_ns},
                             {"iprobe_ns", iprobe.mpi_ns},
                             {"iprobe_pmpi_ns", iprobe.pmpi_ns},
                             {"pingpong_ns", round_trip.mpi_ns / 4},
                             {"pingpong_pmpi_ns", round_trip.pmpi_ns / 4},
                             {"app_s", app},
                             {"app_pmpi_s", app_pmpi},
                             {"app_in_job_ratio", app_in_job},
                             {"analyzer_cpu_share", analyzer_share},
                             {"checksum", std::isfinite(checksum)}}
                            .dump()
                            .c_str());
  MPI_Finalize();
  return 0;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The variants compared: no shim; the shim as users get it (embedded analyzer on); the shim
// alone (SYMMER_ANALYZER=off), which separates the wrappers' cost from the analyzer thread's.
struct Variant {
  const char* name;
  bool preload;
  const char* analyzer;
};
constexpr Variant kVariants[] = {
    {"without", false, "off"}, {"with", true, "embedded"}, {"with_analyzer_off", true, "off"}};

// One worker job; its rank 0's JSON line, or null when it failed.
json run_worker(const Options& o, const std::string& self, const Variant& v,
                const std::string& shm) {
  std::string cmd =
      "env -u LD_PRELOAD SYMMER_SHM_DIR=" + shell_quote(shm) + " SYMMER_ANALYZER=" + v.analyzer;
  if (v.preload) cmd += " LD_PRELOAD=" + shell_quote(o.shim);
  cmd += " " + shell_quote(o.mpiexec) + " -n 2 -bind-to core " + shell_quote(self) + " --worker" +
         " --iterations " + std::to_string(o.iterations) + " --app-iterations " +
         std::to_string(o.app_iterations);
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return nullptr;
  char line[4096];
  json result;
  while (std::fgets(line, sizeof line, pipe)) {
    try {
      result = json::parse(line);
    } catch (const json::exception&) {
    }
  }
  return ::pclose(pipe) == 0 ? result : json();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int driver(Options o) {
  const fs::path self = fs::read_symlink("/proc/self/exe");
  if (o.shim.empty())
    for (const char* rel : {"../lib", SYMMER_INSTALL_LIBDIR})
      if (fs::exists(self.parent_path() / rel / "libsymmer-pmpi.so"))
        o.shim = fs::weakly_canonical(self.parent_path() / rel / "libsymmer-pmpi.so").string();
  if (o.shim.empty() || !fs::exists(o.shim)) {
    std::cerr << "symmer-bench-overhead: libsymmer-pmpi.so not found (use --shim)\n";
    return 1;
  }
  if (o.quick) o.iterations = 20000, o.repeats = 1, o.app_iterations = 100;
  char tmpl[] = "/tmp/symmer-bench-XXXXXX";
  const std::string shm = ::mkdtemp(tmpl) ? tmpl : "/tmp";

  const char* kinds[] = {"test_ns",        "test_pmpi_ns", "iprobe_ns",
                         "iprobe_pmpi_ns", "pingpong_ns",  "pingpong_pmpi_ns",
                         "app_s",          "app_pmpi_s",   "app_in_job_ratio"};
  constexpr int kCount = std::size(kVariants);
  std::map<std::string, std::vector<double>> results[kCount];
  std::vector<double> analyzer_share;  ///< of the jobs with the shim and its analyzer
  for (int r = 0; r < o.repeats; ++r) {
    for (int k = 0; k < kCount; ++k) {  // rotate the order: drift hits every variant alike
      const int v = (r + k) % kCount;
      const json j = run_worker(o, self.string(), kVariants[v], shm);
      if (j.is_null()) {
        std::cerr << "symmer-bench-overhead: a worker job failed\n";
        return 1;
      }
      for (const char* kind : kinds) results[v][kind].push_back(j[kind].get<double>());
      if (kVariants[v].preload && j["analyzer_cpu_share"].is_number())
        analyzer_share.push_back(j["analyzer_cpu_share"].get<double>());
    }
  }
  fs::remove_all(shm);
  auto& without = results[0];
  auto& with = results[1];
  auto& alone = results[2];

  // Per job, MPI_X minus PMPI_X: what the shim adds (with it), a control (without it).
  const auto in_job = [&](auto& runs, const std::string& name) {
    std::vector<double> d;
    for (int r = 0; r < o.repeats; ++r)
      d.push_back(runs[name + "_ns"][r] - runs[name + "_pmpi_ns"][r]);
    return d;
  };
  json added = json::object(), control = json::object(), across = json::object(),
       per_call = json::object(), added_jobs = json::object();
  for (const std::string name : {"test", "iprobe", "pingpong"}) {
    const std::vector<double> d = in_job(with, name), c = in_job(without, name);
    const double a = median(without[name + "_ns"]), b = median(with[name + "_ns"]);
    per_call[name] = {
        {"without_ns", a}, {"with_ns", b}, {"with_pmpi_ns", median(with[name + "_pmpi_ns"])}};
    added[name] = median(d);
    added_jobs[name] = d;
    control[name] = median(c);
    across[name] = b - a;
    std::printf(
        "%-9s %+6.1f ns/call added by the shim (in-job MPI_X - PMPI_X, median of %d jobs; "
        "without it %+.1f); across jobs %8.1f without, %8.1f with: %+6.1f\n",
        name.c_str(), median(d), o.repeats, median(c), a, b, b - a);
  }
  auto best = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  const double app_without = median(without["app_s"]), app_with = median(with["app_s"]),
               app_alone = median(alone["app_s"]);
  const double app_overhead = app_with / app_without - 1.0;
  const double alone_overhead = app_alone / app_without - 1.0;
  // The least disturbed run of each variant: on a shared machine the steadier comparison.
  const double best_overhead = best(with["app_s"]) / best(without["app_s"]) - 1.0;
  // Each repeat runs the variants back to back: their ratio within a repeat cancels drift
  // (other jobs, clock changes) that spreads the runs of one variant.
  std::vector<double> paired;
  for (int r = 0; r < o.repeats; ++r)
    paired.push_back(with["app_s"][r] / without["app_s"][r] - 1.0);
  const double paired_overhead = median(paired);
  // Inside each job: the median pair's MPI_X round over its PMPI_X round (the wrappers' cost
  // alone; the analyzer thread runs through both), and a control in the jobs without the shim.
  const double wrappers_overhead = median(with["app_in_job_ratio"]) - 1.0,
               wrappers_control = median(without["app_in_job_ratio"]) - 1.0;
  const json analyzer = analyzer_share.empty() ? json(nullptr) : json(median(analyzer_share));
  std::printf(
      "app       %8.3f s without, %8.3f s with the shim: %+.2f%% (medians; paired %+.2f%%; best"
      " runs %+.2f%%); analyzer off %+.2f%%\n",
      app_without, app_with, 100.0 * app_overhead, 100.0 * paired_overhead, 100.0 * best_overhead,
      100.0 * alone_overhead);
  std::printf(
      "app       the wrappers inside each job %+.2f%% (without the shim %+.2f%%); the analyzer "
      "thread used %s of a core\n",
      100.0 * wrappers_overhead, 100.0 * wrappers_control,
      analyzer.is_null() ? "-" : (std::to_string(100.0 * analyzer.get<double>()) + "%").c_str());
  double worst = 0;
  for (auto& [k, v] : added.items()) worst = std::max(worst, v.get<double>());
  std::printf(
      "%s\n",
      json{{"benchmark", "pmpi_overhead"},
           {"mpi", "mpich"},
           {"ranks", 2},
           {"repeats", o.repeats},
           {"iterations", o.iterations},
           {"per_call", per_call},
           {"added_ns_per_call", added},
           {"added_ns_per_call_by_job", added_jobs},
           {"added_ns_per_call_max", worst},
           {"control_ns_per_call_without_shim", control},
           {"added_ns_per_call_across_jobs", across},
           {"goal_ns_per_call", 20},
           {"app_seconds",
            {{"without", app_without}, {"with", app_with}, {"with_analyzer_off", app_alone}}},
           {"app_overhead", app_overhead},
           {"app_overhead_paired", paired_overhead},
           {"app_overhead_best_runs", best_overhead},
           {"app_overhead_analyzer_off", alone_overhead},
           {"app_overhead_wrappers_in_job", wrappers_overhead},
           {"control_app_in_job_without_shim", wrappers_control},
           {"analyzer_cpu_share", analyzer},
           {"goal_app_overhead", 0.01}}
          .dump()
          .c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"symmer-bench-overhead: PMPI shim overhead per call and on a balanced application"};
  Options o;
  app.add_flag("--worker", o.worker, "run as one rank of the measured MPI job (internal)")
      ->group("");
  app.add_option("--iterations", o.iterations, "calls per measurement")
      ->check(CLI::Range(1L, 100000000L));
  app.add_option("--repeats", o.repeats, "jobs per variant (medians are reported)")
      ->check(CLI::Range(1, 100));
  app.add_option("--app-iterations", o.app_iterations, "iterations of the balanced application")
      ->check(CLI::Range(1, 1000000));
  app.add_flag("--quick", o.quick, "one short job per variant (a smoke run, not a measurement)");
  app.add_option("--shim", o.shim,
                 "the shim to measure (default: ../lib/libsymmer-pmpi.so beside this program)");
  app.add_option("--mpiexec", o.mpiexec, "MPICH's mpiexec");
  symmer::add_version_flag(app, "symmer-bench-overhead");
  CLI11_PARSE(app, argc, argv);
  return o.worker ? worker(o) : driver(o);
}
