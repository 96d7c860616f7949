// SPDX-License-Identifier: BSD-3-Clause
// tsar-bench-overhead: what TSAR itself costs, measured against an empty loop body.
//   pass_overhead_us   adaptive schedule: one pass of an empty body, divided by the devices
//                      that ran rows in it (pass_devices_ran, a mean over the timed passes:
//                      the caller runs the rows of workers that start later than its own part
//                      took, so an empty pass may be the caller's alone) (goal: under 1 us per
//                      device)
//   chunk_dispatch_ns  chunk:1 schedule: the cost of one chunk dispatch on one device while
//                      every device takes chunks (goal: under 100 ns)
// In the same run, for scale: a single-device pass, the thesis-style pass from an OpenMP team,
// OpenMP's own empty static parallel-for and its dynamic,1 dispatch. And the fixed cost of a
// pass with an accelerator (the host's OpenMP device used as one: its own allocations, real
// copies) beside the CPU cores, a buffer staged in and out of it:
//   accel_pass_us       the cores and the accelerator sharing the pass
//   accel_only_pass_us  the accelerator with every iteration (the cores' workers stay asleep)
// each with the planner's part of it (schedule_us: planning, learning, the copy engine's
// exchange). And a pass over every core of a loop whose length changes each pass, a few
// microseconds of work a core, against OpenMP's static schedule over the same body:
//   cores_pass_us, cores_pass_omp_static_us, cores_pass_work_us (the work alone)
// Usage: tsar-bench-overhead [--passes N] [--chunks N] [--only accel|accel-only|accel-idle]
//   (TSAR_DEVICES picks the devices). --only runs one accelerator phase alone, so a profiler
//   (valgrind --tool=callgrind) counts the instructions of that kind of pass and no other.
//   accel-idle: passes all the accelerator's beside cores that ran a first pass, measured far
//   slower (accel-only's cores are never measured: their times follow the accelerator's).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "symmer_version.hpp"
#include "tsar/tsar.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Median over `reps` repetitions of f() (which returns seconds per operation).
template <class F>
double median_of(int reps, F&& f) {
  std::vector<double> v;
  for (int r = 0; r < reps; ++r) v.push_back(f());
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

inline void opaque() { asm volatile("" ::: "memory"); }

double tsar_pass_seconds(tsar::Region& region, std::int64_t n, int passes) {
  const auto empty = [](const tsar::Chunk&) { opaque(); };
  for (int p = 0; p < passes / 10; ++p) region.parallel_for(n, empty);  // warm-up
  return median_of(5, [&] {
    const auto t0 = Clock::now();
    for (int p = 0; p < passes; ++p) region.parallel_for(n, empty);
    return seconds_since(t0) / passes;
  });
}

/// The mean of the planner's part (schedule_seconds) of the region's passes from `first` on,
/// of those still kept (the last 4096).
double mean_schedule_seconds(const tsar::Region& region, std::int64_t first) {
  const std::int64_t last = region.passes();
  const std::int64_t from = std::max(first, last - 4096);
  double sum = 0.0;
  for (std::int64_t p = from; p < last; ++p) sum += region.pass_stats(p).pass.schedule_seconds;
  return sum / static_cast<double>(std::max<std::int64_t>(1, last - from));
}

/// The mean number of devices that ran rows in the region's last passes (up to 4096 kept).
double devices_that_ran(const tsar::Region& region) {
  const std::int64_t last = region.passes();
  const std::int64_t from = std::max<std::int64_t>(0, last - 4096);
  double ran = 0.0;
  for (std::int64_t p = from; p < last; ++p)
    for (const auto& d : region.pass_stats(p).devices) ran += d.iterations > 0 ? 1.0 : 0.0;
  return last > from ? ran / static_cast<double>(last - from) : 0.0;
}

double omp_team_pass_seconds(tsar::Region& region, std::int64_t n, int passes) {
  tsar_region* r = region.handle();
  const int devices = region.num_devices();
  const auto run = [&] {
#pragma omp parallel num_threads(devices)
    do {
      std::int64_t b = 0, e = 0;
      tsar_next(r, n, &b, &e);
      for (std::int64_t i = b; i < e; ++i) opaque();
    } while (tsar_loop(r));
  };
  for (int p = 0; p < passes / 10; ++p) run();
  return median_of(5, [&] {
    const auto t0 = Clock::now();
    for (int p = 0; p < passes; ++p) run();
    return seconds_since(t0) / passes;
  });
}

double omp_static_pass_seconds(int threads, std::int64_t n, int passes) {
  const auto run = [&] {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t i = 0; i < n; ++i) opaque();
  };
  for (int p = 0; p < passes / 10; ++p) run();
  return median_of(5, [&] {
    const auto t0 = Clock::now();
    for (int p = 0; p < passes; ++p) run();
    return seconds_since(t0) / passes;
  });
}

