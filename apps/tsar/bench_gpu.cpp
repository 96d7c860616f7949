// tsar-bench-gpu: GEMM, k-means, a Jacobi/Helmholtz stencil and a GPU-averse gather, each run
// on the CPU alone (every core), on each GPU alone, and co-scheduled (the default device list:
// the cores less one control core per GPU, plus the GPUs) with the adaptive schedule, through
// OpenMP target devices and, where built and present, CUDA devices. Per kernel it prints
//   T per pass on each configuration (accelerators' copies included), the co-execution
//   efficiency E = (1 / sum_j 1/T_j) / T_co (DESIGN.md), bytes moved per pass per device
//   against the bound "needed inputs (halo included) + own outputs", and the learned split.
// Timed passes follow warm-up passes (which also let the split settle), except for the
// GPU-averse loop: there the whole run from a fresh region is timed, since the point is what
// discovering that the GPU does not pay (back-off) costs against the CPU alone.
// Results are compared with the CPU-alone run's (the unit tests compare TSAR with serial
// loops). One JSON line at the end holds every figure.
// Usage: tsar-bench-gpu [--scale quick|full] [--kernels LIST] [--backend omp|cuda|all]
//                       [--accelerators LIST] [--cpus LIST] [--passes N] [--schedule S]
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench_gpu_kernels.hpp"
#include "tsar/tsar.hpp"
#if TSAR_BENCH_CUDA
#include "bench_gpu_cuda.hpp"
#endif

