// SPDX-License-Identifier: BSD-3-Clause
// The embedded analyzer: a low-priority, mostly sleeping thread of local rank 0 that runs
// SegmentAnalysis on the job's node segment (replaces the weak default in segment/), and
// stands by while symmerd holds the job's claim (segment/claim.hpp).
#include "symmer/embedded_analyzer.hpp"

#include <pthread.h>
#include <sched.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "symmer/analysis/config.hpp"
#include "symmer/analysis/segment_analysis.hpp"
#include "symmer/segment/claim.hpp"
#include "symmer/segment/reader.hpp"
#include "symmer/topology/cpu_list.hpp"

namespace symmer {
namespace {

using analysis::Clock;

// While moves are in flight the thread looks at acknowledgements this often.
constexpr auto kTickInterval = std::chrono::milliseconds(5);
// Nice value of the thread: it yields to the ranks, but still runs when every core is busy.
constexpr int kNice = 10;
// Ranks may still be registering when the thread starts: how long it keeps trying.
constexpr auto kOpenPatience = std::chrono::seconds(3);
constexpr auto kOpenRetry = std::chrono::milliseconds(50);
// The claim outlives this many missed windows (and at least kMinLease) if the thread stalls.
constexpr int kLeasePeriods = 3;
constexpr auto kMinLease = std::chrono::seconds(2);

// The CPUs the job was started on: its launcher's (the parent process's) mask, which taskset,
// numactl or the batch system set on mpiexec. The thread never leaves them: the kernel bounds
// it only by the cpuset, not by a mask the user gave the whole job. Without the parent's mask,
// this thread's own.
cpu_set_t launcher_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(getppid(), sizeof set, &set) != 0) sched_getaffinity(0, sizeof set, &set);
  return set;
}

// Runs the calling thread on those of `pus` the launcher's mask holds (false when none is, or
// the kernel refuses, e.g. outside the cpuset).
bool bind_this_thread(const std::vector<int>& pus, const cpu_set_t& launcher) {
  cpu_set_t set = topology::cpu_set_of(pus);
  CPU_AND(&set, &set, &launcher);
  return CPU_COUNT(&set) > 0 && sched_setaffinity(0, sizeof set, &set) == 0;
}

// The thread starts bound where local rank 0 is, and its start-up (topology discovery, the
// first samples) would come out of that rank's time: it goes to the launcher's other CPUs
// first, if any. The kernel keeps only the CPUs of the job's cpuset and refuses (EINVAL) when
// none is left, in which case the thread stays; the scheduler then places it on idle CPUs until
// the first window tells which cores no rank uses (spare_pus).
void leave_rank_cores(const cpu_set_t& launcher) {
  cpu_set_t own;
  if (sched_getaffinity(0, sizeof own, &own) != 0) return;
  cpu_set_t others;
  CPU_ZERO(&others);
  for (int pu = 0; pu < CPU_SETSIZE; ++pu)
    if (CPU_ISSET(pu, &launcher) && !CPU_ISSET(pu, &own)) CPU_SET(pu, &others);
  if (CPU_COUNT(&others) > 0) sched_setaffinity(0, sizeof others, &others);
}

// CPU time of the calling thread: what the analysis costs the node.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

class EmbeddedAnalyzerThread final : public EmbeddedAnalyzer {
 public:
  EmbeddedAnalyzerThread(EmbeddedAnalyzerContext context, analysis::AnalyzerConfig config)
      : context_(std::move(context)), config_(std::move(config)), thread_([this] { run(); }) {}

  ~EmbeddedAnalyzerThread() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

  // Sleeps until `until` or until asked to stop; false when asked to stop.
  bool sleep_until(Clock::time_point until) {
    std::unique_lock lock(mutex_);
    return !wake_.wait_until(lock, until, [this] { return stop_; });
  }

  int thread_id() const noexcept override { return tid_.load(std::memory_order_relaxed); }

