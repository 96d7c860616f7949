// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Emulated time for whole regions (region/pass_clock.hpp): a body "runs" for the seconds its
// emulated device would take by advancing its worker's clock, instead of sleeping. The region
// times passes on these clocks, so what a test asserts about the planner's decisions does not
// depend on the machine's load -- sleeps overshoot by milliseconds on a busy machine, which
// made such tests fail now and then. Real work (copies, stencils) still runs; only the times
// the planner learns are emulated.
//
// Each worker's clock is its own: it advances by what its bodies ran and is set to the last
// arrival's time at every barrier. Workers take their ranges in the order of their emulated
// times: a body that advanced its worker's clock returns only once no other worker still in
// the (sub-)pass is behind it (ties go to the lower worker), so who steals which piece from
// whom -- the cores among themselves, an accelerator from the cores -- follows emulated time,
// not the machine's load, and a run repeats exactly.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "api/region_handle.hpp"
#include "region/pass_clock.hpp"
#include "tsar/tsar.hpp"

namespace emulated {

class Clock final : public tsar::core::PassClock {
 public:
  explicit Clock(int workers) : t_(static_cast<std::size_t>(workers)) {}
  double now(int worker) override {
    Slot& s = t_[static_cast<std::size_t>(worker)];
    ++s.reads;
    return s.seconds.load(std::memory_order_acquire);
  }
  void synchronize() override {
    double last = 0.0;
    for (const auto& s : t_) last = std::max(last, s.seconds.load(std::memory_order_acquire));
    for (auto& s : t_) s.seconds.store(last, std::memory_order_release);
  }
  void start(std::span<const int> workers) override {
    for (auto& s : t_) s.running.store(false, std::memory_order_relaxed);
    for (const int w : workers) t_[static_cast<std::size_t>(w)].running.store(true);
  }
  void arrive(int worker) override { t_[static_cast<std::size_t>(worker)].running.store(false); }
  /// How often worker `worker` read its clock (a worker that sits a pass out reads none).
  std::int64_t reads(int worker) const { return t_[static_cast<std::size_t>(worker)].reads; }
  /// The calling worker's device ran for `seconds`; returns once no worker still running the
  /// (sub-)pass is behind it in emulated time.
  void advance(int worker, double seconds) {
    const auto me = static_cast<std::size_t>(worker);
    const double at = t_[me].seconds.load(std::memory_order_acquire) + seconds;
    t_[me].seconds.store(at, std::memory_order_release);
    const auto behind = [&] {
      for (std::size_t v = 0; v < t_.size(); ++v) {
        if (v == me || !t_[v].running.load()) continue;
        const double t = t_[v].seconds.load(std::memory_order_acquire);
        if (t < at || (t == at && v < me)) return true;
      }
      return false;
    };
    // A worker still behind is running or about to: a hang here is a region that lost a
    // participant, which the bound reports instead of hanging the test.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (behind()) {
      if (std::chrono::steady_clock::now() > give_up) {
        stalled_.store(true);
        return;
      }
      std::this_thread::yield();
    }
  }
  /// Whether some advance() waited in vain for a worker that never went on (a test fails).
  bool stalled() const { return stalled_.load(); }

 private:
  struct alignas(64) Slot {  // each worker writes its own line
    std::atomic<double> seconds{0.0};
    std::atomic<bool> running{false};
    std::int64_t reads = 0;
  };
  std::vector<Slot> t_;
  std::atomic<bool> stalled_{false};
};

/// Gives `region` an emulated clock and returns it.
inline std::shared_ptr<Clock> emulate_time(tsar::Region& region) {
  auto clock = std::make_shared<Clock>(region.num_devices());
  tsar::core::region_of(region.handle()).set_clock(clock);
  return clock;
}

}  // namespace emulated
