// SPDX-License-Identifier: BSD-3-Clause
// The adapter from node-segment samples to windows, the segment's command words as a
// RankControl, and the embedded analyzer thread's life cycle, on real segment files.
#include "symmer/analysis/segment_window.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "../segment/segment_test_util.hpp"
#include "symmer/analysis/segment_rank_control.hpp"
#include "symmer/embedded_analyzer.hpp"
#include "symmer/segment/shared_words.hpp"
#include "symmer/topology/core_load.hpp"
#include "symmer/topology/proc_stat.hpp"

namespace symmer::analysis {
namespace {

using namespace std::chrono_literals;
using segment::CallClass;
using segment::SegmentWriter;
using segment::SeqlockWriter;
using segment::store_word;
using segment::testing::small_params;
using segment::testing::TempSegmentDir;
using ::testing::HasSubstr;

constexpr std::size_t idx(CallClass c) { return static_cast<std::size_t>(c); }

// Figures a rank publishes; every field scales with `k` so two publishes differ by known deltas.
void publish(const SegmentWriter& w, std::uint64_t i, std::uint64_t k, int cpu) {
  SeqlockWriter seq(w.identity(i).seq);
  ASSERT_TRUE(seq.try_begin());
  store_word(reinterpret_cast<std::uint64_t&>(w.identity(i).cpu), static_cast<std::uint64_t>(cpu));
  auto& c = w.counters(i);
  store_word(c.publish_count, k);
  store_word(c.idle_ns, 1000 * k);
  store_word(c.compute_ns, 3000 * k);
  store_word(c.out_of_sync_ns, 200 * k);
  store_word(c.send_wait_ns, 50 * k);
  store_word(c.calls[idx(CallClass::kSendrecv)], 7 * k);
  store_word(c.calls[idx(CallClass::kTest)], 1000 * k);  // polling: not progress
  store_word(c.calls[idx(CallClass::kIprobe)], 500 * k);
  store_word(c.cache_misses, 11 * k);
  store_word(c.counters_status, static_cast<std::uint64_t>(segment::CountersStatus::kAvailable));
  const auto peer = 1 - i;
  store_word(w.peers(i)[peer].bytes_sent, 4096 * k);
  store_word(w.peers(i)[peer].late_sender_ns, 300 * k);
  store_word(w.peers(i)[w.header().local_ranks + 1].bytes_sent, 64 * k);  // remote node 1
  store_word(w.peers(i)[w.header().local_ranks + 1].late_sender_ns, 9 * k);
  seq.end();
}

struct Fixture {
  TempSegmentDir dir;
  SegmentWriter writer = SegmentWriter::create(small_params(dir.path())).value();
  topology::NodeModel node = topology::NodeModel::from_this_node();
  topology::ProcReader proc{"/proc"};

  pid_t other = -1;  // the second rank: a child process (the reader rejects one pid twice)

