// SPDX-License-Identifier: BSD-3-Clause
// tsar-bench-cuda-pass: what one loop pass on a CUDA GPU costs through TSAR, against the same
// kernel launched and waited for by hand. The loop is a short one as solvers' time steps run
// them (rows x cols doubles, y += a x row by row, a per-row partial sum for dot products), its
// buffers kept on the GPU between passes by a data environment. Rungs, each the median over
// 5 repetitions of the time per pass:
//   raw_us                  launch + cudaStreamSynchronize, by hand
//   raw_partial_us          the same with the per-row sums copied back (page-locked)
//   gpu_us                  TSAR, the GPU alone (TSAR_DEVICES cuda:0)
//   gpu_partial_us          the same with the per-row sums written (a TSAR_MEM_OUT buffer,
//                           registered in every TSAR rung)
//   cores_gpu_partial_us    TSAR, the cores of the process's mask but one beside the GPU
//   cores_idle_gpu_partial_us  the same devices, every row the GPU's (static schedule): what
//                           a pass beside idle cores costs
// with, for the TSAR rungs, the parts of a pass its statistics give (split to last arrival, the
// GPU worker's busy time, the planner's part) and the share of rows the GPU ran.
// Every TSAR rung's result is checked against the host's arithmetic.
// Usage: tsar-bench-cuda-pass [--rows N] [--cols N] [--passes N] [--only RUNG]
//   --only runs one rung (raw, raw_partial, gpu, gpu_partial, cores_gpu_partial,
//   cores_idle_gpu_partial), so a profiler or TSAR_TRACE sees that kind of pass and no other.
#include <sched.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_cuda_pass_kernels.hpp"
#include "bench_gpu_cuda.hpp"
#include "symmer_version.hpp"
#include "tsar/tsar.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace cp = tsar_bench_cuda_pass;

constexpr double kA = 1e-9;  // exact steps: y stays a small multiple of kA

template <class F>
double median_seconds_per_pass(int passes, F&& pass) {
  std::vector<double> v;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = Clock::now();
    for (int p = 0; p < passes; ++p) pass();
    v.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / passes);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Rung {
  double seconds = 0.0;
  double schedule_seconds = 0.0;  ///< mean over the timed passes
  double gpu_share = 0.0;         ///< of the rows, over the timed passes
  double split_seconds = 0.0;     ///< mean from the split to the last arrival (tsar_pass_stats)
  double gpu_busy_seconds = 0.0;  ///< mean time the GPU's worker ran its ranges, copies included
  bool correct = false;
};

/// Passes of the loop on `devices` (a TSAR_DEVICES list whose last entry is the GPU).
Rung tsar_rung(const std::string& devices, std::int64_t rows, std::int64_t cols, int passes,
               bool with_partial, bool all_gpu = false) {
  tsar::set_devices(devices);
  const auto size = static_cast<std::size_t>(rows * cols);
  std::vector<double> x(size, 1.0), y(size, 0.0), partial(static_cast<std::size_t>(rows), 0.0);
  tsar::Data data;
  data.map_2d(x.data(), static_cast<std::size_t>(rows), static_cast<std::size_t>(cols));
  data.map_2d(y.data(), static_cast<std::size_t>(rows), static_cast<std::size_t>(cols));
  tsar::RegionOptions options;
  options.name = "bench-cuda-pass";
  if (all_gpu) {  // the static schedule by given times: every row the GPU's, the cores idle
    options.schedule = "static";
    options.time_per_iteration.assign(static_cast<std::size_t>(tsar::count_devices()), 1.0);
    options.time_per_iteration.back() = 1e-9;
  }
  tsar::Region region(options);
  data.attach(region);
  const auto r = static_cast<std::size_t>(rows), c = static_cast<std::size_t>(cols);
  auto xm = region.map_2d(x.data(), r, c, 0, tsar::Assoc::rows, TSAR_MEM_IN);
  auto ym = region.map_2d(y.data(), r, c, 0, tsar::Assoc::rows, TSAR_MEM_INOUT);
  auto pm =
      region.map_2d(partial.data(), r, 1, 0, tsar::Assoc::rows, TSAR_MEM_OUT | TSAR_MEM_OVERWRITE);
  const auto body = [&](const tsar::Chunk& k) {
    const double* xp = k.ptr(xm);
    double* yp = k.ptr(ym);
    double* pp = with_partial ? k.ptr(pm) : nullptr;
    if (k.stream() != nullptr) {
      cp::axpy_rows(k.stream(), xp, yp, pp, cols, kA, k.begin(), k.end());
      return;
    }
    for (std::int64_t i = k.begin(); i < k.end(); ++i) {
      double s = 0.0;
      for (std::int64_t j = 0; j < cols; ++j) {
        const std::size_t at = static_cast<std::size_t>(i * cols + j);
        yp[at] += kA * xp[at];
        s += xp[at] * yp[at];
      }
      if (pp != nullptr) pp[i] = s;
    }
  };
  for (int p = 0; p < passes / 10; ++p) region.parallel_for(rows, body);
  const std::int64_t first = region.passes();
  Rung out;
  out.seconds = median_seconds_per_pass(passes, [&] { region.parallel_for(rows, body); });
  const std::int64_t last = region.passes();
  const std::int64_t from = std::max(first, last - 4096);
  double gpu_rows = 0.0, all_rows = 0.0;
  for (std::int64_t p = from; p < last; ++p) {
    const auto s = region.pass_stats(p);
    out.schedule_seconds += s.pass.schedule_seconds;
    out.split_seconds += s.pass.seconds;
    out.gpu_busy_seconds += s.devices.back().busy_seconds;
    gpu_rows += static_cast<double>(s.devices.back().iterations);
    all_rows += static_cast<double>(s.pass.n);
  }
  const auto timed = static_cast<double>(std::max<std::int64_t>(1, last - from));
  out.schedule_seconds /= timed;
  out.split_seconds /= timed;
  out.gpu_busy_seconds /= timed;
  out.gpu_share = all_rows > 0.0 ? gpu_rows / all_rows : 0.0;
  data.update_host();
  // Every pass added kA to each y (x = 1), in the same order on every device.
  double expect = 0.0;
  for (std::int64_t p = 0; p < last; ++p) expect += kA;
  out.correct = true;
  for (std::size_t i = 0; i < size && out.correct; ++i)
    out.correct = std::fabs(y[i] - expect) <= 1e-12 * std::max(1.0, expect * 1e9);
  if (with_partial && out.correct)
    out.correct = std::fabs(partial[0] - static_cast<double>(cols) * expect) <=
                  1e-9 * static_cast<double>(cols) * expect;
  return out;
}

