// SPDX-License-Identifier: BSD-3-Clause
// tsar-suite: the benchmark kernels (apps/tsar/kernels) on TSAR and on its peers (OpenMP
// static/dynamic/guided, oneTBB, StarPU dmda/dmdas/lws) in the same run, with the same
// threads pinned the same way and the same chunk count for the chunked runtimes. Every run of
// every runtime is checked against the kernel's serial reference.
//
// For each kernel: setup, the serial reference, each TSAR device alone on the whole kernel
// (for the co-execution efficiency E), then each runtime in turn: its preparation (StarPU:
// calibrating its performance models, untimed), warm-up runs, timed runs; the median counts.
// Progress goes to stderr; stdout gets one JSON line per kernel as it finishes, then the
// table, then a summary JSON line: geomean_speedup_vs_best_peer, min_speedup_vs_best_peer and
// min_speedup_kernel, speedup_vs_best_peer_by_kernel, and the goals of issue 9.
//
// Usage: tsar-suite [--scale tiny|quick|full|large] [--kernels LIST] [--runtimes LIST]
//                   [--cores LIST] [--chunks-per-thread K] [--reps R] [--warmup W]
//                   [--tsar-schedules LIST] [--tsar-devices SPEC] [--efficiency auto|all|off]
//                   [--starpu-calibration-runs N] [--list]
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kernel.hpp"
#include "peers.hpp"
#include "suite_report.hpp"
#include "suite_tsar_runner.hpp"
#include "symmer/topology/cpu_list.hpp"
#include "symmer/topology/node_model.hpp"
#include "symmer_version.hpp"

namespace {

namespace tk = tsar::kernels;
namespace tp = tsar::peers;
namespace ts = tsar::suite;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string scale = "full";
  std::string kernels;   // "" = all
  std::string runtimes;  // "" = tsar + every peer
  std::string cores;     // "" = all
  int chunks_per_thread = 8;
  int reps = 0;     // 0 = by scale
  int warmup = -1;  // -1 = by scale
  std::string tsar_schedules = "adaptive";
  std::string tsar_devices;  // "" = one CPU device per core used
  std::string efficiency = "auto";
  int starpu_calibration_runs = 3;
  bool list = false;
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// One line of progress on stderr (kernel i of n, runtime, what it is doing).
void progress(std::size_t i, std::size_t n, const std::string& kernel, const std::string& what) {
  std::fprintf(stderr, "[%zu/%zu %s] %s\n", i + 1, n, kernel.c_str(), what.c_str());
  std::fflush(stderr);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

nlohmann::json load_average() {
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) != 3) return nullptr;
  return {load[0], load[1], load[2]};
}

/// Runs the kernel once with `runner`, checks it, and returns the seconds of the run.
double run_once(tk::Kernel& kernel, tp::Runner& runner, ts::RuntimeResult& result) {
  kernel.reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // start from quiet threads
  const auto t0 = Clock::now();
  kernel.run([&](const tk::Loop& loop, std::int64_t n) { runner.parallel(loop, n); });
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  const tk::Check c = kernel.check();
  result.max_error = std::max(result.max_error, c.error);
  if (!c.ok && result.correct) {
    result.correct = false;
    result.failure = "wrong result: " + c.detail + " (error " + std::to_string(c.error) +
                     ", tolerance " + std::to_string(c.tolerance) + ")";
  }
  return s;
}

/// Warm-ups, then timed runs of one runtime on one kernel; `before_timed` runs between them.
ts::RuntimeResult measure(tk::Kernel& kernel, tp::Runner& runner, int warmup, int reps,
                          std::size_t index, std::size_t count,
                          const std::function<void()>& before_timed = {}) {
  ts::RuntimeResult result;
  try {
    progress(index, count, kernel.name(), runner.name() + ": preparing");
    runner.begin(kernel);
    for (int w = 0; w < warmup; ++w) {
      progress(index, count, kernel.name(),
               runner.name() + " warm-up " + std::to_string(w + 1) + "/" + std::to_string(warmup));
      run_once(kernel, runner, result);
    }
    if (before_timed) before_timed();
    for (int r = 0; r < reps; ++r) {
      progress(index, count, kernel.name(),
               runner.name() + " rep " + std::to_string(r + 1) + "/" + std::to_string(reps));
      result.seconds.push_back(run_once(kernel, runner, result));
    }
    runner.end();
  } catch (const std::exception& e) {
    result.correct = false;
    result.failure = e.what();
    result.seconds.clear();
    try {
      runner.end();
    } catch (...) {
    }
  }
  if (!result.correct)
    progress(index, count, kernel.name(), runner.name() + " FAILED: " + result.failure);
  result.median_s = median(result.seconds);
  return result;
}