double omp_dynamic_dispatch_seconds(int threads, std::int64_t n) {
  return median_of(5, [&] {
    const auto t0 = Clock::now();
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (std::int64_t i = 0; i < n; ++i) opaque();
    return seconds_since(t0) * threads / static_cast<double>(n);
  });
}

/// Passes over every core of a loop whose length changes from pass to pass, as a triangular
/// loop's do (Gram-Schmidt's 640): kCoreSpins empty steps an iteration, kRowsPerCore
/// iterations a core, a few microseconds of work each. What TSAR's pass costs beyond that work
/// on every core -- planning, learning, waking, the barrier -- against OpenMP's static schedule
/// over the same body and lengths.
struct CoresPasses {
  double tsar = 0.0;      ///< TSAR's median seconds a pass
  double omp = 0.0;       ///< OpenMP static's
  double work = 0.0;      ///< one core running its share alone (the pass's work)
  double schedule = 0.0;  ///< the planner's part of TSAR's passes (schedule_seconds)
};

constexpr std::int64_t kCoreSpins = 64;
constexpr std::int64_t kRowsPerCore = 64;

inline void spin_rows(std::int64_t begin, std::int64_t end) {
  for (std::int64_t i = begin; i < end; ++i)
    for (std::int64_t k = 0; k < kCoreSpins; ++k) opaque();
}

CoresPasses cores_passes(tsar::Region& region, int passes) {
  const int cores = region.num_devices();
  const std::int64_t longest = kRowsPerCore * cores;
  // Lengths from longest down by up to one row a core, so the split's sizes change every pass.
  const auto length = [&](int p) { return longest - p % cores; };
  const auto body = [](const tsar::Chunk& c) { spin_rows(c.begin(), c.end()); };
  const auto tsar_run = [&] {
    const auto t0 = Clock::now();
    for (int p = 0; p < passes; ++p) region.parallel_for(length(p), body);
    return seconds_since(t0) / passes;
  };
  const auto omp_run = [&] {
    const auto t0 = Clock::now();
    for (int p = 0; p < passes; ++p) {
      const std::int64_t n = length(p);
#pragma omp parallel for schedule(static) num_threads(cores)
      for (std::int64_t i = 0; i < n; ++i) spin_rows(i, i + 1);
    }
    return seconds_since(t0) / passes;
  };
  // Alternated, so both see the same state of the node, with a pause after each block: an
  // idle libgomp team spins for milliseconds after its region (GOMP_SPINCOUNT), and TSAR's
  // workers pinned under those spinning threads would start late the whole next block (their
  // rows then run on the leader), as TSAR's idle workers spin 2 ms before they sleep.
  const auto settle = [] { std::this_thread::sleep_for(std::chrono::milliseconds(100)); };
  tsar_run();  // warm-up: the split settles, the pool and OpenMP's team start
  settle();
  omp_run();
  settle();
  CoresPasses out;
  const std::int64_t first = region.passes();
  std::vector<double> t, o;
  for (int r = 0; r < 5; ++r) {
    t.push_back(tsar_run());
    settle();
    o.push_back(omp_run());
    settle();
  }
  std::sort(t.begin(), t.end());
  std::sort(o.begin(), o.end());
  out.tsar = t[2];
  out.omp = o[2];
  out.work = median_of(5, [&] {
    const auto t0 = Clock::now();
    for (int p = 0; p < passes; ++p) spin_rows(0, length(p) / cores);
    return seconds_since(t0) / passes;
  });
  out.schedule = mean_schedule_seconds(region, first);
  return out;
}