/// The CPUs of the process's mask but the last, as CPU devices, and GPU 0 driven from the last.
std::string cores_and_gpu() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return "cuda:0";
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask)) cpus.push_back(c);
  if (cpus.size() < 2) return "cuda:0";
  std::string spec;
  for (std::size_t k = 0; k + 1 < cpus.size(); ++k) spec += "cpu:" + std::to_string(cpus[k]) + ",";
  return spec + "cuda:0@" + std::to_string(cpus.back());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "tsar-bench-cuda-pass: one short loop pass on a CUDA GPU through TSAR against "
      "the same kernel by hand"};
  std::int64_t rows = 1024, cols = 1024;
  int passes = 2000;
  std::string only;
  app.add_option("--rows", rows, "rows of the loop")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 24));
  app.add_option("--cols", cols, "doubles a row")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 24));
  app.add_option("--passes", passes, "passes a repetition")->check(CLI::Range(10, 100000000));
  app.add_option("--only", only, "run one rung")
      ->check(CLI::IsMember({"raw", "raw_partial", "gpu", "gpu_partial", "cores_gpu_partial",
                             "cores_idle_gpu_partial"}));
  symmer::add_version_flag(app, "tsar-bench-cuda-pass");
  CLI11_PARSE(app, argc, argv);
  nlohmann::json out{
      {"bench", "tsar-bench-cuda-pass"}, {"rows", rows}, {"cols", cols}, {"passes", passes}};
  if (tsar_bench_gpu::cuda::devices() == 0) {
    std::printf("no CUDA device: nothing measured\n");
    out["skipped"] = "no CUDA device";
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  const auto wanted = [&](const std::string& key) { return only.empty() || only + "_us" == key; };
  try {
    for (const bool with_partial : {false, true}) {
      const char* key = with_partial ? "raw_partial_us" : "raw_us";
      if (!wanted(key)) continue;
      cp::RawBuffers raw(rows, cols);
      for (int p = 0; p < passes / 10; ++p) raw.pass(cols, with_partial);
      const double s = median_seconds_per_pass(passes, [&] { raw.pass(cols, with_partial); });
      std::printf("%-22s %9.2f us a pass\n", key, s * 1e6);
      out[key] = s * 1e6;
    }
    bool correct = true;
    const auto rung = [&](const char* key, const std::string& devices, bool with_partial,
                          bool all_gpu = false) {
      if (!wanted(key)) return;
      const Rung r = tsar_rung(devices, rows, cols, passes, with_partial, all_gpu);
      std::printf(
          "%-22s %9.2f us a pass (split to last arrival %.2f, GPU busy %.2f, planner %.2f us; "
          "GPU %.1f%% of the rows)%s  [%s]\n",
          key, r.seconds * 1e6, r.split_seconds * 1e6, r.gpu_busy_seconds * 1e6,
          r.schedule_seconds * 1e6, 100.0 * r.gpu_share, r.correct ? "" : "  WRONG RESULT",
          devices.c_str());
      const std::string stem(key, std::strlen(key) - 3);
      out[key] = r.seconds * 1e6;
      out[stem + "_split_us"] = r.split_seconds * 1e6;
      out[stem + "_gpu_busy_us"] = r.gpu_busy_seconds * 1e6;
      out[stem + "_schedule_us"] = r.schedule_seconds * 1e6;
      out[stem + "_gpu_share"] = r.gpu_share;
      correct = correct && r.correct;
    };
    rung("gpu_us", "cuda:0", false);
    rung("gpu_partial_us", "cuda:0", true);
    rung("cores_gpu_partial_us", cores_and_gpu(), true);
    rung("cores_idle_gpu_partial_us", cores_and_gpu(), true, true);
    out["correct"] = correct;
    std::printf("%s\n", out.dump().c_str());
    return correct ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tsar-bench-cuda-pass: %s\n", e.what());
    return 1;
  }
}
