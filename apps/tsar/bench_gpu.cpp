// SPDX-License-Identifier: BSD-3-Clause
// tsar-bench-gpu: GEMM, k-means, a Jacobi/Helmholtz stencil, a GPU-averse gather, and time steps
// of several dependent loops (BiCGStab, a stencil with a residual loop, a 3-field wave: the
// suite's kernels, a region per loop, checked against their serial references), each run on
// the CPU alone (every core), on each GPU alone, and co-scheduled (the default device list:
// the cores less one control core per GPU, plus the GPUs), through OpenMP target devices and,
// where built and present, CUDA devices. Per kernel it prints
//   T per pass of each configuration (accelerators' copies included) and the co-execution
//   efficiency E = (1 / sum_j 1/T_j) / T_co (docs/architecture.md), T_j each device's standalone
//   time: the CPU's under its best schedule, each GPU's with its whole loop as one range; for the
//   first schedule (adaptive): bytes moved per pass per device against the bound "needed inputs
//   (halo included) + own outputs", and the learned split; for the time-step kernels, under each
//   schedule of one range per device: the bytes a pass moved and those its loops' splits require
//   (traffic_model.hpp; JSON bytes_per_pass, bytes_minimum_per_pass), and of those the bytes
//   devices copied straight into each other's memory (bytes_peer_per_pass: halo rows GPU to GPU),
//   and the iterations accelerators took over from the cores' ranges once their own was done
//   (stolen_iterations_per_pass, per device stolen_per_pass), and how many cores per pass the
//   caller stood in for, their jobs taken back before they started (late_per_pass, per device
//   late_per_pass: tsar_device_stats.late); and the E of the best single device alone against
//   the same ideal (JSON single_device; summary efficiency_mean_single_device): what never
//   co-scheduling reaches, and the bound where no split pays for its fixed costs.
// Co-scheduling runs under each schedule of --schedules (adaptive, team, chunk-dynamic,
// hguided): adaptive is TSAR's default; "team" is adaptive with the CPU cores as one device
// (team:all) whose cores share its range dynamically (OpenMP inside the body), the thesis's
// CPU device; the chunk schedules absorb CPU cores whose speed changes from pass to pass (as
// a VM's do). The CPU alone runs under the same schedules ("team": one team of every core). Timed
// passes follow warm-up passes (which let the split settle), except for the GPU-averse loop: there
// the whole run from a fresh region is timed, since the point is what discovering that the GPU does
// not pay (back-off) costs; its ratio to the CPU alone is the median over paired runs. A run's
// time includes bringing resident outputs (Jacobi's) back to the host at its end. Any number of
// GPUs: each is timed alone, all of them co-schedule with the CPU cores in one region, and E
// counts every device. Results are compared with the CPU-alone run's (the unit tests compare
// TSAR with serial loops). One JSON line at the end holds every figure. Usage: tsar-bench-gpu
// [--scale quick|full] [--kernels LIST] [--backend omp|cuda|all]
//                       [--accelerators LIST] [--cpus LIST] [--passes N] [--schedules LIST]
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "bench_gpu_kernels.hpp"
#include "tsar/tsar.hpp"
#if TSAR_BENCH_CUDA
#include "bench_gpu_cuda.hpp"
#include "symmer_version.hpp"
#endif

