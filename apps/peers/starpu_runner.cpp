// SPDX-License-Identifier: BSD-3-Clause
#include "starpu_runner.hpp"

#include <starpu.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>

namespace tsar::peers {
namespace {

struct ChunkArg {
  const kernels::Loop* loop;
  std::int64_t begin, end;
  const RunnerConfig* config;
};

void run_chunk(void** /*buffers*/, void* arg) {
  const auto* c = static_cast<const ChunkArg*>(arg);
  // Worker i runs on cores[i], pinned here rather than through STARPU_WORKERS_COREID: StarPU
  // numbers cores in its own hwloc view, which on nodes whose cgroup allows part of the
  // machine is not the suite's (StarPU 1.3 aborts there, "i < workers_nbindid").
  thread_local int bound = -1;
  const int worker = starpu_worker_get_id();
  const int core = c->config->cores[static_cast<std::size_t>(worker) % c->config->cores.size()];
  if (bound != core) {
    c->config->bind_thread(core);
    bound = core;
  }
  c->loop->host(c->begin, c->end);
}

/// History entries are per chunk length: chunks of one loop differ by at most an iteration.
std::uint32_t chunk_footprint(starpu_task* task) {
  const auto* c = static_cast<const ChunkArg*>(task->cl_arg);
  return static_cast<std::uint32_t>(c->end - c->begin);
}

/// Kernels (name and size) whose models this process has calibrated.
std::set<std::string>& calibrated() {
  static std::set<std::string> kernels;
  return kernels;
}

/// StarPU reads its settings from the environment at starpu_init; the suite's own settings
/// must win over whatever the user's shell has.
void set_environment(const RunnerConfig& config) {
  setenv("STARPU_HOME", config.scratch_dir.c_str(), 1);
  setenv("STARPU_WORKERS_NOBIND", "1", 1);  // run_chunk pins the workers
  unsetenv("STARPU_WORKERS_COREID");
  unsetenv("STARPU_WORKERS_CPUID");
  setenv("STARPU_NCPU", std::to_string(config.cores.size()).c_str(), 1);
  setenv("STARPU_NCUDA", "0", 1);
  setenv("STARPU_NOPENCL", "0", 1);
  setenv("STARPU_SILENT", "1", 1);
  unsetenv("STARPU_SCHED");
  unsetenv("STARPU_CALIBRATE");
}

}  // namespace

struct StarpuRunner::Session {
  std::vector<std::string> symbols;
  std::unique_ptr<starpu_perfmodel[]> models;
  std::unique_ptr<starpu_codelet[]> codelets;
  std::vector<ChunkArg> args;
};

StarpuRunner::StarpuRunner(std::string policy, RunnerConfig config, int calibration_runs)
    : policy_(std::move(policy)),
      config_(std::move(config)),
      calibration_runs_(calibration_runs),
      name_("starpu-" + policy_) {}

StarpuRunner::~StarpuRunner() {
  if (session_) stop();
}

void StarpuRunner::start(const kernels::Kernel& kernel, const std::string& policy, bool calibrate) {
  set_environment(config_);
  auto s = std::make_unique<Session>();
  const std::size_t loops = kernel.loops().size();
  s->models = std::make_unique<starpu_perfmodel[]>(loops);
  s->codelets = std::make_unique<starpu_codelet[]>(loops);
  for (const auto& loop : kernel.loops()) {
    s->symbols.push_back("tsar-suite." + loop.name);
  }
  for (std::size_t i = 0; i < loops; ++i) {
    starpu_perfmodel& m = s->models[i];
    std::memset(&m, 0, sizeof m);
    m.type = STARPU_HISTORY_BASED;
    m.symbol = s->symbols[i].c_str();
    m.footprint = chunk_footprint;
    starpu_codelet& cl = s->codelets[i];
    starpu_codelet_init(&cl);
    cl.where = STARPU_CPU;
    cl.cpu_funcs[0] = run_chunk;
    cl.nbuffers = 0;
    cl.model = &m;
    cl.name = m.symbol;
  }
  starpu_conf conf;
  starpu_conf_init(&conf);
  conf.ncpus = static_cast<int>(config_.cores.size());
  conf.ncuda = 0;
  conf.nopencl = 0;
  conf.sched_policy_name = policy.c_str();
  conf.calibrate = calibrate ? 1 : 0;
  const int rc = starpu_init(&conf);
  if (rc != 0)
    throw std::runtime_error("starpu_init(" + policy + ") failed: " + std::strerror(-rc));
  starpu_pause();  // workers poll for tasks otherwise
  session_ = std::move(s);
}

void StarpuRunner::stop() {
  starpu_resume();  // StarPU must not be paused at shutdown
  starpu_shutdown();
  session_.reset();
}

void StarpuRunner::begin(kernels::Kernel& kernel) {
  const std::string key = std::string(kernel.name()) + " " + kernel.size_text();
  if (calibrated().insert(key).second && calibration_runs_ > 0) {
    // dmda's models serve dmdas too: the models are per codelet, not per scheduler.
    start(kernel, "dmda", true);
    for (int r = 0; r < calibration_runs_; ++r) {
      kernel.reset();
      kernel.run([this](const kernels::Loop& loop, std::int64_t n) { parallel(loop, n); });
    }
    stop();
  }
  start(kernel, policy_, false);
}

void StarpuRunner::parallel(const kernels::Loop& loop, std::int64_t n) {
  const std::int64_t chunks = std::min<std::int64_t>(config_.chunks, n);
  auto& args = session_->args;
  args.resize(static_cast<std::size_t>(chunks));
  for (std::int64_t c = 0; c < chunks; ++c) {
    const auto [b, e] = chunk_bounds(n, chunks, c);
    args[c] = ChunkArg{&loop, b, e, &config_};
    starpu_task* task = starpu_task_create();
    task->cl = &session_->codelets[static_cast<std::size_t>(loop.index)];
    task->cl_arg = &args[c];
    task->cl_arg_size = sizeof(ChunkArg);
    task->cl_arg_free = 0;
    const int rc = starpu_task_submit(task);
    if (rc != 0)
      throw std::runtime_error("starpu_task_submit failed for " + loop.name + ": " +
                               std::strerror(-rc));
  }
  starpu_resume();
  starpu_task_wait_for_all();
  starpu_pause();
}

void StarpuRunner::end() {
  if (session_) stop();
}

}  // namespace tsar::peers
