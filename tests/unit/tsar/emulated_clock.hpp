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
// arrival's time at every barrier. Where several CPU workers balance a range among themselves
// (stealing), which of them runs which piece depends on real timing: each worker's time per
// iteration is still the emulated one, only who finishes last varies.

#include <algorithm>
#include <cstdint>
#include <memory>
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
    return s.seconds;
  }
  void synchronize() override {
    double last = 0.0;
    for (const auto& s : t_) last = std::max(last, s.seconds);
    for (auto& s : t_) s.seconds = last;
  }
  /// How often worker `worker` read its clock (a worker that sits a pass out reads none).
  std::int64_t reads(int worker) const { return t_[static_cast<std::size_t>(worker)].reads; }
  /// The calling worker's device ran for `seconds`.
  void advance(int worker, double seconds) {
    t_[static_cast<std::size_t>(worker)].seconds += seconds;
  }

 private:
  struct alignas(64) Slot {  // each worker writes its own line
    double seconds = 0.0;
    std::int64_t reads = 0;
  };
  std::vector<Slot> t_;
};

/// Gives `region` an emulated clock and returns it.
inline std::shared_ptr<Clock> emulate_time(tsar::Region& region) {
  auto clock = std::make_shared<Clock>(region.num_devices());
  tsar::core::region_of(region.handle()).set_clock(clock);
  return clock;
}

}  // namespace emulated