namespace {

using namespace tsar_bench_gpu;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

struct Options {
  std::string scale = "full";
  std::string kernels = "gemm,kmeans,jacobi,averse";
  std::string backend = "all";
  std::string accelerators;  // "": every GPU of the backend's kind
  std::string cpus;          // "": the default list's CPU devices (GPU control cores reserved)
  std::string schedule = "adaptive";
  int passes = 0;  // 0: per kernel
};

struct Plan {
  std::unique_ptr<GpuKernel> kernel;
  int warmup;
  int passes;
  int cpu_passes;  ///< GEMM's CPU passes take seconds: fewer (its check allows it)
  bool averse;
};

Plan make_plan(const std::string& name, bool quick) {
  if (name == "gemm")
    return {quick ? make_gemm(96) : make_gemm(4096), 1, quick ? 3 : 8, quick ? 2 : 2, false};
  if (name == "kmeans")
    return {quick ? make_kmeans(20000, 8, 8) : make_kmeans(2'000'000, 16, 32), 2,
            quick ? 3 : 12, quick ? 3 : 12, false};
  if (name == "jacobi")
    return {quick ? make_jacobi(192, 64) : make_jacobi(8192, 4096), 3, quick ? 4 : 30,
            quick ? 4 : 30, false};
  if (name == "averse")  // the CPU alone and co-scheduled: the same passes from a fresh start
    return {quick ? make_averse(4096, 1 << 16) : make_averse(1 << 20, 1 << 25), 0,
            quick ? 8 : 300, quick ? 8 : 300, true};
  throw std::runtime_error("unknown kernel '" + name + "' (gemm, kmeans, jacobi, averse)");
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
  double total = 0.0;     ///< seconds of all timed passes
  double fastest = INFINITY, slowest = 0.0;
  std::vector<std::string> keys;
  std::vector<std::int64_t> iterations;  ///< last pass
  std::vector<int> retired;
  std::vector<double> to, from;      ///< mean bytes per timed pass
  std::vector<double> bound;         ///< mean bound per timed pass
  int bound_violations = 0;          ///< (device, pass) pairs that moved more than the bound
  std::vector<double> sample;
};

Result run(GpuKernel& k, const std::string& devices, unsigned kinds, Backend backend,
           const std::string& schedule, int warmup, int passes) {
  tsar::set_devices(devices);
  tsar::RegionOptions options;
  options.name = std::string("bench-gpu-") + k.name();
  options.schedule = schedule;
  options.device_kinds = kinds;
  tsar::Region region(options);
  const int n = region.num_devices();
  Result r;
  r.devices = devices;
  for (int w = 0; w < n; ++w) r.keys.emplace_back(region.device(w).key);
  r.to.assign(static_cast<std::size_t>(n), 0.0);
  r.from = r.bound = r.to;
  k.reset();
  k.attach(region);
  for (int p = 0; p < warmup; ++p) {
    k.pass(region, backend);
    k.after_pass();
  }
  for (int p = 0; p < passes; ++p) {
    const auto t0 = Clock::now();
    k.pass(region, backend);
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    r.total += seconds;
    r.fastest = std::min(r.fastest, seconds);
    r.slowest = std::max(r.slowest, seconds);
    const auto stats = region.pass_stats();
    std::int64_t begin = 0;  // adaptive ranges lie in worker order
    for (int w = 0; w < n; ++w) {
      const auto& d = stats.devices[static_cast<std::size_t>(w)];
      const std::int64_t end = begin + d.iterations;
      const double bound = d.iterations > 0 && d.kind != TSAR_DEVICE_CPU
                               ? static_cast<double>(k.bound_bytes(begin, end))
                               : 0.0;
      const double moved = static_cast<double>(d.bytes_to_device + d.bytes_from_device);
      if (moved > bound) ++r.bound_violations;
      r.to[static_cast<std::size_t>(w)] += static_cast<double>(d.bytes_to_device) / passes;
      r.from[static_cast<std::size_t>(w)] += static_cast<double>(d.bytes_from_device) / passes;
      r.bound[static_cast<std::size_t>(w)] += bound / passes;
      begin = end;
    }
    k.after_pass();
  }
  r.per_pass = r.total / std::max(1, passes);
  const auto stats = region.pass_stats();
  for (int w = 0; w < n; ++w) {
    r.iterations.push_back(stats.devices[static_cast<std::size_t>(w)].iterations);
    r.retired.push_back(region.device(w).retired);
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

json result_json(const Result& r) {
  json devices = json::array();
  for (std::size_t w = 0; w < r.keys.size(); ++w)
    devices.push_back({{"device", r.keys[w]},
                       {"iterations", r.iterations[w]},
                       {"retired", r.retired[w] != 0},
                       {"bytes_to_device", r.to[w]},
                       {"bytes_from_device", r.from[w]},
                       {"bytes_bound", r.bound[w]}});
  return {{"devices_spec", r.devices},
          {"seconds_per_pass", r.per_pass},
          {"fastest_pass", r.fastest},
          {"slowest_pass", r.slowest},
          {"seconds_total", r.total},
          {"bytes_over_bound", r.bound_violations},
          {"devices", devices}};
}

std::string split_text(const Result& r) {
  std::int64_t n = 0;
  for (auto i : r.iterations) n += i;
  std::string s;
  char buf[96];
  for (std::size_t w = 0; w < r.keys.size(); ++w) {
    if (r.iterations[w] == 0 && r.keys[w].rfind("cpu:", 0) == 0) continue;
    std::snprintf(buf, sizeof buf, "%s%s %.1f%%%s", s.empty() ? "" : ", ", r.keys[w].c_str(),
                  100.0 * static_cast<double>(r.iterations[w]) / static_cast<double>(std::max<std::int64_t>(1, n)),
                  r.retired[w] ? " (retired)" : "");
    s += buf;
  }
  std::int64_t cpu = 0;
  int cores = 0;
  for (std::size_t w = 0; w < r.keys.size(); ++w)
    if (r.keys[w].rfind("cpu:", 0) == 0) cpu += r.iterations[w], ++cores;
  std::snprintf(buf, sizeof buf, "; CPU cores together %.1f%% (%d cores)",
                100.0 * static_cast<double>(cpu) / static_cast<double>(std::max<std::int64_t>(1, n)), cores);
  return s + buf;
}

/// The CPU device keys of the default device list.
std::string default_cpus() {
  tsar::set_devices("");
  tsar::Region r("bench-gpu-probe", "static", TSAR_DEVICE_CPU);
  std::vector<std::string> keys;
  for (int w = 0; w < r.num_devices(); ++w) keys.emplace_back(r.device(w).key);
  return join(keys);
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"tsar-bench-gpu: co-scheduling GEMM, k-means, Jacobi and a GPU-averse loop "
               "across the CPU cores and GPUs of this node"};
  app.add_option("--scale", opt.scale, "quick (CI, tiny sizes) or full")
      ->check(CLI::IsMember({"quick", "full"}));
  app.add_option("--kernels", opt.kernels, "comma-separated: gemm,kmeans,jacobi,averse");
  app.add_option("--backend", opt.backend, "omp, cuda or all (those this node has)")
      ->check(CLI::IsMember({"omp", "cuda", "all"}));
  app.add_option("--accelerators", opt.accelerators,
                 "device list entries of the accelerators (default: every GPU of the backend), "
                 "e.g. omphost:1 to run the memory path on the host");
  app.add_option("--cpus", opt.cpus,
                 "CPU devices that co-schedule with them (default: the default device list's, "
                 "i.e. every core but the GPUs' control cores)");
  app.add_option("--passes", opt.passes, "timed passes per configuration (default per kernel)");
  app.add_option("--schedule", opt.schedule, "TSAR schedule of every run");
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
    std::printf("tsar-bench-gpu: %d cores; OpenMP target devices: %d (omp_get_num_devices %d); "
                "CUDA devices: %d (TSAR %d)\n",
                tsar::count_devices(TSAR_DEVICE_CPU) + 0, omp_count, omp_get_num_devices(),
                cuda_devices, cuda_count);
    const std::string cpu_all = "cpu:all";
    const std::string co_cpus = opt.cpus.empty() ? default_cpus() : opt.cpus;

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
        for (int g = 0; g < count; ++g) b.accelerators.push_back(std::string(name) + ":" + std::to_string(g));
      }
      if (b.accelerators.empty()) {
        std::printf("%s: no device here, skipped\n", name);
        continue;
      }
      if (backend == Backend::cuda && cuda_devices == 0 && opt.accelerators.empty()) continue;
      backends.push_back(std::move(b));
    }
    if (backends.empty()) {
      std::fprintf(stderr, "tsar-bench-gpu: no accelerator to benchmark (no GPU here; "
                           "--accelerators omphost:N runs the memory path on the host)\n");
      return 77;
    }