namespace {

using namespace tsar_bench_gpu;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

struct Options {
  std::string scale = "full";
  std::string kernels = "gemm,kmeans,jacobi,averse,bicgstab,residual,wave";
  std::string backend = "all";
  std::string accelerators;  // "": every GPU of the backend's kind
  std::string cpus;          // "": the default list's CPU devices (GPU control cores reserved)
  std::string schedules = "adaptive,team,chunk-dynamic,hguided";
  int passes = 0;  // 0: per kernel
};

struct Plan {
  std::unique_ptr<GpuKernel> kernel;
  int warmup;  ///< untimed passes first (the split settles in about three)
  int passes;
  int cpu_passes;  ///< GEMM's CPU passes take seconds: fewer (its check allows it)
  int cpu_warmup;
  bool averse;
  int pairs = 1;  ///< averse: paired CPU-alone / co-scheduled runs behind the ratio
};

Plan make_plan(const std::string& name, bool quick) {
  if (name == "gemm")
    return {quick ? make_gemm(96) : make_gemm(4096), 4, quick ? 3 : 8, 2, 1, false};
  if (name == "kmeans")
    return {quick ? make_kmeans(20000, 8, 8) : make_kmeans(2'000'000, 16, 32),
            4,
            quick ? 3 : 12,
            quick ? 3 : 12,
            4,
            false};
  if (name == "jacobi")
    return {quick ? make_jacobi(192, 64) : make_jacobi(8192, 4096),
            4,
            quick ? 4 : 30,
            quick ? 4 : 30,
            4,
            false};
  if (name == "averse")  // the CPU alone and co-scheduled: the same passes from a fresh start
    return {quick ? make_averse(4096, 1 << 16) : make_averse(1 << 17, 1 << 25),
            0,
            quick ? 8 : 800,
            quick ? 8 : 800,
            0,
            true,
            quick ? 1 : 5};
  if (auto suite = make_suite_kernel(name, quick))  // time steps: a pass is one run
    return {std::move(suite), 3, quick ? 3 : 10, quick ? 3 : 10, 2, false};
  throw std::runtime_error("unknown kernel '" + name +
                           "' (gemm, kmeans, jacobi, averse, bicgstab, residual, wave)");
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

/// One configuration's run of a kernel.
struct Result {
  std::string devices;
  double per_pass = 0.0;  ///< mean seconds of a timed pass
  double total = 0.0;     ///< seconds of all timed passes and the final copy back
  double finish = 0.0;    ///< seconds of the final copy back of resident outputs
  double fastest = INFINITY, slowest = 0.0;
  double tsar_pass = 0.0;  ///< mean of TSAR's own pass time (split to last arrival)
  /// Mean seconds of a timed pass outside TSAR's own pass times: entering and leaving the
  /// calls, and the program's serial steps between a time step's loops.
  double outside = 0.0;
  /// Mean seconds of a timed pass in each loop's parallel_for call; the pass's remainder is
  /// `serial`, the program's own steps between loops (and the final copy back). A kernel of
  /// one loop: its whole pass, serial 0.
  std::vector<double> loop_seconds;
  double serial = 0.0;
  std::vector<std::string> keys;
  std::vector<std::int64_t> iterations;  ///< last pass
  std::vector<int> retired;  ///< loops whose region retired the device (its core ran its rows)
  std::size_t loops = 0;
  std::vector<double> to, from;  ///< mean bytes per timed pass
  std::vector<double> peer;      ///< of `from`, copied straight into another device's memory
  std::vector<double> stolen;    ///< iterations taken over from the cores' ranges, per pass
  std::vector<double> late;      ///< (loop) passes whose job the caller took back, per pass
  std::vector<double> bound;     ///< mean bound per timed pass
  int bound_violations = 0;      ///< (device, pass) pairs that moved more than the bound
  double moved = 0.0;            ///< mean bytes per timed pass, every device and loop
  double minimum = -1.0;         ///< mean bytes its splits required (-1: not modelled)
  std::vector<double> sample;
  std::string check;  ///< the first timed pass whose result differed from the serial reference
};

/// `ranges`: the schedule gives each device one range per pass, in device order, so the bytes
/// each moves can be checked against its range's bound (kernels of one loop).
Result run(GpuKernel& k, const std::string& devices, unsigned kinds, Backend backend,
           const std::string& schedule, int warmup, int passes, bool ranges) {
  tsar::set_devices(devices);
  const auto loops = k.loops();
  ranges = ranges && loops.size() == 1;
  std::vector<std::unique_ptr<tsar::Region>> owned;
  std::vector<tsar::Region*> regions;
  for (const auto& loop : loops) {
    tsar::RegionOptions options;
    options.name = std::string("bench-gpu-") + (loops.size() == 1 ? k.name() : loop.c_str());
    options.schedule = schedule;
    options.device_kinds = kinds;
    owned.push_back(std::make_unique<tsar::Region>(options));
    regions.push_back(owned.back().get());
  }
  const int n = regions.front()->num_devices();
  Result r;
  r.devices = devices;
  for (int w = 0; w < n; ++w) r.keys.emplace_back(regions.front()->device(w).key);
  r.to.assign(static_cast<std::size_t>(n), 0.0);
  r.from = r.bound = r.peer = r.stolen = r.late = r.to;
  r.iterations.assign(static_cast<std::size_t>(n), 0);
  r.retired.assign(static_cast<std::size_t>(n), 0);
  k.reset();
  k.attach(regions);
  for (int p = 0; p < warmup; ++p) {
    k.pass(regions, backend);
    k.after_pass();
  }
  std::vector<std::int64_t> seen(regions.size());  // passes each region had recorded
  for (std::size_t l = 0; l < regions.size(); ++l) seen[l] = regions[l]->passes();
  double minimum = 0.0;
  for (int p = 0; p < passes; ++p) {
    const auto t0 = Clock::now();
    k.pass(regions, backend);
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    const auto loop_seconds = k.loop_seconds();
    r.loop_seconds.resize(loop_seconds.size(), 0.0);
    for (std::size_t l = 0; l < loop_seconds.size(); ++l)
      r.loop_seconds[l] += loop_seconds[l] / passes;
    const std::int64_t required = k.minimum_bytes();
    minimum =
        minimum >= 0.0 && required >= 0 ? minimum + static_cast<double>(required) / passes : -1.0;
    r.total += seconds;
    r.fastest = std::min(r.fastest, seconds);
    r.slowest = std::max(r.slowest, seconds);
    // Every (loop) pass this pass ran, in every region.
    std::vector<double> moved(static_cast<std::size_t>(n), 0.0);
    for (std::size_t l = 0; l < regions.size(); ++l) {
      for (std::int64_t q = seen[l]; q < regions[l]->passes(); ++q) {
        const auto stats = regions[l]->pass_stats(q);
        r.tsar_pass += stats.pass.seconds / passes;
        std::int64_t begin = 0;  // adaptive ranges lie in worker order
        for (int w = 0; w < n; ++w) {
          const auto& d = stats.devices[static_cast<std::size_t>(w)];
          // A thief's own range, and as many rows again as it stole (its pieces lie elsewhere,
          // each with its own halo: bytes over this bound are not counted for it).
          const std::int64_t end = begin + d.iterations - d.stolen_iterations;
          const double bound =
              ranges && d.iterations > 0 && d.kind != TSAR_DEVICE_CPU
                  ? static_cast<double>(k.bound_bytes(begin, end)) +
                        (d.stolen_iterations > 0
                             ? static_cast<double>(k.bound_bytes(0, d.stolen_iterations))
                             : 0.0)
                  : 0.0;
          const double bytes = static_cast<double>(d.bytes_to_device + d.bytes_from_device);
          if (ranges && bytes > bound && d.stolen_iterations == 0) ++r.bound_violations;
          r.moved += bytes / passes;
          r.to[static_cast<std::size_t>(w)] += static_cast<double>(d.bytes_to_device) / passes;
          r.from[static_cast<std::size_t>(w)] += static_cast<double>(d.bytes_from_device) / passes;
          r.peer[static_cast<std::size_t>(w)] += static_cast<double>(d.bytes_peer) / passes;
          r.stolen[static_cast<std::size_t>(w)] +=
              static_cast<double>(d.stolen_iterations) / passes;
          r.late[static_cast<std::size_t>(w)] += static_cast<double>(d.late) / passes;
          r.bound[static_cast<std::size_t>(w)] += bound / passes;
          begin = end;
        }
      }
      seen[l] = regions[l]->passes();
    }
    k.after_pass();
    if (r.check.empty()) r.check = k.check();
  }
  r.minimum = passes > 0 ? minimum : -1.0;
  // The results reach the host (outputs the devices kept resident): part of the run's time.
  const auto t_finish = Clock::now();
  k.finish();
  r.finish = std::chrono::duration<double>(Clock::now() - t_finish).count();
  r.total += r.finish;
  r.per_pass = r.total / std::max(1, passes);
  r.outside = (r.total - r.finish) / std::max(1, passes) - r.tsar_pass;
  if (r.loop_seconds.empty()) r.loop_seconds = {r.per_pass};
  r.serial = std::max(
      0.0, r.per_pass - std::accumulate(r.loop_seconds.begin(), r.loop_seconds.end(), 0.0));
  // The last pass's split, every loop's iterations together; the loops that retired a device
  // (there its worker ran its iterations on the core that drove it).
  r.loops = regions.size();
  for (tsar::Region* region : regions) {
    const auto stats = region->pass_stats();
    for (int w = 0; w < n; ++w) {
      r.iterations[static_cast<std::size_t>(w)] +=
          stats.devices[static_cast<std::size_t>(w)].iterations;
      r.retired[static_cast<std::size_t>(w)] += region->device(w).retired != 0 ? 1 : 0;
    }
  }
  r.sample = k.sample();
  k.detach();
  return r;
}

double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return INFINITY;
  double scale = 1e-300, diff = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, std::fabs(b[i]));
    diff = std::max(diff, std::isfinite(a[i]) ? std::fabs(a[i] - b[i]) : INFINITY);
  }
  return diff / scale;
}

