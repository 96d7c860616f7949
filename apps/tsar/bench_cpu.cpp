// SPDX-License-Identifier: BSD-3-Clause
// tsar-bench-cpu: one loop on every core while symmer-noise steals a share of one core (as
// interrupt processing would), with OpenMP static, OpenMP dynamic, TSAR adaptive and TSAR
// chunk-dynamic side by side in one run; a regular loop and an imbalanced one (the work of
// iteration i grows with i, like CORR).
//   adaptive_over_static   T(OpenMP static) / T(TSAR adaptive)   (goal on 2 cores, share 0.5: ~1.5)
//   adaptive_over_dynamic  T(OpenMP dynamic) / T(TSAR adaptive)
//   adaptive_vs_ideal      T(TSAR adaptive) / T(ideal)           (goal: at most 1.10)
// T(ideal) = 1 / sum_j (1 / T_j), T_j the time of core j alone for the whole loop under the
// same noise (docs/architecture.md's co-execution efficiency is its inverse). Each T is the median
// pass of the measured rounds; a round runs every variant once, so all see the same conditions.
// Every timed pass starts from quiet cores (a 5 ms pause before it), so no runtime pays for
// the previous one's spinning threads. The top-level ratios are the regular loop's; the
// imbalanced loop's sit under "imbalanced".
// Usage: tsar-bench-cpu [--cores LIST] [--noise-core C] [--share F] [--no-noise] [--rounds R]
//                       [--iterations N] [--us-per-iteration U]
//   --cores LIST  Linux CPUs whose cores to use (L:0-3: logical cores; default: all); TSAR gets
//                 one CPU device per core
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "noise_process.hpp"
#include "symmer/topology/cpu_list.hpp"
#include "symmer/topology/node_model.hpp"
#include "symmer_version.hpp"
#include "tsar/tsar.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using symmer::topology::NodeModel;

struct Options {
  std::string cores;    // "": every core
  int noise_core = -1;  // -1: the last core used
  double share = 0.5;
  bool noise = true;
  int rounds = 10;
  std::int64_t iterations = 8000;
  double us_per_iteration = 10.0;
};

struct Loop {
  const char* name;
  bool imbalanced;
  std::int64_t n;
  int reps;  // kernel steps of an average iteration
};

/// A chain of dependent divisions: a fixed, memory-free cost per step.
inline double kernel(std::int64_t i, int reps) {
  double x = 1.0 + static_cast<double>(i % 1024) * 1e-6;
  for (int k = 0; k < reps; ++k) x = x * 0.999999 + 1.0 / (x + 1.0);
  return x;
}

inline int reps_of(const Loop& loop, std::int64_t i) {
  if (!loop.imbalanced) return loop.reps;
  return static_cast<int>(std::max<std::int64_t>(1, 2 * loop.reps * (i + 1) / loop.n));
}

void run_range(const Loop& loop, std::int64_t b, std::int64_t e, double* y) {
  for (std::int64_t i = b; i < e; ++i) y[i] = kernel(i, reps_of(loop, i));
}