 private:
  void run() noexcept {
    tid_.store(static_cast<int>(gettid()), std::memory_order_relaxed);
    try {
      const cpu_set_t launcher = launcher_cpus();
      leave_rank_cores(launcher);
      setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kNice);
      // hwloc only: the analysis needs no GPU ordinals, and initialising the CUDA driver (a
      // good part of a second of CPU) is not the job's to pay. (hwloc's x86 discovery visits
      // every PU for a few microseconds to read CPUID, then restores the binding.)
      auto node = topology::NodeModel::from_this_node(topology::GpuQuery::kNone);
      // Named once it is where it stays (tests watch it by name).
      pthread_setname_np(pthread_self(), "symmer-analyze");
      // The job's analysis is claimed in the segment header (segment/claim.hpp): this thread
      // analyses while it holds the claim, and stands by while a symmerd does (or asked for it).
      auto claim = segment::JobClaim::open(context_.segment_path, segment::ClaimKind::kEmbedded);
      if (!claim) {
        spdlog::error("symmer: analyzer not started: {}", claim.error().message);
        return;
      }
      struct ReleaseOnExit {  // the next analyzer takes over at once when this one stops
        segment::JobClaim& claim;
        ~ReleaseOnExit() { claim.release(); }
      } release_on_exit{*claim};
      const auto lease = static_cast<std::uint64_t>(
          std::max<std::chrono::nanoseconds>(config_.period * kLeasePeriods, kMinLease).count());
      std::unique_ptr<analysis::SegmentAnalysis> analysis;
      bool standing_by = false;
      std::uint64_t standing_by_for = 0;  // pid of the daemon that holds the claim, 0: it asked
      auto next = Clock::now();
      while (true) {
        segment::Claim found;
        const auto outcome = claim->renew(lease, &found);
        if (outcome == segment::ClaimOutcome::kTaken ||
            outcome == segment::ClaimOutcome::kYielded) {
          const std::uint64_t daemon = outcome == segment::ClaimOutcome::kTaken
                                           ? static_cast<std::uint64_t>(found.holder.pid)
                                           : 0;
          if (!standing_by || standing_by_for != daemon || analysis)
            spdlog::info("symmer: symmerd{} {} this job; the embedded analyzer stands by",
                         daemon ? " (pid " + std::to_string(daemon) + ")" : std::string(),
                         daemon ? "analyses" : "asked for");
          standing_by = true;
          standing_by_for = daemon;
          if (analysis) analysis->finish(Clock::now(), cost());
          analysis.reset();
        } else if (outcome == segment::ClaimOutcome::kHeld && !analysis) {
          // Also after a daemon that asked but never held it (stopped within a window).
          if (standing_by)
            spdlog::info(
                "symmer: symmerd{} let go of this job; the embedded analyzer takes over",
                standing_by_for ? " (pid " + std::to_string(standing_by_for) + ")" : std::string());
          standing_by = false;
          auto opened = analysis::SegmentAnalysis::open(context_.segment_path, config_, node,
                                                        Clock::now(), &*claim);
          // Ranks may still be registering in the segment: retry a while before giving up.
          for (const auto give_up = Clock::now() + kOpenPatience;
               !opened && Clock::now() < give_up;)
            if (sleep_until(Clock::now() + kOpenRetry))
              opened = analysis::SegmentAnalysis::open(context_.segment_path, config_, node,
                                                       Clock::now(), &*claim);
            else
              return;
          if (!opened) {
            spdlog::error("symmer: analyzer not started: {}", opened.error().message);
            return;
          }
          analysis = std::move(*opened);
          if (startup_cpu_s_ < 0) startup_cpu_s_ = thread_cpu_seconds();
        }
        next += config_.period;
        if (next < Clock::now()) next = Clock::now() + config_.period;  // fell behind: skip
        // Until the next window: tick while moves are in flight, so that each stage of a move
        // (a rank acknowledges at its next MPI call) follows within kTickInterval, not a window.
        if (analysis) {
          bool busy = analysis->tick(Clock::now());
          while (busy && Clock::now() + kTickInterval < next) {
            if (!sleep_until(Clock::now() + kTickInterval)) break;
            busy = analysis->tick(Clock::now());
          }
        }
        if (!sleep_until(next)) break;
        if (!analysis) continue;
        analysis->sample(Clock::now());
        ++windows_;
        // Off the ranks' cores when the job leaves one free: the analysis then takes no time
        // from any rank. Every window, since ranks move.
        if (const auto spare = analysis->spare_pus(); !spare.empty())
          bind_this_thread(spare, launcher);
      }
      if (analysis) analysis->finish(Clock::now(), cost());
    } catch (const std::exception& e) {
      spdlog::error("symmer: analyzer stopped: {}; the job goes on unchanged", e.what());
    }
  }

  // What the analysis cost so far, for the summary event (Report::AnalyzerCost).
  nlohmann::json cost() const {
    return {{"cpu_s", thread_cpu_seconds()},
            {"startup_cpu_s", std::max(0.0, startup_cpu_s_)},
            {"windows", windows_}};
  }

  EmbeddedAnalyzerContext context_;
  analysis::AnalyzerConfig config_;
  double startup_cpu_s_ = -1;  // thread CPU time when the analysis first opened
  int windows_ = 0;
  std::atomic<int> tid_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace

std::unique_ptr<EmbeddedAnalyzer> start_embedded_analyzer(const EmbeddedAnalyzerContext& context) {
  try {
    // spdlog's stock default logger writes to stdout, which is the application's output: our
    // messages go to stderr instead. An application that set its own default logger keeps it.
    if (spdlog::default_logger()->name().empty())
      spdlog::set_default_logger(spdlog::stderr_color_mt("symmer"));
    const auto load = analysis::load_config();
    for (const auto& e : load.errors) spdlog::error("symmer: {}", e);
    if (!load.errors.empty()) {
      spdlog::error("symmer: analyzer disabled by the errors above; the job runs unchanged");
      return nullptr;
    }
    if (!load.config.enabled) return nullptr;
    return std::make_unique<EmbeddedAnalyzerThread>(context, load.config);
  } catch (const std::exception& e) {
    spdlog::error("symmer: analyzer not started: {}", e.what());
    return nullptr;
  }
}

}  // namespace symmer