/// The co-scheduled time a perfect split of each loop reaches: the program's serial steps plus,
/// per loop, 1 / sum_j 1/T_j over the standalone times of that loop -- the CPU's under its best
/// schedule, each accelerator's. Serial steps cannot be split, so they are not divided among
/// the devices (Amdahl). A kernel of one loop: 1 / sum_j 1/T_j of whole passes.
struct Ideal {
  double serial = INFINITY;   ///< the least any standalone configuration spent outside the loops
  std::vector<double> loops;  ///< per loop
  double seconds() const { return serial + std::accumulate(loops.begin(), loops.end(), 0.0); }
};
Ideal ideal_of(const std::vector<const Result*>& cpu, const std::vector<Result>& alone) {
  Ideal ideal;
  for (const Result* c : cpu) ideal.serial = std::min(ideal.serial, c->serial);
  for (const Result& a : alone) ideal.serial = std::min(ideal.serial, a.serial);
  for (std::size_t l = 0; l < cpu.front()->loop_seconds.size(); ++l) {
    double best_cpu = INFINITY;
    for (const Result* c : cpu) best_cpu = std::min(best_cpu, c->loop_seconds[l]);
    double inverse = 1.0 / best_cpu;
    for (const Result& a : alone) inverse += 1.0 / a.loop_seconds[l];
    ideal.loops.push_back(1.0 / inverse);
  }
  return ideal;
}