template <class F>
double timed(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Kernel steps per microsecond on `core`, before the noise starts.
double steps_per_us(const NodeModel& node, int core) {
  double rate = 0.0;
  std::thread t([&] {
    node.bind_current_thread(core);
    volatile double sink = kernel(1, 20000);  // warm up the clock
    const double s = timed([&] { sink = kernel(2, 200000); });
    (void)sink;
    rate = 200000 / (s * 1e6);
  });
  t.join();
  return rate;
}

void quiet_pause() { std::this_thread::sleep_for(std::chrono::milliseconds(5)); }

/// The whole loop on core `core` alone (median of three).
double standalone(const NodeModel& node, const Loop& loop, int core, std::vector<double>& y) {
  std::vector<double> runs;
  std::thread t([&] {
    node.bind_current_thread(core);
    for (int r = 0; r < 3; ++r) {
      quiet_pause();
      runs.push_back(timed([&] { run_range(loop, 0, loop.n, y.data()); }));
    }
  });
  t.join();
  return median(runs);
}

nlohmann::json measure(const NodeModel& node, const std::vector<int>& used, const Loop& loop,
                       int rounds) {
  const int cores = static_cast<int>(used.size());
  std::vector<double> ref(static_cast<std::size_t>(loop.n)), y(ref.size());

  std::vector<double> alone;
  for (int c : used) alone.push_back(standalone(node, loop, c, ref));
  double inverse = 0.0;
  for (double t : alone) inverse += 1.0 / t;
  const double ideal = 1.0 / inverse;

  tsar::Region adaptive(std::string("bench-cpu-") + loop.name + "-adaptive", "adaptive");
  tsar::Region chunk_dynamic(std::string("bench-cpu-") + loop.name + "-chunk-dynamic",
                             "chunk-dynamic");
  const auto on_tsar = [&](tsar::Region& region) {
    region.parallel_for(
        loop.n, [&](const tsar::Chunk& c) { run_range(loop, c.begin(), c.end(), y.data()); });
  };
  const std::vector<std::pair<const char*, std::function<void()>>> variants = {
      {"omp_static",
       [&] {
#pragma omp parallel for schedule(static) num_threads(cores)
         for (std::int64_t i = 0; i < loop.n; ++i)
           y[static_cast<std::size_t>(i)] = kernel(i, reps_of(loop, i));
       }},
      {"omp_dynamic",
       [&] {
#pragma omp parallel for schedule(dynamic) num_threads(cores)
         for (std::int64_t i = 0; i < loop.n; ++i)
           y[static_cast<std::size_t>(i)] = kernel(i, reps_of(loop, i));
       }},
      {"tsar_adaptive", [&] { on_tsar(adaptive); }},
      {"tsar_chunk_dynamic", [&] { on_tsar(chunk_dynamic); }},
  };

  std::vector<std::vector<double>> times(variants.size());
  const int warmup = 3;
  for (int round = 0; round < warmup + rounds; ++round) {
    for (std::size_t v = 0; v < variants.size(); ++v) {
      std::fill(y.begin(), y.end(), 0.0);
      quiet_pause();
      const double t = timed(variants[v].second);
      if (y != ref)
        throw std::runtime_error(std::string(variants[v].first) + " computed a wrong result");
      if (round >= warmup) times[v].push_back(t);
    }
  }

  nlohmann::json out;
  std::vector<double> med;
  for (std::size_t v = 0; v < variants.size(); ++v) {
    med.push_back(median(times[v]));
    out[std::string(variants[v].first) + "_s"] = med.back();
  }
  out["ideal_s"] = ideal;
  out["standalone_s"] = alone;
  out["adaptive_split"] = adaptive.split();
  out["adaptive_over_static"] = med[0] / med[2];
  out["adaptive_over_dynamic"] = med[1] / med[2];
  out["adaptive_vs_ideal"] = med[2] / ideal;
  out["chunk_dynamic_vs_ideal"] = med[3] / ideal;
  out["static_vs_ideal"] = med[0] / ideal;

  std::printf("%s loop (%lld iterations): ideal %.1f ms (cores alone:", loop.name,
              static_cast<long long>(loop.n), ideal * 1e3);
  for (double t : alone) std::printf(" %.1f", t * 1e3);
  std::printf(" ms)\n");
  for (std::size_t v = 0; v < variants.size(); ++v)
    std::printf("  %-20s %8.1f ms  (%.2fx ideal)\n", variants[v].first, med[v] * 1e3,
                med[v] / ideal);
  std::printf("  adaptive split:");
  for (auto s : adaptive.split()) std::printf(" %lld", static_cast<long long>(s));
  std::printf("\n");
  return out;
}

bool parse(int argc, char** argv, Options& o) {
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    const bool has_value = a + 1 < argc;
    if (arg == "--cores" && has_value)
      o.cores = argv[++a];
    else if (arg == "--noise-core" && has_value)
      o.noise_core = std::atoi(argv[++a]);
    else if (arg == "--share" && has_value)
      o.share = std::atof(argv[++a]);
    else if (arg == "--no-noise")
      o.noise = false;
    else if (arg == "--rounds" && has_value)
      o.rounds = std::max(1, std::atoi(argv[++a]));
    else if (arg == "--iterations" && has_value)
      o.iterations = std::max<std::int64_t>(16, std::atoll(argv[++a]));
    else if (arg == "--us-per-iteration" && has_value)
      o.us_per_iteration = std::max(0.1, std::atof(argv[++a]));
    else
      return false;
  }
  return o.share > 0.0 && o.share < 1.0;
}

}  // namespace

