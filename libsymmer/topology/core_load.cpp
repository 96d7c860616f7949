// SPDX-License-Identifier: BSD-3-Clause
// Per-CPU and per-core load and effective capability over a window (see core_load.hpp).
#include "symmer/topology/core_load.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <thread>
#include <unordered_map>

namespace symmer::topology {
namespace {

std::uint64_t grown(std::uint64_t before, std::uint64_t after) {
  return after > before ? after - before : 0;  // iowait may go backwards: count nothing
}

CoreTicks window_ticks(const CpuTimes& a, const CpuTimes& b) {
  CoreTicks t;
  t.nice = grown(a.nice, b.nice);
  t.busy = grown(a.user, b.user) + t.nice + grown(a.system, b.system);
  t.irq = grown(a.irq, b.irq);
  t.softirq = grown(a.softirq, b.softirq);
  t.steal = grown(a.steal, b.steal);
  t.idle = grown(a.idle, b.idle) + grown(a.iowait, b.iowait);
  return t;
}

// Device-line interrupts handled by each Linux CPU in the window (lines present in both).
std::map<int, std::uint64_t> device_interrupts_by_cpu(const InterruptsSnapshot& before,
                                                      const InterruptsSnapshot& after) {
  std::unordered_map<std::string_view, const IrqLine*> earlier;
  for (const IrqLine& l : before.lines)
    if (l.is_device) earlier.emplace(l.id, &l);
  std::map<int, std::size_t> before_column;
  for (std::size_t i = 0; i < before.cpus.size(); ++i) before_column[before.cpus[i]] = i;
  std::map<int, std::uint64_t> out;
  for (const IrqLine& b : after.lines) {
    auto a = earlier.find(b.id);
    if (!b.is_device || a == earlier.end()) continue;  // the line appeared during the window
    for (std::size_t i = 0; i < b.counts.size() && i < after.cpus.size(); ++i) {
      auto col = before_column.find(after.cpus[i]);
      if (col != before_column.end() && col->second < a->second->counts.size())
        out[after.cpus[i]] += grown(a->second->counts[col->second], b.counts[i]);
    }
  }
  return out;
}

// Device interrupts and NET_RX/NET_TX soft interrupts of `cpu` in the window.
void add_event_counts(CoreLoad& load, int cpu, const std::map<int, std::uint64_t>& irqs,
                      const ProcSnapshot& before, const ProcSnapshot& after) {
  if (auto it = irqs.find(cpu); it != irqs.end()) load.device_interrupts += it->second;
  load.net_rx += grown(before.softirqs.count("NET_RX", cpu), after.softirqs.count("NET_RX", cpu));
  load.net_tx += grown(before.softirqs.count("NET_TX", cpu), after.softirqs.count("NET_TX", cpu));
}

// Shares and capability from the ticks of one CPU or core (at least one tick).
void set_shares(CoreLoad& load, const CoreTicks& t) {
  const double total = static_cast<double>(t.total());
  load.ticks = t;
  load.busy = static_cast<double>(t.busy) / total;
  load.irq = static_cast<double>(t.irq) / total;
  load.softirq = static_cast<double>(t.softirq) / total;
  load.steal = static_cast<double>(t.steal) / total;
  load.idle = static_cast<double>(t.idle) / total;
  load.job = std::clamp(t.job / total, 0.0, load.busy);
  load.foreign = load.busy - load.job;
  // The job's own time may be niced too: only nice time beyond it is surely someone else's.
  load.background = std::clamp(static_cast<double>(t.nice) / total - load.job, 0.0, load.foreign);
  load.capability = std::clamp(
      1.0 - load.irq - load.softirq - load.steal - (load.foreign - load.background), 0.0, 1.0);
}

Status check_window(const ProcSnapshot& before, const ProcSnapshot& after, double hz) {
  if (!(hz > 0) || !std::isfinite(hz))
    return Error(Errc::kInvalidArgument, "ticks per second must be positive");
  if (after.stat.all.total() <= before.stat.all.total())
    return Error(Errc::kInvalidArgument,
                 "the 'after' /proc snapshot is not later than the 'before' one (no clock tick "
                 "between them, swapped, or from another boot)");
  return {};
}

Expected<CoreTicks> cpu_window(int cpu, const ProcSnapshot& before, const ProcSnapshot& after) {
  auto a = before.stat.cpus.find(cpu);
  auto b = after.stat.cpus.find(cpu);
  if (a == before.stat.cpus.end() || b == after.stat.cpus.end())
    return Error(Errc::kNotFound, "CPU " + std::to_string(cpu) +
                                      " is not in /proc/stat of both snapshots (offline?)");
  CoreTicks t = window_ticks(a->second, b->second);
  if (t.total() == 0)
    return Error(Errc::kInvalidArgument,
                 "no clock tick elapsed on CPU " + std::to_string(cpu) + " during the window");
  return t;
}

Status check_job_seconds(double seconds, const std::string& where) {
  if (!(seconds >= 0) || !std::isfinite(seconds))
    return Error(Errc::kInvalidArgument, "job busy time on " + where + " must be >= 0 seconds");
  return {};
}

}  // namespace

CoreTicks& CoreTicks::operator+=(const CoreTicks& o) {
  busy += o.busy, nice += o.nice, irq += o.irq, softirq += o.softirq, steal += o.steal;
  idle += o.idle, job += o.job;
  return *this;
}

double capability_of(const CoreTicks& ticks) {
  if (ticks.total() == 0) return 1.0;
  CoreLoad load;
  set_shares(load, ticks);
  return load.capability;
}

double clock_ticks_per_second() {
  const long ticks = sysconf(_SC_CLK_TCK);
  return ticks > 0 ? static_cast<double>(ticks) : 100.0;
}

Expected<std::vector<CoreLoad>> cpu_loads(const ProcSnapshot& before, const ProcSnapshot& after,
                                          const std::map<int, double>& job_busy_seconds,
                                          double ticks_per_second) {
  const double hz = ticks_per_second == 0 ? clock_ticks_per_second() : ticks_per_second;
  if (auto ok = check_window(before, after, hz); !ok) return ok.error();
  const auto irqs = device_interrupts_by_cpu(before.interrupts, after.interrupts);
  std::vector<CoreLoad> out;
  for (const auto& [cpu, times] : after.stat.cpus) {
    if (!before.stat.cpus.count(cpu)) continue;
    auto ticks = cpu_window(cpu, before, after);
    if (!ticks) return std::move(ticks).error();
    auto job = job_busy_seconds.find(cpu);
    const double job_seconds = job == job_busy_seconds.end() ? 0.0 : job->second;
    if (auto ok = check_job_seconds(job_seconds, "CPU " + std::to_string(cpu)); !ok)
      return ok.error();
    CoreLoad load;
    load.cpus = {cpu};
    ticks->job = job_seconds * hz;
    set_shares(load, *ticks);
    load.window_seconds = static_cast<double>(ticks->total()) / hz;
    add_event_counts(load, cpu, irqs, before, after);
    out.push_back(std::move(load));
  }
  if (out.empty()) return Error(Errc::kInvalidArgument, "the two snapshots share no CPU");
  return out;
}

Expected<std::vector<CoreLoad>> core_loads(const NodeModel& model, const ProcSnapshot& before,
                                           const ProcSnapshot& after,
                                           const std::vector<double>& job_busy_seconds_by_core,
                                           double ticks_per_second) {
  return core_loads_with_job(
      model, before, after, [&](const std::vector<CoreLoad>&) { return job_busy_seconds_by_core; },
      ticks_per_second);
}

Expected<std::vector<CoreLoad>> core_loads_with_job(const NodeModel& model,
                                                    const ProcSnapshot& before,
                                                    const ProcSnapshot& after,
                                                    const JobSecondsOfLoads& job_busy_seconds_of,
                                                    double ticks_per_second) {
  const double hz = ticks_per_second == 0 ? clock_ticks_per_second() : ticks_per_second;
  if (auto ok = check_window(before, after, hz); !ok) return ok.error();
  const auto irqs = device_interrupts_by_cpu(before.interrupts, after.interrupts);
  std::vector<CoreLoad> out;
  for (const Core& core : model.cores()) {
    CoreLoad load;
    load.core = core.index;
    load.cpus = core.pus;
    CoreTicks sum;
    for (int cpu : core.pus) {
      auto ticks = cpu_window(cpu, before, after);
      if (!ticks)
        return Error(ticks.error().code,
                     "core L:" + std::to_string(core.index) + ": " + ticks.error().message);
      sum += *ticks;
      add_event_counts(load, cpu, irqs, before, after);
    }
    // Without the job's time first: the caller may work its time out from these.
    set_shares(load, sum);
    load.window_seconds =
        static_cast<double>(sum.total()) / hz / static_cast<double>(core.pus.size());
    out.push_back(std::move(load));
  }
  const std::vector<double> job = job_busy_seconds_of(out);
  if (job.size() > model.cores().size())
    return Error(Errc::kInvalidArgument, "job busy times given for " + std::to_string(job.size()) +
                                             " cores; the model has " +
                                             std::to_string(model.cores().size()));
  for (std::size_t k = 0; k < out.size(); ++k) {
    const auto i = static_cast<std::size_t>(out[k].core);
    const double job_seconds = i < job.size() ? job[i] : 0.0;
    if (auto ok = check_job_seconds(job_seconds, "core L:" + std::to_string(out[k].core)); !ok)
      return ok.error();
    CoreTicks ticks = out[k].ticks;
    ticks.job = job_seconds * hz;
    set_shares(out[k], ticks);
  }
  return out;
}

Expected<std::vector<CoreLoad>> sample_core_loads(const NodeModel& model, const ProcReader& reader,
                                                  std::chrono::milliseconds window) {
  if (window.count() <= 0)
    return Error(Errc::kInvalidArgument, "the sampling window must be longer than 0 ms");
  auto before = reader.read();
  if (!before) return std::move(before).error();
  std::this_thread::sleep_for(window);
  auto after = reader.read();
  if (!after) return std::move(after).error();
  return core_loads(model, *before, *after);
}

}  // namespace symmer::topology
