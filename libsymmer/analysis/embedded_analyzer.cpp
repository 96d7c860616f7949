// The embedded analyzer: a low-priority, mostly sleeping thread of local rank 0 that runs
// SegmentAnalysis on the job's node segment (replaces the weak default in segment/).
#include "symmer/embedded_analyzer.hpp"

#include <pthread.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "symmer/analysis/config.hpp"
#include "symmer/analysis/segment_analysis.hpp"

namespace symmer {
namespace {

using analysis::Clock;

// While moves are in flight the thread looks at acknowledgements this often.
constexpr auto kTickInterval = std::chrono::milliseconds(5);
// Nice value of the thread: it yields to the ranks, but still runs when every core is busy.
constexpr int kNice = 10;

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
      auto analysis = analysis::SegmentAnalysis::open(context_.segment_path, config_,
                                                      std::move(node), Clock::now());
      if (!analysis) {
        spdlog::error("symmer: analyzer not started: {}", analysis.error().message);
        return;
      }
      auto next = Clock::now() + config_.period;
      while (true) {
        // Between windows: tick while moves are in flight, else sleep to the next window.
        bool busy = (*analysis)->tick(Clock::now());
        while (busy && Clock::now() + kTickInterval < next) {
          if (!sleep_until(Clock::now() + kTickInterval)) break;
          busy = (*analysis)->tick(Clock::now());
        }
        if (!sleep_until(next)) break;
        (*analysis)->sample(Clock::now());
        next += config_.period;
        if (next < Clock::now()) next = Clock::now() + config_.period;  // fell behind: skip
      }
      (*analysis)->finish(Clock::now());
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