int main(int argc, char** argv) {
  if (symmer::print_version_if_asked(argc, argv, "tsar-bench-cpu")) return 0;
  Options opt;
  if (!parse(argc, argv, opt)) {
    std::fprintf(stderr,
                 "usage: %s [--cores LIST] [--noise-core C] [--share F in (0,1)] [--no-noise] "
                 "[--rounds R] [--iterations N] [--us-per-iteration U]\n",
                 argv[0]);
    return 2;
  }
  try {
    const NodeModel node = NodeModel::from_this_node();
    std::vector<int> used;
    if (opt.cores.empty()) {
      for (int c = 0; c < static_cast<int>(node.cores().size()); ++c) used.push_back(c);
    } else {
      used = symmer::topology::parse_core_selection(opt.cores, node).value();
    }
    const int cores = static_cast<int>(used.size());
    if (opt.noise_core < 0) opt.noise_core = used.back();
    if (std::find(used.begin(), used.end(), opt.noise_core) == used.end())
      throw std::runtime_error("--noise-core " + std::to_string(opt.noise_core) +
                               " is not one of the cores used");
    std::string devices;
    for (int c : used) devices += (devices.empty() ? "cpu:" : ",cpu:") + std::to_string(c);
    tsar::set_devices(devices);
    // OpenMP thread t on the t-th core used, as TSAR's device t (libgomp keeps its threads).
#pragma omp parallel num_threads(cores)
    node.bind_current_thread(used[static_cast<std::size_t>(omp_get_thread_num())]);

    const int reps =
        std::max(1, static_cast<int>(opt.us_per_iteration * steps_per_us(node, used.front())));
    std::unique_ptr<tsar::bench::NoiseProcess> noise;
    if (opt.noise && cores > 1) {
      noise = std::make_unique<tsar::bench::NoiseProcess>(
          tsar::bench::noise_program_path(), "L:" + std::to_string(opt.noise_core), opt.share);
      std::printf("symmer-noise takes %.0f%% of core %d\n", opt.share * 100, opt.noise_core);
    } else {
      std::printf("no noise%s\n", cores > 1 ? "" : " (one core only)");
    }
    const Loop regular{"regular", false, opt.iterations, reps};
    const Loop imbalanced{"imbalanced", true, opt.iterations, reps};
    nlohmann::json out{{"bench", "tsar-bench-cpu"},
                       {"cores", used},
                       {"iterations", opt.iterations},
                       {"us_per_iteration", opt.us_per_iteration}};
    out["regular"] = measure(node, used, regular, opt.rounds);
    out["imbalanced"] = measure(node, used, imbalanced, opt.rounds);
    if (noise) {
      const std::string report = noise->stop();
      out["noise"] = {{"core", opt.noise_core}, {"share", opt.share}};
      if (!report.empty()) out["noise"]["report"] = nlohmann::json::parse(report, nullptr, false);
    }
    for (const char* key : {"adaptive_over_static", "adaptive_over_dynamic", "adaptive_vs_ideal"})
      out[key] = out["regular"][key];
    std::printf("%s\n", out.dump().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tsar-bench-cpu: %s\n", e.what());
    return 1;
  }
  return 0;
}