/// A pass with an accelerator: its median seconds, the mean of the planner's part of the timed
/// passes, and how many passes the region ran in all (warm-up included).
struct AccelPasses {
  double seconds = 0.0;
  double schedule_seconds = 0.0;
  std::int64_t passes = 0;
};

/// Passes of n iterations over a registered buffer on `devices` (given times per iteration:
/// cores `core_tpi`, the accelerator -- the last device -- `accel_tpi`). With `core_spins` > 0
/// the cores run each iteration that many empty steps more, and one pass of a few rows each
/// first measures them: the passes then are all the accelerator's beside measured cores, as
/// when a loop's cores proved slower than its GPU.
AccelPasses accel_passes(const std::string& devices, double core_tpi, double accel_tpi,
                         std::int64_t n, int passes, std::int64_t core_spins = 0) {
  tsar::set_devices(devices);
  tsar::RegionOptions options;
  options.name = "overhead-accelerator";
  options.schedule = "adaptive";
  {
    tsar::Region probe(options);
    options.time_per_iteration.assign(static_cast<std::size_t>(probe.num_devices()), core_tpi);
    options.time_per_iteration.back() = accel_tpi;
  }
  tsar::Region region(options);
  std::vector<double> data(static_cast<std::size_t>(n), 1.0);
  auto m = region.map(data.data(), data.size(), tsar::Assoc::rows, TSAR_MEM_INOUT);
  const int accelerator = region.num_devices() - 1;
  const auto body = [&](const tsar::Chunk& c) {
    double* p = c.ptr(m);
    const std::int64_t spins = c.worker() == accelerator ? 0 : core_spins;
    for (auto i = c.begin(); i < c.end(); ++i) {
      for (std::int64_t k = 0; k < spins; ++k) opaque();
      p[i] += 1.0;
    }
  };
  if (core_spins > 0) region.parallel_for(16 * region.num_devices(), body);
  for (int p = 0; p < passes / 10; ++p) region.parallel_for(n, body);
  const std::int64_t first = region.passes();
  AccelPasses out;
  out.seconds = median_of(5, [&] {
    const auto t0 = Clock::now();
    for (int p = 0; p < passes; ++p) region.parallel_for(n, body);
    return seconds_since(t0) / passes;
  });
  out.schedule_seconds = mean_schedule_seconds(region, first);
  out.passes = region.passes();
  return out;
}

/// The accelerator beside the CPU devices of `region`, on its last single-core CPU device's
/// core, for TSAR_DEVICES; empty without such a device.
std::string accelerator_devices(const tsar::Region& region) {
  std::string cores;
  int last_core = -1;
  for (int d = 0; d < region.num_devices(); ++d) {
    const auto info = region.device(d);
    if (info.kind != TSAR_DEVICE_CPU || info.num_cores != 1) continue;
    if (last_core >= 0)
      cores += (cores.empty() ? "" : ",") + std::string("cpu:") + std::to_string(last_core);
    last_core = info.id;
  }
  if (last_core < 0) return {};
  return (cores.empty() ? "" : cores + ",") + "omphost:" + std::to_string(last_core);
}

double tsar_dispatch_seconds(tsar::Region& region, std::int64_t n) {
  const auto empty = [](const tsar::Chunk&) { opaque(); };
  region.parallel_for(n, empty);
  const int devices = region.num_devices();
  return median_of(5, [&] {
    const auto t0 = Clock::now();
    region.parallel_for(n, empty);
    return seconds_since(t0) * devices / static_cast<double>(n);
  });
}

}  // namespace