  Fixture() {
    writer.attach_slot(0, 2, segment::mask_of(std::vector<int>{0}), 0);
    other = fork();
    if (other == 0) {
      pause();
      _exit(0);
    }
    auto& id = writer.identity(1);
    SeqlockWriter seq(id.seq);
    EXPECT_TRUE(seq.try_begin());
    store_word(id.local_rank, 1);
    store_word(id.global_rank, 3);
    store_word(id.pid, static_cast<std::uint64_t>(other));
    store_word(id.start_ticks, segment::process_start_ticks(other));
    const auto launch = segment::mask_of(std::vector<int>{0});
    copy_to_shared(&writer.placement(1).launch, &launch, sizeof launch);
    copy_to_shared(&writer.placement(1).current, &launch, sizeof launch);
    store_word(id.state, static_cast<std::uint64_t>(segment::SlotState::kActive));
    seq.end();
  }
  ~Fixture() {
    kill(other, SIGKILL);
    waitpid(other, nullptr, 0);
  }
  int cpu_of_core(int core) const {
    return node.cores()[static_cast<std::size_t>(core)].pus.front();
  }
  int last_core() const { return static_cast<int>(node.cores().size()) - 1; }
  SegmentSample sample(std::uint64_t k) {
    publish(writer, 0, k, cpu_of_core(0));
    publish(writer, 1, k, cpu_of_core(last_core()));
    auto s = read_segment_sample(writer.path(), proc);
    EXPECT_TRUE(s) << s.error().to_string();
    return std::move(*s);
  }
};

TEST(SegmentWindow, DeltasOfTwoSamples) {
  Fixture f;
  const auto a = f.sample(2);
  // Ten clock ticks at 100 Hz: a window of two could end with no tick counted on a CPU.
  std::this_thread::sleep_for(100ms);
  const auto b = f.sample(5);
  std::vector<std::string> notes;
  const auto w = window_between(a, b, f.node, &notes);
  ASSERT_TRUE(w) << w.error().to_string();
  EXPECT_EQ(w->duration_ns, b.segment.read_monotonic_ns - a.segment.read_monotonic_ns);
  ASSERT_EQ(w->ranks.size(), 2u);
  const RankWindow& r0 = w->ranks[0];
  EXPECT_EQ(r0.global_rank, 2);
  EXPECT_EQ(r0.pid, getpid());
  EXPECT_EQ(r0.core, 0);
  EXPECT_EQ(w->ranks[1].core, f.last_core());
  EXPECT_EQ(r0.idle_ns, 3000u);
  EXPECT_EQ(r0.compute_ns, 9000u);
  EXPECT_EQ(r0.outofsync_compute_ns, 600u);
  EXPECT_EQ(r0.blocking_send_wait_ns, 150u);
  EXPECT_EQ(r0.calls, 21u);  // Sendrecv only
  EXPECT_EQ(r0.bytes_to_local.at(1), 3u * 4096);
  EXPECT_EQ(r0.late_sender_wait_local.at(1), 900u);
  EXPECT_EQ(r0.bytes_to_node.at(1), 192u);
  EXPECT_EQ(r0.late_sender_wait_node.at(1), 27u);
  ASSERT_TRUE(r0.cache_misses);
  EXPECT_EQ(*r0.cache_misses, 33u);
  // Capability of every core from /proc, the job's own CPU time taken out.
  EXPECT_EQ(w->core_capability.size(), f.node.cores().size()) << (notes.empty() ? "" : notes[0]);
  for (double c : w->core_capability) EXPECT_TRUE(c >= 0.0 && c <= 1.0);
  // Readings count clock ticks: one tick of the window apart may be equal cores.
  EXPECT_DOUBLE_EQ(w->capability_resolution,
                   1.0 / (topology::clock_ticks_per_second() * w->duration_s()));
  EXPECT_TRUE(validate(*w, f.node).empty());
}

// A rank that has not published for more than two publish periods (10 ms in the fixture) makes
// no MPI call: the time beyond those two periods is its silent time; a rank that publishes has
// none.
TEST(SegmentWindow, RankWithoutCallsShowsItsSilentTime) {
  Fixture f;
  auto a = f.sample(2);
  std::this_thread::sleep_for(100ms);
  auto b = f.sample(5);
  const std::uint64_t at = a.segment.read_monotonic_ns;
  const std::uint64_t bt = b.segment.read_monotonic_ns;
  a.segment.slots[0].counters.last_publish_ns = at - 1'000'000;
  b.segment.slots[0].counters.last_publish_ns = bt - 1'000'000;
  a.segment.slots[1].counters.last_publish_ns = at - 5'000'000;
  b.segment.slots[1].counters = a.segment.slots[1].counters;  // nothing published since
  const auto w = window_between(a, b, f.node);
  ASSERT_TRUE(w) << w.error().to_string();
  ASSERT_EQ(w->ranks.size(), 2u);
  EXPECT_EQ(w->ranks[0].silent_ns, 0u);
  EXPECT_EQ(w->ranks[0].compute_ns, 9000u);
  EXPECT_EQ(w->ranks[1].compute_ns, 0u);
  EXPECT_EQ(w->ranks[1].calls, 0u);
  EXPECT_EQ(w->ranks[1].silent_ns, bt - (at - 5'000'000) - 20'000'000);
  EXPECT_TRUE(validate(*w, f.node).empty());
}

// A hybrid rank on cores 0-1 in a serial phase: one thread busy on core 0, core 1 idle. Its CPU
// time is its own on core 0; split evenly it would show core 0 half taken by someone else.
TEST(SegmentWindow, HybridRankInASerialPhaseLeavesItsCoresCapable) {
  Fixture f;
  if (f.node.cores().size() < 2 || f.cpu_of_core(0) != 0 || f.cpu_of_core(1) != 1)
    GTEST_SKIP() << "needs cores 0 and 1 on CPUs 0 and 1";
  auto a = f.sample(2);
  auto b = f.sample(5);
  const auto both = segment::mask_of(std::vector<int>{0, 1});
  for (auto* s : {&a, &b}) {
    s->segment.slots[0].placement.launch = both;
    s->segment.slots[0].placement.current = both;
    s->segment.slots[0].placement.compute_threads = 2;
    s->segment.slots[1].identity.state = static_cast<std::uint64_t>(segment::SlotState::kFinished);
  }
  const double hz = topology::clock_ticks_per_second();
  const auto stat = [](const std::string& cpu0, const std::string& cpu1, const std::string& all) {
    topology::ProcSnapshot p;
    p.stat = topology::parse_proc_stat("cpu  " + all + "\ncpu0 " + cpu0 + "\ncpu1 " + cpu1 + "\n")
                 .value();
    return p;
  };
  // 100 ticks each; columns: user nice system idle iowait irq softirq steal.
  a.proc = stat("0 0 0 0 0 0 0 0", "0 0 0 0 0 0 0 0", "0 0 0 0 0 0 0 0");
  b.proc = stat("100 0 0 0 0 0 0 0", "0 0 0 100 0 0 0 0", "100 0 0 100 0 0 0 0");
  a.cpu_seconds = {{getpid(), 0.0}};
  b.cpu_seconds = {{getpid(), 100.0 / hz}};
  std::vector<std::string> notes;
  const auto w = window_between(a, b, f.node, &notes);
  ASSERT_TRUE(w) << w.error().to_string();
  ASSERT_GE(w->core_capability.size(), 2u) << (notes.empty() ? "" : notes.back());
  EXPECT_DOUBLE_EQ(w->core_capability[0], 1.0);
  EXPECT_DOUBLE_EQ(w->core_capability[1], 1.0);
  EXPECT_DOUBLE_EQ(w->capability(0), 1.0);
  // The ticks the readings came from go with them, for aggregate() to add up.
  ASSERT_EQ(w->core_ticks.size(), w->core_capability.size());
  EXPECT_EQ(w->core_ticks[0].busy, 100u);
  EXPECT_DOUBLE_EQ(w->core_ticks[0].job, 100.0);
  EXPECT_EQ(w->core_ticks[1].idle, 100u);
}

// A rank whose first sample is in the window's end only: its CPU time cannot be taken out of
// its cores' load, so no capability is given rather than a wrong one.
TEST(SegmentWindow, RankWithoutAnEarlierSampleLeavesCapabilityUnknown) {
  Fixture f;
  auto a = f.sample(1);
  std::this_thread::sleep_for(20ms);
  auto b = f.sample(2);
  a.segment.slots[1].identity.state = static_cast<std::uint64_t>(segment::SlotState::kFree);
  std::vector<std::string> notes;
  const auto w = window_between(a, b, f.node, &notes);
  ASSERT_TRUE(w);
  EXPECT_TRUE(w->core_capability.empty());
  EXPECT_THAT(notes, ::testing::Contains(HasSubstr("core capability unknown: the CPU time of "
                                                   "local rank 1")));
}

TEST(SegmentWindow, CountersGoingBackwardsLeaveTheRankOut) {
  Fixture f;
  const auto a = f.sample(5);
  auto b = f.sample(6);
  b.segment.slots[1].counters.idle_ns = 1;  // corrupt
  std::vector<std::string> notes;
  const auto w = window_between(a, b, f.node, &notes);
  ASSERT_TRUE(w);
  ASSERT_EQ(w->ranks.size(), 1u);
  EXPECT_EQ(w->ranks[0].local_rank, 0);
  EXPECT_THAT(notes,
              ::testing::Contains(HasSubstr("local rank 1: a cumulative counter went backwards")));
}

TEST(SegmentWindow, RestartedOrFinishedRanksAreLeftOut) {
  Fixture f;
  auto a = f.sample(1);
  auto b = f.sample(2);
  a.segment.slots[0].identity.start_ticks += 1;  // another process under the same pid
  b.segment.slots[1].identity.state = static_cast<std::uint64_t>(segment::SlotState::kFinished);
  std::vector<std::string> notes;
  const auto w = window_between(a, b, f.node, &notes);
  ASSERT_TRUE(w);
  EXPECT_TRUE(w->ranks.empty());
  EXPECT_THAT(notes,
              ::testing::Contains(HasSubstr("local rank 0: no earlier sample of this process")));
}

TEST(SegmentWindow, SamplesOfDifferentJobsOrOutOfOrderAreErrors) {
  Fixture f;
  const auto a = f.sample(1);
  auto b = f.sample(2);
  EXPECT_FALSE(window_between(b, a, f.node));
  b.segment.header.job_id += 1;
  const auto w = window_between(a, b, f.node);
  ASSERT_FALSE(w);
  EXPECT_THAT(w.error().message, HasSubstr("different segments"));
}

TEST(SegmentWindow, ProcessCpuTimeOfThisProcess) {
  const auto before = process_cpu_seconds(getpid());
  ASSERT_TRUE(before);
  volatile double x = 0;
  const auto until = std::chrono::steady_clock::now() + 50ms;
  while (std::chrono::steady_clock::now() < until) x = x + 1;
  EXPECT_GT(*process_cpu_seconds(getpid()), *before);
  EXPECT_FALSE(process_cpu_seconds(0x7ffffff0));
}

TEST(SegmentRankControl, CommandsAcksAndLiveness) {
  Fixture f;
  auto control = segment::SegmentControl::open(f.writer.path());
  ASSERT_TRUE(control);
  SegmentRankControl ranks(std::move(*control), f.node);
  const auto a = f.sample(1);
  ranks.update(a.segment);
  const int core = f.last_core();
  // Rank 0 runs on CPU 0 alone: its one thread goes to the same hardware thread of `core`.
  const std::uint64_t g = ranks.command(0, std::vector<int>{core});
  ASSERT_NE(g, 0u);
  const auto word = segment::decode_command(segment::load_word(f.writer.control(0).command));
  EXPECT_EQ(word.generation, g);
  EXPECT_EQ(word.kind, segment::CommandKind::kBind);
  EXPECT_EQ(segment::mask_cpus(f.writer.target(0).cpus), std::vector<int>{f.cpu_of_core(core)});
  EXPECT_EQ(ranks.ack(0).status, AckStatus::kNone);
  // The rank answers as the shim does.
  store_word(f.writer.control(0).ack,
             segment::encode_ack(
                 {static_cast<std::uint32_t>(g), segment::AckStatus::kOk, f.cpu_of_core(core)}));
  EXPECT_EQ(ranks.ack(0).generation, g);
  EXPECT_EQ(ranks.ack(0).status, AckStatus::kBound);
  EXPECT_EQ(ranks.ack(0).core, core);
  store_word(f.writer.control(0).ack, segment::encode_ack({static_cast<std::uint32_t>(g),
                                                           segment::AckStatus::kNotAllowed, 0}));
  EXPECT_EQ(ranks.ack(0).status, AckStatus::kFailed);
  EXPECT_EQ(ranks.command(0, std::vector<int>{100000}), 0u);  // no such core
  EXPECT_EQ(ranks.command(7, std::vector<int>{0}), 0u);       // no such rank
  EXPECT_TRUE(ranks.alive(0));
  EXPECT_FALSE(ranks.alive(5));
  auto gone = a.segment;
  gone.slots[1].identity.start_ticks += 12345;  // the pid now belongs to another process
  ranks.update(gone);
  EXPECT_FALSE(ranks.alive(1));
}

TEST(SegmentRankControl, ForceBindMovesEveryThreadOfTheProcess) {
  cpu_set_t original;
  ASSERT_EQ(sched_getaffinity(0, sizeof original, &original), 0);
  const auto node = topology::NodeModel::from_this_node();
  const auto& target = node.cores().back().pus;
  std::vector<int> all;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &original)) all.push_back(c);
  std::atomic<pid_t> helper_tid{0};
  std::atomic<bool> done{false};
  std::thread helper_thread([&] {
    helper_tid = static_cast<pid_t>(gettid());
    while (!done) std::this_thread::sleep_for(1ms);
  });
  while (helper_tid == 0) std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(bind_process_threads(getpid(), all, target));
  cpu_set_t now;
  ASSERT_EQ(sched_getaffinity(helper_tid, sizeof now, &now), 0);
  EXPECT_EQ(CPU_COUNT(&now), static_cast<int>(target.size()));
  EXPECT_TRUE(CPU_ISSET(target.front(), &now));
  // The calling thread (an embedded analyzer's) is left where it was.
  ASSERT_EQ(sched_getaffinity(0, sizeof now, &now), 0);
  EXPECT_TRUE(CPU_EQUAL(&now, &original));
  done = true;
  helper_thread.join();
  EXPECT_FALSE(bind_process_threads(0x7ffffff0, all, target));
  EXPECT_FALSE(bind_process_threads(getpid(), target, {}));
}