    json results = json::array();
    double e_sum = 0.0;
    int e_count = 0;
    bool all_correct = true, bytes_ok = true;
    double averse_ratio = 0.0;
    for (const auto& b : backends) {
      const std::string co_devices = co_cpus + "," + join(b.accelerators);
      const unsigned co_kinds = TSAR_DEVICE_CPU | b.kind;
      for (const auto& name : split_list(opt.kernels)) {
        Plan plan = make_plan(name, quick);
        GpuKernel& k = *plan.kernel;
        const int passes = opt.passes > 0 ? opt.passes : plan.passes;
        // The accelerator kind of omphost entries is OpenMP target whatever the backend.
        const unsigned accel_kinds = b.kind | TSAR_DEVICE_OMP_TARGET;
        std::printf("\n%s [%s]: %s\n", k.name(), b.name, k.size_text().c_str());
        const int cpu_passes = opt.passes > 0 ? opt.passes : plan.cpu_passes;
        const Result cpu = run(k, cpu_all, TSAR_DEVICE_CPU, b.backend, opt.schedule, plan.warmup,
                               cpu_passes);
        std::printf("  CPU alone (%zu cores)      %9.3f ms/pass\n", cpu.keys.size(), 1e3 * cpu.per_pass);
        std::vector<Result> alone;
        for (const auto& a : b.accelerators) {
          // The averse loop alone on a GPU: a few passes tell its (high) cost per pass.
          const int gpu_passes = plan.averse ? std::min(passes, 10) : passes;
          alone.push_back(run(k, a, accel_kinds, b.backend, opt.schedule, plan.averse ? 1 : plan.warmup,
                              gpu_passes));
          std::printf("  %-10s alone           %9.3f ms/pass  (%.1f MB in, %.1f MB out per pass)\n",
                      alone.back().keys.front().c_str(), 1e3 * alone.back().per_pass,
                      alone.back().to.front() / 1e6, alone.back().from.front() / 1e6);
        }
        const Result co = run(k, co_devices, co_kinds | accel_kinds, b.backend, opt.schedule,
                              plan.warmup, passes);
        double inverse = 1.0 / cpu.per_pass;
        for (const auto& a : alone) inverse += 1.0 / a.per_pass;
        const double ideal = 1.0 / inverse;
        const double e = ideal / co.per_pass;
        std::int64_t cpu_its = 0, accel_its = 0;
        for (std::size_t w = 0; w < co.keys.size(); ++w)
          (co.keys[w].rfind("cpu:", 0) == 0 ? cpu_its : accel_its) += co.iterations[w];
        const bool both = cpu_its > 0 && accel_its > 0 && !plan.averse;
        std::printf("  co-scheduled (%zu devices)   %9.3f ms/pass  ideal %.3f ms  E = %.3f%s\n",
                    co.keys.size(), 1e3 * co.per_pass, 1e3 * ideal, e,
                    both ? "" : "  (one side only: not in the mean)");
        std::printf("  co-scheduled passes: fastest %.3f ms, slowest %.3f ms\n", 1e3 * co.fastest,
                    1e3 * co.slowest);
        std::printf("  split: %s\n", split_text(co).c_str());
        for (std::size_t w = 0; w < co.keys.size(); ++w)
          if (co.bound[w] > 0)
            std::printf("  %-10s moves %.2f MB in + %.2f MB out per pass; bound %.2f MB%s\n",
                        co.keys[w].c_str(), co.to[w] / 1e6, co.from[w] / 1e6, co.bound[w] / 1e6,
                        co.bound_violations ? "  OVER" : "");
        double err = 0.0;
        for (const auto* r : std::vector<const Result*>{&co})
          err = std::max(err, max_relative_difference(r->sample, cpu.sample));
        for (const auto& a : alone) err = std::max(err, max_relative_difference(a.sample, cpu.sample));
        const bool correct = err <= 1e-6;
        all_correct = all_correct && correct;
        bytes_ok = bytes_ok && co.bound_violations == 0;
        for (const auto& a : alone) bytes_ok = bytes_ok && a.bound_violations == 0;
        std::printf("  results vs CPU alone: max relative difference %.2e%s\n", err,
                    correct ? "" : "  WRONG");
        json item = {{"kernel", k.name()},
                     {"backend", b.name},
                     {"size", k.size_text()},
                     {"passes", passes},
                     {"warmup", plan.warmup},
                     {"cpu_alone", result_json(cpu)},
                     {"co_scheduled", result_json(co)},
                     {"ideal_seconds_per_pass", ideal},
                     {"efficiency", e},
                     {"both_contribute", both},
                     {"max_relative_difference", err},
                     {"correct", correct}};
        item["accelerators_alone"] = json::array();
        for (const auto& a : alone) item["accelerators_alone"].push_back(result_json(a));
        if (plan.averse) {
          const double ratio = co.total / cpu.total;
          averse_ratio = std::max(averse_ratio, ratio);
          item["co_over_cpu_total"] = ratio;
          std::printf("  whole run, co-scheduled / CPU alone: %.3f (goal: at most 1.05)\n", ratio);
        }
        if (both) {
          e_sum += e;
          ++e_count;
        }
        results.push_back(item);
      }
    }
    json summary = {{"efficiency_mean", e_count > 0 ? e_sum / e_count : 0.0},
                    {"efficiency_kernels", e_count},
                    {"averse_co_over_cpu", averse_ratio},
                    {"bytes_within_bound", bytes_ok},
                    {"correct", all_correct}};
    std::printf("\nmean E over %d kernel runs where CPU and GPU both contribute: %.3f (goal 0.93); "
                "GPU-averse co/CPU: %.3f (goal 1.05); bytes within bound: %s; results %s\n",
                e_count, e_count > 0 ? e_sum / e_count : 0.0, averse_ratio, bytes_ok ? "yes" : "NO",
                all_correct ? "agree" : "DIFFER");
    json out = {{"bench", "tsar-bench-gpu"},
                {"scale", opt.scale},
                {"schedule", opt.schedule},
                {"omp_devices", omp_count},
                {"cuda_devices", cuda_devices},
                {"co_cpus", co_cpus},
                {"results", results},
                {"summary", summary}};
    std::printf("%s\n", out.dump().c_str());
    return all_correct ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tsar-bench-gpu: %s\n", e.what());
    return 1;
  }
}