int main(int argc, char** argv) {
  if (symmer::print_version_if_asked(argc, argv, "tsar-bench-overhead")) return 0;
  int passes = 20000;
  std::int64_t chunks = 1 << 21;
  std::string only;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--passes") == 0 && a + 1 < argc) {
      passes = std::max(10, std::atoi(argv[++a]));
    } else if (std::strcmp(argv[a], "--chunks") == 0 && a + 1 < argc) {
      chunks = std::max<std::int64_t>(1000, std::atoll(argv[++a]));
    } else if (std::strcmp(argv[a], "--only") == 0 && a + 1 < argc &&
               (std::strcmp(argv[a + 1], "accel") == 0 ||
                std::strcmp(argv[a + 1], "accel-only") == 0 ||
                std::strcmp(argv[a + 1], "accel-idle") == 0)) {
      only = argv[++a];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--passes N] [--chunks N] [--only accel|accel-only|accel-idle]\n",
                   argv[0]);
      return 2;
    }
  }
  try {
    tsar::Region adaptive("overhead-adaptive", "adaptive");
    tsar::Region chunked("overhead-chunk", "chunk:1");
    const int devices = adaptive.num_devices();
    std::vector<std::string> keys;
    for (int d = 0; d < devices; ++d) keys.push_back(adaptive.device(d).key);
    const std::int64_t n = 1024 * devices;
    const std::string accel_devices = accelerator_devices(adaptive);
    const int accel_count = std::max(10, passes / 10);
    // The cores beside the accelerator get a share, or the accelerator gets every iteration.
    const auto shared = [&] { return accel_passes(accel_devices, 1.0, 0.25, n, accel_count); };
    const auto alone = [&] { return accel_passes(accel_devices, 1.0, 1e-6, n, accel_count); };
    // Cores measured 8n times slower per iteration than the accelerator: a share below half a
    // row each, so none.
    const auto idle = [&] { return accel_passes(accel_devices, 1.0, 1.0, n, accel_count, 8 * n); };

    if (!only.empty()) {
      if (accel_devices.empty()) throw tsar::Error(TSAR_ERR_DEVICES, "no single-core CPU device");
      const bool with = only == "accel", measured = only == "accel-idle";
      const AccelPasses a = with ? shared() : measured ? idle() : alone();
      const std::string key = with       ? "accel_pass"
                              : measured ? "accel_idle_pass"
                                         : "accel_only_pass";
      std::printf("devices: %d, %lld passes\n", devices, static_cast<long long>(a.passes));
      std::printf("%s %8.3f us  (planner %.3f us)\n",
                  with       ? "pass with an accelerator"
                  : measured ? "pass all the accelerator's beside measured cores"
                             : "pass all the accelerator's",
                  a.seconds * 1e6, a.schedule_seconds * 1e6);
      const nlohmann::json out{{"bench", "tsar-bench-overhead"},
                               {"devices", keys},
                               {"accelerator_devices", accel_devices},
                               {key + "_us", a.seconds * 1e6},
                               {key + "_schedule_us", a.schedule_seconds * 1e6},
                               {"region_passes", a.passes}};
      std::printf("%s\n", out.dump().c_str());
      return 0;
    }

    const double pass = tsar_pass_seconds(adaptive, n, passes);
    const double ran = devices_that_ran(adaptive);
    const double pass_team = omp_team_pass_seconds(adaptive, n, passes);
    const double omp_pass = omp_static_pass_seconds(devices, n, passes);
    // The CPU devices alone: on a GPU node the default list has the GPUs too, whose priors
    // would give them rows this host-only body runs on their control cores.
    tsar::Region every_core("overhead-cores", "adaptive", TSAR_DEVICE_CPU);
    const CoresPasses on_cores = cores_passes(every_core, std::max(10, passes / 10));
    const double dispatch = tsar_dispatch_seconds(chunked, chunks);
    const double omp_dispatch = omp_dynamic_dispatch_seconds(devices, chunks);
    AccelPasses with{}, all{};
    if (!accel_devices.empty()) {
      with = shared();
      all = alone();
    }

    tsar::set_devices("cpu:0");
    tsar::Region adaptive1("overhead-adaptive-1", "adaptive");
    tsar::Region chunked1("overhead-chunk-1", "chunk:1");
    const double pass1 = tsar_pass_seconds(adaptive1, 1024, passes);
    const double dispatch1 = tsar_dispatch_seconds(chunked1, chunks / 4);

    std::printf("devices: %d\n", devices);
    std::printf(
        "adaptive pass, TSAR pool        %8.3f us  (%.3f us per device of the %.1f that ran "
        "rows)\n",
        pass * 1e6, pass * 1e6 / std::max(1.0, ran), ran);
    std::printf("adaptive pass, one device       %8.3f us\n", pass1 * 1e6);
    std::printf("adaptive pass, OpenMP team      %8.3f us  (tsar_next/tsar_loop in omp parallel)\n",
                pass_team * 1e6);
    std::printf("OpenMP static parallel for      %8.3f us\n", omp_pass * 1e6);
    std::printf(
        "pass over every core            %8.3f us  (OpenMP static %.3f us, work %.3f us, "
        "planner %.3f us)\n",
        on_cores.tsar * 1e6, on_cores.omp * 1e6, on_cores.work * 1e6, on_cores.schedule * 1e6);
    std::printf("chunk dispatch, all devices     %8.1f ns per chunk per device\n", dispatch * 1e9);
    std::printf("chunk dispatch, one device      %8.1f ns\n", dispatch1 * 1e9);
    std::printf("OpenMP dynamic,1 dispatch       %8.1f ns per iteration per thread\n",
                omp_dispatch * 1e9);
    std::printf("pass with an accelerator        %8.3f us  (planner %.3f us)\n", with.seconds * 1e6,
                with.schedule_seconds * 1e6);
    std::printf("pass all the accelerator's      %8.3f us  (planner %.3f us)\n", all.seconds * 1e6,
                all.schedule_seconds * 1e6);

    const nlohmann::json out{{"bench", "tsar-bench-overhead"},
                             {"devices", keys},
                             {"pass_overhead_us", pass * 1e6 / std::max(1.0, ran)},
                             {"pass_devices_ran", ran},
                             {"pass_us", pass * 1e6},
                             {"pass_one_device_us", pass1 * 1e6},
                             {"pass_omp_team_us", pass_team * 1e6},
                             {"omp_static_pass_us", omp_pass * 1e6},
                             {"cores_pass_us", on_cores.tsar * 1e6},
                             {"cores_pass_omp_static_us", on_cores.omp * 1e6},
                             {"cores_pass_work_us", on_cores.work * 1e6},
                             {"cores_pass_schedule_us", on_cores.schedule * 1e6},
                             {"cores_pass_over_omp_static", on_cores.tsar / on_cores.omp},
                             {"chunk_dispatch_ns", dispatch * 1e9},
                             {"chunk_dispatch_one_device_ns", dispatch1 * 1e9},
                             {"omp_dynamic1_dispatch_ns", omp_dispatch * 1e9},
                             {"accel_pass_us", with.seconds * 1e6},
                             {"accel_pass_schedule_us", with.schedule_seconds * 1e6},
                             {"accel_only_pass_us", all.seconds * 1e6},
                             {"accel_only_pass_schedule_us", all.schedule_seconds * 1e6},
                             {"goal_pass_overhead_us", 1.0},
                             {"goal_chunk_dispatch_ns", 100.0}};
    std::printf("%s\n", out.dump().c_str());
  } catch (const tsar::Error& e) {
    std::fprintf(stderr, "tsar-bench-overhead: %s\n", e.what());
    return 1;
  }
  return 0;
}