/// Devices whose standalone time is measured: all of them, or with `sample`, the first of
/// each kind and NUMA node (the others get their class's time).
std::vector<std::size_t> devices_to_time(const std::vector<tsar_device_info>& devices,
                                         bool sample) {
  std::vector<std::size_t> out;
  std::set<std::pair<unsigned, int>> seen;
  for (std::size_t d = 0; d < devices.size(); ++d)
    if (!sample || seen.insert({devices[d].kind, devices[d].numa_node}).second) out.push_back(d);
  return out;
}

/// Each TSAR device alone on the whole kernel: T_j of the co-execution efficiency.
void measure_standalone(tk::Kernel& kernel, const std::vector<tsar_device_info>& devices,
                        bool sample, int reps, std::size_t index, std::size_t count,
                        ts::KernelResult& out) {
  const auto timed = devices_to_time(devices, sample);
  std::map<std::pair<unsigned, int>, double> by_class;
  std::vector<double> alone(devices.size(), 0.0);
  // An accelerator cannot run a loop without a device body (TSAR keeps such loops to host
  // memory devices): it has no standalone time and stays out of E's ideal.
  std::string host_only_loop;
  for (const auto& loop : kernel.loops())
    if (!loop.offload) host_only_loop = loop.name;
  for (std::size_t d : timed) {
    const std::string key = devices[d].key;
    if (!host_only_loop.empty() &&
        (devices[d].kind == TSAR_DEVICE_OMP_TARGET || devices[d].kind == TSAR_DEVICE_CUDA)) {
      alone[d] = std::numeric_limits<double>::infinity();
      by_class.emplace(std::make_pair(devices[d].kind, devices[d].numa_node), alone[d]);
      out.standalone_skipped.push_back(key + ": loop " + host_only_loop + " has no device body");
      continue;
    }
    ts::TsarRunner runner("alone " + key, "static", key, 1, "alone:" + key + "/");
    ts::RuntimeResult r;
    // A thread of its own: TSAR pins its caller to the device's core.
    std::thread t([&] { r = measure(kernel, runner, 1, reps, index, count); });
    t.join();
    if (!r.correct) throw std::runtime_error("device " + key + " alone: " + r.failure);
    alone[d] = r.median_s;
    by_class.emplace(std::make_pair(devices[d].kind, devices[d].numa_node), r.median_s);
    out.standalone_measured.push_back(key);
  }
  for (std::size_t d = 0; d < devices.size(); ++d)
    if (alone[d] == 0.0) alone[d] = by_class.at({devices[d].kind, devices[d].numa_node});
  out.standalone_s = alone;
}