// Sets environment variables for one test and restores them after.
class ScopedEnv {
 public:
  ScopedEnv(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (const auto& [k, v] : vars) {
      const char* old = getenv(k);
      saved_.emplace_back(k, old ? std::optional<std::string>(old) : std::nullopt);
      setenv(k, v, 1);
    }
  }
  ~ScopedEnv() {
    for (const auto& [k, v] : saved_) v ? setenv(k.c_str(), v->c_str(), 1) : unsetenv(k.c_str());
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(EmbeddedAnalyzer, RunsOnTheSegmentAndStopsPromptly) {
  Fixture f;
  const std::string log = f.dir.path() + "/decisions.jsonl";
  ScopedEnv env(
      {{"SYMMER_WINDOW_MS", "20"}, {"SYMMER_DECISION_LOG", log.c_str()}, {"SYMMER_CONFIG", ""}});
  f.sample(1);
  EmbeddedAnalyzerContext context;
  context.segment_path = f.writer.path();
  context.local_ranks = 2;
  auto analyzer = start_embedded_analyzer(context);
  ASSERT_NE(analyzer, nullptr);
  for (std::uint64_t k = 2; k < 12; ++k) {  // the ranks keep publishing
    std::this_thread::sleep_for(20ms);
    f.sample(k);
  }
  const auto t = std::chrono::steady_clock::now();
  analyzer.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - t, 1s);  // generous: only checks it does not hang
  std::ifstream in(log);
  std::vector<std::string> events;
  for (std::string line; std::getline(in, line);)
    events.push_back(nlohmann::json::parse(line)["event"].get<std::string>());
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front(), "config");
  EXPECT_EQ(events.back(), "summary");
}

TEST(EmbeddedAnalyzer, BadConfigurationKeepsItOff) {
  ScopedEnv env({{"SYMMER_MIN_GAIN", "lots"}, {"SYMMER_CONFIG", ""}});
  EmbeddedAnalyzerContext context;
  context.segment_path = "/nonexistent";
  EXPECT_EQ(start_embedded_analyzer(context), nullptr);
}

TEST(EmbeddedAnalyzer, SwitchedOffStaysOff) {
  ScopedEnv env({{"SYMMER_ANALYZER", "off"}, {"SYMMER_CONFIG", ""}});
  EXPECT_EQ(start_embedded_analyzer({}), nullptr);
}

TEST(EmbeddedAnalyzer, MissingSegmentEndsTheThreadQuietly) {
  ScopedEnv env({{"SYMMER_CONFIG", ""}});
  EmbeddedAnalyzerContext context;
  context.segment_path = "/nonexistent/segment";
  auto analyzer = start_embedded_analyzer(context);
  ASSERT_NE(analyzer, nullptr);  // the thread reports and ends; destroying it must not hang
  analyzer.reset();
}

}  // namespace
}  // namespace symmer::analysis