json result_json(const Result& r) {
  json devices = json::array();
  for (std::size_t w = 0; w < r.keys.size(); ++w)
    devices.push_back({{"device", r.keys[w]},
                       {"iterations", r.iterations[w]},
                       {"retired", r.retired[w] != 0},
                       {"retired_loops", r.retired[w]},
                       {"bytes_to_device", r.to[w]},
                       {"bytes_from_device", r.from[w]},
                       {"bytes_peer", r.peer[w]},
                       {"stolen_per_pass", r.stolen[w]},
                       {"late_per_pass", r.late[w]},
                       {"bytes_bound", r.bound[w]}});
  return {{"devices_spec", r.devices},
          {"seconds_per_pass", r.per_pass},
          {"fastest_pass", r.fastest},
          {"tsar_pass_seconds", r.tsar_pass},
          {"outside_tsar_pass_seconds", r.outside},
          {"loop_seconds", r.loop_seconds},
          {"serial_seconds", r.serial},
          {"slowest_pass", r.slowest},
          {"seconds_total", r.total},
          {"finish_seconds", r.finish},
          {"bytes_over_bound", r.bound_violations},
          {"bytes_per_pass", r.moved},
          {"bytes_peer_per_pass", std::accumulate(r.peer.begin(), r.peer.end(), 0.0)},
          {"stolen_iterations_per_pass", std::accumulate(r.stolen.begin(), r.stolen.end(), 0.0)},
          {"late_per_pass", std::accumulate(r.late.begin(), r.late.end(), 0.0)},
          {"bytes_minimum_per_pass", r.minimum},
          {"devices", devices}};
}

/// CPU devices: cores, teams and places.
bool is_cpu(const std::string& key) {
  return key.rfind("cpu:", 0) == 0 || key.rfind("team:", 0) == 0 || key.rfind("place:", 0) == 0;
}

std::string split_text(const Result& r) {
  std::int64_t n = 0;
  for (auto i : r.iterations) n += i;
  std::string s;
  char buf[160];
  for (std::size_t w = 0; w < r.keys.size(); ++w) {
    if (r.iterations[w] == 0 && is_cpu(r.keys[w])) continue;
    char retired[96] = "";
    if (r.retired[w] != 0)
      std::snprintf(retired, sizeof retired, " (retired in %d of %zu loops; its core ran those)",
                    r.retired[w], r.loops);
    std::snprintf(buf, sizeof buf, "%s%s %.1f%%%s", s.empty() ? "" : ", ", r.keys[w].c_str(),
                  100.0 * static_cast<double>(r.iterations[w]) /
                      static_cast<double>(std::max<std::int64_t>(1, n)),
                  retired);
    s += buf;
  }
  std::int64_t cpu = 0;
  int cores = 0;
  for (std::size_t w = 0; w < r.keys.size(); ++w)
    if (is_cpu(r.keys[w])) cpu += r.iterations[w], ++cores;
  std::snprintf(
      buf, sizeof buf, "; CPU together %.1f%% (%d devices)",
      100.0 * static_cast<double>(cpu) / static_cast<double>(std::max<std::int64_t>(1, n)), cores);
  return s + buf;
}

