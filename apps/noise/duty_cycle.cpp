// SPDX-License-Identifier: BSD-3-Clause
#include "duty_cycle.hpp"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "symmer/topology/node_model.hpp"

namespace symmer::noise {
namespace {

double seconds_of(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

timespec to_timespec(double s) {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(s);
  ts.tv_nsec = static_cast<long>((s - static_cast<double>(ts.tv_sec)) * 1e9);
  return ts;
}

}  // namespace

DutyResult run_duty_cycle(const DutyCycle& cycle, const symmer::topology::NodeModel& node,
                          const std::atomic<bool>& stop) {
  node.bind_current_thread(cycle.core);
  DutyResult result;
  if (cycle.realtime) {
    const sched_param param{.sched_priority = 1};
    result.realtime = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0;
  }
  const double period = std::chrono::duration<double>(cycle.period).count();
  const double busy = cycle.share * period;
  const double cpu_start = seconds_of(CLOCK_THREAD_CPUTIME_ID);
  const double wall_start = seconds_of(CLOCK_MONOTONIC);
  double next = wall_start;
  volatile double sink = 1.0;
  while (!stop.load(std::memory_order_relaxed)) {
    const double cpu_target = seconds_of(CLOCK_THREAD_CPUTIME_ID) + busy;
    // Busy for `busy` seconds of this thread's own CPU time: preempted time does not count.
    while (seconds_of(CLOCK_THREAD_CPUTIME_ID) < cpu_target &&
           seconds_of(CLOCK_MONOTONIC) < next + period)
      for (int k = 0; k < 256; ++k) sink = sink * 1.0000001 + 1e-9;
    next += period;
    const double now = seconds_of(CLOCK_MONOTONIC);
    if (next < now) next = now;  // could not get the share this period: start afresh
    const timespec wake = to_timespec(next);
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nullptr);
  }
  result.cpu_seconds = seconds_of(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
  result.wall_seconds = seconds_of(CLOCK_MONOTONIC) - wall_start;
  return result;
}

}  // namespace symmer::noise
