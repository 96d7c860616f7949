// The embedded analyzer: a low-priority, mostly sleeping thread of local rank 0 that runs
// SegmentAnalysis on the job's node segment (replaces the weak default in segment/), and
// stands by while symmerd holds the job's claim (segment/control.hpp DaemonClaim).
#include "symmer/embedded_analyzer.hpp"

#include <pthread.h>
#include <sched.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "symmer/analysis/config.hpp"
#include "symmer/analysis/segment_analysis.hpp"
#include "symmer/segment/control.hpp"
#include "symmer/segment/reader.hpp"

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

// Runs the calling thread on `pus` (false when the kernel refuses, e.g. outside the cpuset).
bool bind_this_thread(const std::vector<int>& pus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int pu : pus)
    if (pu >= 0 && pu < CPU_SETSIZE) CPU_SET(pu, &set);
  return CPU_COUNT(&set) > 0 && sched_setaffinity(0, sizeof set, &set) == 0;
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

 private:
  // Sleeps until `until` or until asked to stop; false when asked to stop.
  bool sleep_until(Clock::time_point until) {
    std::unique_lock lock(mutex_);
    return !wake_.wait_until(lock, until, [this] { return stop_; });
  }

  void run() noexcept {
    try {
      pthread_setname_np(pthread_self(), "symmer-analyze");
      setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kNice);
      auto node = topology::NodeModel::from_this_node();
      // symmerd claims a job it analyses in the segment header; meanwhile this thread stands by.
      auto claims = segment::SegmentControl::open(context_.segment_path);
      std::unique_ptr<analysis::SegmentAnalysis> analysis;
      std::uint64_t standing_by_for = 0;  // pid of the daemon that holds the claim
      auto next = Clock::now();
      while (true) {
        const auto claim = claims ? claims->daemon_claim() : segment::DaemonClaim{};
        if (claim.held(segment::monotonic_ns())) {
          if (standing_by_for != claim.pid)
            spdlog::info(
                "symmer: symmerd (pid {}) analyses this job; the embedded analyzer "
                "stands by",
                claim.pid);
          standing_by_for = claim.pid;
          if (analysis) analysis->finish(Clock::now());
          analysis.reset();
        } else if (!analysis) {
          if (standing_by_for != 0)
            spdlog::info(
                "symmer: symmerd (pid {}) let go of this job; the embedded analyzer "
                "takes over",
                standing_by_for);
          standing_by_for = 0;
          auto opened =
              analysis::SegmentAnalysis::open(context_.segment_path, config_, node, Clock::now());
          // Ranks may still be registering in the segment: retry a while before giving up.
          for (const auto give_up = Clock::now() + kOpenPatience; !opened && Clock::now() < give_up;)
            if (sleep_until(Clock::now() + kOpenRetry))
              opened =
                  analysis::SegmentAnalysis::open(context_.segment_path, config_, node, Clock::now());
            else
              return;
          if (!opened) {
            spdlog::error("symmer: analyzer not started: {}", opened.error().message);
            return;
          }
          analysis = std::move(*opened);
        } else {
          // Between windows: tick while moves are in flight.
          bool busy = analysis->tick(Clock::now());
          while (busy && Clock::now() + kTickInterval < next) {
            if (!sleep_until(Clock::now() + kTickInterval)) break;
            busy = analysis->tick(Clock::now());
          }
        }
        next += config_.period;
        if (next < Clock::now()) next = Clock::now() + config_.period;  // fell behind: skip
        if (!sleep_until(next)) break;
        if (!analysis) continue;
        analysis->sample(Clock::now());
        // Off the ranks' cores when the job leaves one free: the analysis then takes no time
        // from any rank. Every window, since a move re-binds all threads of rank 0, this one too.
        if (const auto spare = analysis->spare_pus(); !spare.empty()) bind_this_thread(spare);
      }
      if (analysis) analysis->finish(Clock::now());
    } catch (const std::exception& e) {
      spdlog::error("symmer: analyzer stopped: {}; the job goes on unchanged", e.what());
    }
  }

  EmbeddedAnalyzerContext context_;
  analysis::AnalyzerConfig config_;
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