/// The CPU device keys of a device list ("": the default list).
std::vector<std::string> cpu_keys(const std::string& spec) {
  tsar::set_devices(spec);
  tsar::Region r("bench-gpu-probe", "static", TSAR_DEVICE_CPU);
  std::vector<std::string> keys;
  for (int w = 0; w < r.num_devices(); ++w) keys.emplace_back(r.device(w).key);
  return keys;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{
      "tsar-bench-gpu: co-scheduling GEMM, k-means, Jacobi, a GPU-averse loop and time steps "
      "of several loops (BiCGStab, a stencil with a residual, a wave) across the CPU cores and "
      "GPUs of this node"};
  app.add_option("--scale", opt.scale, "quick (CI, tiny sizes) or full")
      ->check(CLI::IsMember({"quick", "full"}));
  app.add_option("--kernels", opt.kernels,
                 "comma-separated: gemm,kmeans,jacobi,averse,bicgstab,residual,wave");
  app.add_option("--backend", opt.backend, "omp, cuda or all (those this node has)")
      ->check(CLI::IsMember({"omp", "cuda", "all"}));
  app.add_option("--accelerators", opt.accelerators,
                 "device list entries of the accelerators (default: every GPU of the backend), "
                 "e.g. omphost:1 to run the memory path on the host");
  app.add_option("--cpus", opt.cpus,
                 "CPU devices that co-schedule with them (default: the default device list's, "
                 "i.e. every core but the GPUs' control cores)");
  app.add_option("--passes", opt.passes, "timed passes per configuration (default per kernel)");
  app.add_option("--schedules", opt.schedules,
                 "TSAR schedules to co-schedule with (the first is the primary one)");
  symmer::add_version_flag(app, "tsar-bench-gpu");
  CLI11_PARSE(app, argc, argv);
  const bool quick = opt.scale == "quick";

  try {
    int cuda_devices = 0;
#if TSAR_BENCH_CUDA
    cuda_devices = cuda::devices();
#endif
    int omp_count = 0, cuda_count = 0;
    tsar::set_devices("");
    tsar_count_devices(TSAR_DEVICE_OMP_TARGET, &omp_count);
    tsar_count_devices(TSAR_DEVICE_CUDA, &cuda_count);
    std::printf(
        "tsar-bench-gpu: %d cores; OpenMP target devices: %d (omp_get_num_devices %d); "
        "CUDA devices: %d (TSAR %d)\n",
        tsar::count_devices(TSAR_DEVICE_CPU) + 0, omp_count, omp_get_num_devices(), cuda_devices,
        cuda_count);
    const std::string cpu_all = "cpu:all";
    const std::string team_all =
        "team:0-" + std::to_string(static_cast<int>(cpu_keys(cpu_all).size()) - 1);
    const std::string co_cpus = opt.cpus.empty() ? join(cpu_keys("")) : opt.cpus;
    // A schedule of --schedules as run: "team" is adaptive over a team of the CPU cores.
    const auto schedule_of = [](const std::string& s) { return s == "team" ? "adaptive" : s; };

    struct BackendPlan {
      Backend backend;
      const char* name;
      unsigned kind;
      std::vector<std::string> accelerators;
    };
    std::vector<BackendPlan> backends;
    for (const auto& [backend, name, kind, count] :
         {std::tuple{Backend::omp, "omp", static_cast<unsigned>(TSAR_DEVICE_OMP_TARGET), omp_count},
          std::tuple{Backend::cuda, "cuda", static_cast<unsigned>(TSAR_DEVICE_CUDA), cuda_count}}) {
      if (opt.backend != "all" && opt.backend != name) continue;
      BackendPlan b{backend, name, kind, {}};
      if (!opt.accelerators.empty()) {
        b.accelerators = split_list(opt.accelerators);
      } else {
        for (int g = 0; g < count; ++g)
          b.accelerators.push_back(std::string(name) + ":" + std::to_string(g));
      }
      if (b.accelerators.empty()) {
        std::printf("%s: no device here, skipped\n", name);
        continue;
      }
      if (backend == Backend::cuda && cuda_devices == 0 && opt.accelerators.empty()) continue;
      backends.push_back(std::move(b));
    }
    if (backends.empty()) {
      std::fprintf(stderr,
                   "tsar-bench-gpu: no accelerator to benchmark (no GPU here; "
                   "--accelerators omphost:N runs the memory path on the host)\n");
      return 77;
    }

    json results = json::array();
    // Figures of the first schedule (the primary), and of the best schedule per kernel run.
    double e_sum = 0.0, e_best_sum = 0.0, e_single_sum = 0.0;
    int e_count = 0;
    std::map<std::string, std::pair<double, int>> e_by_schedule;  // sum, kernels: both sides
    bool all_correct = true, bytes_ok = true;
    double averse_ratio = 0.0;
    const auto schedules = split_list(opt.schedules);
    std::map<std::pair<std::string, std::string>, Result> cpu_cache;  // (kernel, schedule)
    for (const auto& b : backends) {
      const std::string co_devices = co_cpus + "," + join(b.accelerators);
      // The accelerator kind of omphost entries is OpenMP target whatever the backend.
      const unsigned accel_kinds = b.kind | TSAR_DEVICE_OMP_TARGET;
      const unsigned co_kinds = TSAR_DEVICE_CPU | accel_kinds;
      for (const auto& name : split_list(opt.kernels)) {
        Plan plan = make_plan(name, quick);
        GpuKernel& k = *plan.kernel;
        const int passes = opt.passes > 0 ? opt.passes : plan.passes;
        const int cpu_passes = opt.passes > 0 ? opt.passes : plan.cpu_passes;
        std::printf("\n%s [%s]: %s\n", k.name(), b.name, k.size_text().c_str());
        // Standalone times: the CPU under each schedule (its best counts), each GPU alone
        // with its whole share as one range.
        double best_cpu = INFINITY;
        for (const auto& sched : schedules) {
          auto key = std::make_pair(name, sched);
          if (!cpu_cache.count(key))
            cpu_cache.emplace(
                key, run(k, sched == "team" ? team_all : cpu_all, TSAR_DEVICE_CPU, b.backend,
                         sched == "team" ? "static" : sched, plan.cpu_warmup, cpu_passes, false));
          const Result& cpu = cpu_cache.at(key);
          best_cpu = std::min(best_cpu, cpu.per_pass);
          std::printf("  CPU alone (%s, %s) %*s%9.3f ms/pass\n",
                      sched == "team" ? cpu.keys.front().c_str()
                                      : (std::to_string(cpu.keys.size()) + " cores").c_str(),
                      sched.c_str(), static_cast<int>(std::max<std::size_t>(1, 16 - sched.size())),
                      "", 1e3 * cpu.per_pass);
        }
        const Result& reference = cpu_cache.at({name, schedules.front()});
        std::vector<Result> alone;
        for (const auto& a : b.accelerators) {
          // The averse loop alone on a GPU: a few passes tell its cost per pass.
          const int gpu_passes = plan.averse ? std::min(passes, 10) : passes;
          alone.push_back(run(k, a, accel_kinds, b.backend, "static", plan.averse ? 1 : plan.warmup,
                              gpu_passes, true));
          std::printf(
              "  %-10s alone                  %9.3f ms/pass  (%.1f MB in, %.1f MB out per "
              "pass)\n",
              alone.back().keys.front().c_str(), 1e3 * alone.back().per_pass,
              alone.back().to.front() / 1e6, alone.back().from.front() / 1e6);
        }
        double inverse = 1.0 / best_cpu;
        for (const auto& a : alone) inverse += 1.0 / a.per_pass;
        const double ideal_whole = 1.0 / inverse;
        std::vector<const Result*> cpus;
        for (const auto& sched : schedules) cpus.push_back(&cpu_cache.at({name, sched}));
        const Ideal ideal_parts = ideal_of(cpus, alone);
        const double ideal = ideal_parts.seconds();
        const auto loop_names = k.loops();
        if (loop_names.size() == 1)
          std::printf("  ideal co-scheduled time (1 / sum 1/T_j)  %9.3f ms/pass\n", 1e3 * ideal);
        else
          std::printf(
              "  ideal co-scheduled time                %9.3f ms/pass  (serial steps + per loop "
              "1 / sum 1/T_j; of whole passes %.3f ms)\n",
              1e3 * ideal, 1e3 * ideal_whole);

        // The best one device does alone, against the same ideal: what a schedule that never
        // co-schedules reaches, and the bound where no split pays for its fixed costs.
        double single = best_cpu;
        std::string single_device = "cpu";
        for (const auto& a : alone)
          if (a.per_pass < single) {
            single = a.per_pass;
            single_device = a.keys.front();
          }
        const double e_single = ideal / single;
        std::printf("  best single device      %-10s E = %.3f\n", single_device.c_str(), e_single);

        json item = {{"kernel", k.name()},
                     {"backend", b.name},
                     {"size", k.size_text()},
                     {"passes", passes},
                     {"warmup", plan.warmup},
                     {"ideal_seconds_per_pass", ideal},
                     {"ideal_whole_seconds_per_pass", ideal_whole},
                     {"single_device", {{"device", single_device}, {"efficiency", e_single}}}};
        item["cpu_alone"] = json::object();
        for (const auto& sched : schedules)
          item["cpu_alone"][sched] = result_json(cpu_cache.at({name, sched}));
        item["accelerators_alone"] = json::array();
        for (const auto& a : alone) item["accelerators_alone"].push_back(result_json(a));
        item["co_scheduled"] = json::object();
        double e_best = 0.0;
        bool both_primary = false;
        for (const auto& sched : schedules) {
          const bool primary = sched == schedules.front();
          const std::string sched_run = schedule_of(sched);
          const bool ranges = sched_run == "adaptive" || sched_run == "static";
          const std::string devices =
              sched == "team" ? "team:all," + join(b.accelerators) : co_devices;
          const Result co =
              run(k, devices, co_kinds, b.backend, sched_run, plan.warmup, passes, ranges);
          const double e = ideal / co.per_pass;
          std::int64_t cpu_its = 0, accel_its = 0;
          for (std::size_t w = 0; w < co.keys.size(); ++w)
            (is_cpu(co.keys[w]) ? cpu_its : accel_its) += co.iterations[w];
          const bool both = cpu_its > 0 && accel_its > 0 && !plan.averse;
          if (primary) both_primary = both;
          if (both) {
            e_best = std::max(e_best, e);
            e_by_schedule[sched].first += e;
            ++e_by_schedule[sched].second;
          }
          std::printf(
              "  co-scheduled, %-14s %9.3f ms/pass  E = %.3f  (passes %.3f to %.3f ms; "
              "split to last arrival %.3f ms, outside it %.3f ms)%s\n",
              sched.c_str(), 1e3 * co.per_pass, e, 1e3 * co.fastest, 1e3 * co.slowest,
              1e3 * co.tsar_pass, 1e3 * co.outside, both ? "" : "  (one side only)");
          double err = max_relative_difference(co.sample, reference.sample);
          for (const auto& a : alone)
            err = std::max(err, max_relative_difference(a.sample, reference.sample));
          // Kernels with a serial reference check every run against it.
          std::string serial = co.check.empty() ? reference.check : co.check;
          for (const auto& a : alone)
            if (serial.empty()) serial = a.check;
          const bool correct = err <= 1e-6 && serial.empty();
          all_correct = all_correct && correct;
          if (err > 1e-6) std::printf("  results differ from the CPU alone's: %.2e  WRONG\n", err);
          if (!serial.empty())
            std::printf("  results differ from the serial reference: %s  WRONG\n", serial.c_str());
          json entry = result_json(co);
          entry["efficiency"] = e;
          entry["efficiency_whole"] = ideal_whole / co.per_pass;
          entry["both_contribute"] = both;
          entry["max_relative_difference"] = err;
          entry["serial_check"] = serial.empty() ? "ok" : serial;
          if (plan.averse) {
            // Paired runs, each a fresh region: CPU alone and co-scheduled back to back,
            // alternating which goes first; the median of the pairs' ratios (the machine's
            // drift between two short runs cancels within a pair; the runs above were
            // minutes apart). Quick scale: the runs above make the one pair.
            const auto cpu_run = [&] {
              return run(k, sched == "team" ? team_all : cpu_all, TSAR_DEVICE_CPU, b.backend,
                         sched == "team" ? "static" : sched, plan.cpu_warmup, cpu_passes, false);
            };
            const auto co_run = [&] {
              return run(k, devices, co_kinds, b.backend, sched_run, plan.warmup, passes, ranges);
            };
            std::vector<double> ratios;
            if (plan.pairs <= 1) ratios.push_back(co.total / cpu_cache.at({name, sched}).total);
            for (int pair = 1; pair <= plan.pairs && plan.pairs > 1; ++pair) {
              double cpu_total = 0.0, co_total = 0.0;
              if (pair % 2 == 1) {
                co_total = co_run().total;
                cpu_total = cpu_run().total;
              } else {
                cpu_total = cpu_run().total;
                co_total = co_run().total;
              }
              ratios.push_back(co_total / cpu_total);
            }
            std::vector<double> sorted = ratios;
            std::sort(sorted.begin(), sorted.end());
            const double ratio = sorted[sorted.size() / 2];
            entry["co_over_cpu_total"] = ratio;
            entry["co_over_cpu_pairs"] = ratios;
            std::string list;
            for (double x : ratios)
              list += (list.empty() ? "" : ", ") + std::to_string(x).substr(0, 5);
            std::printf(
                "    whole run, co-scheduled / CPU alone (%s): %.3f, median of %zu pairs (%s) "
                "(goal: at most 1.05)\n",
                sched.c_str(), ratio, ratios.size(), list.c_str());
            if (primary) averse_ratio = std::max(averse_ratio, ratio);
          }
          if (co.minimum >= 0.0)
            std::printf("    moves %.3f MB per pass; its splits require %.3f MB (x%.3f)\n",
                        co.moved / 1e6, co.minimum / 1e6,
                        co.minimum > 0.0 ? co.moved / co.minimum : 1.0);
          if (primary) {
            std::printf("    split: %s\n", split_text(co).c_str());
            if (loop_names.size() > 1) {
              for (std::size_t l = 0; l < loop_names.size(); ++l)
                std::printf("    %-24s %8.3f ms/pass, ideal %.3f ms\n", loop_names[l].c_str(),
                            1e3 * co.loop_seconds[l], 1e3 * ideal_parts.loops[l]);
              std::printf("    serial steps %.3f ms/pass (least standalone %.3f ms)\n",
                          1e3 * co.serial, 1e3 * ideal_parts.serial);
            }
            for (std::size_t w = 0; w < co.keys.size(); ++w)
              if (co.bound[w] > 0)
                std::printf("    %-10s moves %.2f MB in + %.2f MB out per pass; bound %.2f MB%s\n",
                            co.keys[w].c_str(), co.to[w] / 1e6, co.from[w] / 1e6, co.bound[w] / 1e6,
                            co.bound_violations ? "  OVER" : "");
            bytes_ok = bytes_ok && co.bound_violations == 0;
            for (const auto& a : alone) bytes_ok = bytes_ok && a.bound_violations == 0;
            if (both) {
              e_sum += e;
              e_single_sum += e_single;
              ++e_count;
            }
          }
          item["co_scheduled"][sched] = entry;
        }
        if (both_primary) e_best_sum += e_best;
        item["efficiency_best"] = e_best;
        results.push_back(item);
      }
    }
    // Means over the kernel runs where both sides contribute (0 where none did).
    const auto mean = [&](double sum) { return e_count > 0 ? sum / e_count : 0.0; };
    json summary = {{"efficiency_mean", mean(e_sum)},
                    {"efficiency_mean_best_schedule", mean(e_best_sum)},
                    {"efficiency_kernels", e_count},
                    {"efficiency_mean_single_device", mean(e_single_sum)},
                    {"efficiency_mean_by_schedule",
                     [&] {
                       json by = json::object();
                       for (const auto& [s, v] : e_by_schedule)
                         by[s] = {{"mean", v.first / v.second}, {"kernels", v.second}};
                       return by;
                     }()},
                    {"averse_co_over_cpu", averse_ratio},
                    {"bytes_within_bound", bytes_ok},
                    {"correct", all_correct}};
    std::printf(
        "\nmean E over %d kernel runs where CPU and GPU both contribute: %.3f with %s, "
        "%.3f with the best schedule of each (goal 0.93), %.3f for the best single device "
        "alone; GPU-averse co/CPU: %.3f (goal 1.05); bytes within bound: %s; results %s\n",
        e_count, mean(e_sum), schedules.front().c_str(), mean(e_best_sum), mean(e_single_sum),
        averse_ratio, bytes_ok ? "yes" : "NO", all_correct ? "agree" : "DIFFER");
    for (const auto& [s, v] : e_by_schedule)
      std::printf("  mean E with %-14s %.3f over %d kernel runs where both contribute\n", s.c_str(),
                  v.first / v.second, v.second);
    json out = {{"bench", "tsar-bench-gpu"},    {"scale", opt.scale},
                {"schedules", schedules},       {"omp_devices", omp_count},
                {"cuda_devices", cuda_devices}, {"co_cpus", co_cpus},
                {"results", results},           {"summary", summary}};
    std::printf("%s\n", out.dump().c_str());
    return all_correct ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tsar-bench-gpu: %s\n", e.what());
    return 1;
  }
}