int run(const Options& opt) {
  tk::Scale scale{};
  if (!tk::parse_scale(opt.scale, scale))
    throw std::runtime_error("--scale " + opt.scale + ": use tiny, quick, full or large");
  const int reps = opt.reps > 0 ? opt.reps
                                : (scale == tk::Scale::tiny    ? 2
                                   : scale == tk::Scale::quick ? 3
                                                               : 5);
  const int warmup = opt.warmup >= 0
                         ? opt.warmup
                         : (scale == tk::Scale::full || scale == tk::Scale::large ? 2 : 1);

  const auto node = symmer::topology::NodeModel::from_this_node();
  std::vector<int> cores;
  if (opt.cores.empty()) {
    for (int c = 0; c < static_cast<int>(node.cores().size()); ++c) cores.push_back(c);
  } else {
    cores = symmer::topology::parse_core_selection(opt.cores, node).value();
  }
  node.bind_current_thread(cores.front());

  // Kernels and runtimes.
  std::vector<std::string> kernels =
      opt.kernels.empty() ? tk::kernel_names() : split_list(opt.kernels);
  for (const auto& k : kernels)
    if (!tk::make_kernel(k))
      throw std::runtime_error("--kernels: no kernel '" + k +
                               "' (known: " + join(tk::kernel_names(), ", ") + ")");
  const auto schedules = split_list(opt.tsar_schedules);
  if (schedules.empty()) throw std::runtime_error("--tsar-schedules is empty");
  std::vector<std::string> tsar_names = {"tsar"};
  for (std::size_t s = 1; s < schedules.size(); ++s) tsar_names.push_back("tsar-" + schedules[s]);
  std::vector<std::string> all = tsar_names;
  for (const auto& p : tp::peer_names()) all.push_back(p);
  std::vector<std::string> runtimes = opt.runtimes.empty() ? all : split_list(opt.runtimes);
  for (const auto& r : runtimes)
    if (std::find(all.begin(), all.end(), r) == all.end())
      throw std::runtime_error("--runtimes: no runtime '" + r +
                               "' in this build (known: " + join(all, ", ") + ")");

  // "default": TSAR's own device list (every allowed core less a control core per GPU, then
  // the GPUs); otherwise the list given, or a CPU device per core used.
  std::string devices = opt.tsar_devices == "default" ? "" : opt.tsar_devices;
  if (opt.tsar_devices.empty())
    for (int c : cores) devices += (devices.empty() ? "cpu:" : ",cpu:") + std::to_string(c);
  const auto tsar_device_list = ts::tsar_devices(devices);
  std::vector<std::string> device_keys;
  for (const auto& d : tsar_device_list) device_keys.emplace_back(d.key);

  // StarPU's models live in a private folder, removed at the end.
  char scratch_template[] = "/tmp/tsar-suite-XXXXXX";
  const char* scratch = mkdtemp(scratch_template);
  if (scratch == nullptr) throw std::runtime_error("cannot create a folder under /tmp");
  struct RemoveScratch {
    std::string path;
    ~RemoveScratch() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } remove_scratch{scratch};

  tp::RunnerConfig config;
  config.cores = cores;
  config.chunks = opt.chunks_per_thread * static_cast<int>(cores.size());
  config.bind_thread = [&node](int core) { node.bind_current_thread(core); };
  config.scratch_dir = scratch;

  const bool sample = opt.efficiency == "auto" ? tsar_device_list.size() > 4 : false;
  const bool efficiency = opt.efficiency != "off";
  if (opt.efficiency != "auto" && opt.efficiency != "all" && opt.efficiency != "off")
    throw std::runtime_error("--efficiency " + opt.efficiency + ": use auto, all or off");

  nlohmann::json header{{"bench", "tsar-suite"},
                        {"cpu", cpu_model()},
                        {"threads", cores.size()},
                        {"cores", cores},
                        {"tsar_devices", device_keys},
                        {"tsar_schedule", schedules.front()},
                        {"chunks", config.chunks},
                        {"scale", tk::scale_name(scale)},
                        {"reps", reps},
                        {"warmup", warmup},
                        {"runtimes", runtimes},
                        {"load_average", load_average()}};
  std::printf("%s\n", header.dump().c_str());
  std::fflush(stdout);

  std::vector<ts::KernelResult> results;
  std::vector<nlohmann::json> lines;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    auto kernel = tk::make_kernel(kernels[i]);
    progress(i, kernels.size(), kernels[i], "setup and serial reference");
    kernel->setup(scale);
    kernel->compute_reference();

    ts::KernelResult r;
    r.kernel = kernel->name();
    r.kind = tk::kind_name(kernel->kind());
    r.size = kernel->size_text();
    r.passes_per_run = kernel->passes_per_run();
    r.tsar_runtime = "tsar";
    if (efficiency)
      measure_standalone(*kernel, tsar_device_list, sample, std::min(reps, 3), i, kernels.size(),
                         r);

    for (const auto& name : runtimes) {
      std::unique_ptr<tp::Runner> runner;
      ts::TsarRunner* tsar_runner = nullptr;
      const auto t = std::find(tsar_names.begin(), tsar_names.end(), name);
      if (t != tsar_names.end()) {
        // Extra schedules get regions of their own names (TSAR_CACHE, TSAR_TRACE).
        auto tr = std::make_unique<ts::TsarRunner>(
            name, schedules[static_cast<std::size_t>(t - tsar_names.begin())], devices,
            config.chunks, name == "tsar" ? "" : name + "/");
        tsar_runner = tr.get();
        runner = std::move(tr);
      } else {
        runner = tp::make_peer(name, config, opt.starpu_calibration_runs);
      }
      std::function<void()> forget_warmup;
      if (tsar_runner != nullptr) forget_warmup = [tsar_runner] { tsar_runner->take_totals(); };
      r.runtimes[name] = measure(*kernel, *runner, warmup, reps, i, kernels.size(), forget_warmup);
      r.order.push_back(name);
      if (tsar_runner != nullptr && name == "tsar") {
        const auto totals = tsar_runner->take_totals();  // the timed runs only
        const auto& rt = r.runtimes[name];
        const double per_run = 1.0 / reps;
        nlohmann::json extra;
        extra["tsar_schedule"] = tsar_runner->schedule();
        extra["tsar_devices"] = device_keys;
        extra["tsar_passes_per_run"] = static_cast<double>(totals.passes) * per_run;
        extra["overhead_share"] =
            rt.median_s > 0 ? totals.schedule_seconds * per_run / rt.median_s : 0.0;
        // Not symmer's idle_share (pmpi-shim/README.md): the devices' waiting at the end of
        // passes, as a share of the run times the number of devices.
        extra["device_idle_share"] =
            rt.median_s > 0 ? totals.idle_seconds * per_run /
                                  (rt.median_s * static_cast<double>(device_keys.size()))
                            : 0.0;
        // Bytes TSAR copied between host and accelerator memory per run (0 on host-memory
        // devices, which compute on the buffers in place).
        extra["bytes_moved"] = (totals.bytes_to_device + totals.bytes_from_device) * per_run;
        extra["bytes_to_device"] = totals.bytes_to_device * per_run;
        extra["bytes_from_device"] = totals.bytes_from_device * per_run;
        extra["tsar_split"] = tsar_runner->last_split();
        r.tsar_extra = extra;
      }
    }
    const auto line = ts::kernel_json(r);
    std::printf("%s\n", line.dump().c_str());
    std::fflush(stdout);
    lines.push_back(line);
    results.push_back(std::move(r));
  }

  std::printf("\n%s\n", ts::table(results, runtimes).c_str());
  auto summary = ts::summary_json(lines);
  summary["threads"] = cores.size();
  summary["scale"] = tk::scale_name(scale);
  summary["cpu"] = cpu_model();
  summary["load_average_end"] = load_average();
  std::printf("%s\n", summary.dump().c_str());
  return summary["correct"].get<bool>() ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"TSAR's benchmark suite: the kernels on TSAR and its peers, side by side"};
  Options opt;
  app.add_option("--scale", opt.scale, "problem sizes: tiny, quick, full, large")
      ->capture_default_str();
  app.add_option("--kernels", opt.kernels, "comma-separated kernels (default: all)");
  app.add_option("--runtimes", opt.runtimes, "comma-separated runtimes (default: all)");
  app.add_option("--cores", opt.cores,
                 "Linux CPUs whose cores to use, e.g. 0-3 (L:0-3: logical cores; default: all)");
  app.add_option("--chunks-per-thread", opt.chunks_per_thread,
                 "chunks per loop of the chunked runtimes, per thread")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--reps", opt.reps, "timed runs per runtime (default: by scale)");
  app.add_option("--warmup", opt.warmup, "untimed runs before them (default: by scale)");
  app.add_option("--tsar-schedules", opt.tsar_schedules,
                 "TSAR schedules; the first is 'tsar', the others 'tsar-<schedule>'")
      ->capture_default_str();
  app.add_option("--tsar-devices", opt.tsar_devices,
                 "TSAR device list (tsar_set_devices), or 'default' for TSAR's own (cores plus "
                 "GPUs); without it a CPU device per core used");
  app.add_option("--efficiency", opt.efficiency,
                 "standalone device times for E: auto (all devices up to 4, else one per "
                 "kind and NUMA node), all, off")
      ->capture_default_str();
  app.add_option("--starpu-calibration-runs", opt.starpu_calibration_runs,
                 "untimed runs calibrating StarPU's models per kernel")
      ->capture_default_str();
  app.add_flag("--list", opt.list, "list kernels and runtimes, then exit");
  symmer::add_version_flag(app, "tsar-suite");
  CLI11_PARSE(app, argc, argv);
  try {
    if (opt.list) {
      for (const auto& name : tk::kernel_names()) {
        auto k = tk::make_kernel(name);
        std::printf("kernel  %-12s %-19s %s\n", name.c_str(), tk::kind_name(k->kind()),
                    k->description());
      }
      std::printf("runtime tsar (TSAR, --tsar-schedules)\n");
      for (const auto& p : tp::peer_names()) std::printf("runtime %s\n", p.c_str());
      return 0;
    }
    return run(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tsar-suite: %s\n", e.what());
    return 1;
  }
}
