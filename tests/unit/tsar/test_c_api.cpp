// SPDX-License-Identifier: BSD-3-Clause
// The C API's contract: bad arguments give a status and a message naming the problem (never
// a crash), devices and schedules are reported, statistics, traces and the learned-times
// cache work.
#include <gtest/gtest.h>
#include <omp.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "emulated_clock.hpp"
#include "tsar/tsar.h"
#include "tsar/tsar.hpp"

namespace {

bool message_has(const char* fragment) {
  return std::string(tsar_last_error()).find(fragment) != std::string::npos;
}

class CApi : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(tsar_set_devices("cpu:0,cpu:1,cpu:0"), TSAR_OK); }
  void TearDown() override { tsar_set_devices(nullptr); }
};

TEST_F(CApi, InitRejectsBadArguments) {
  tsar_region* r = reinterpret_cast<tsar_region*>(0x1);
  EXPECT_EQ(tsar_init(nullptr, "x", nullptr, 0, nullptr, 0, 0), TSAR_ERR_NULL);
  EXPECT_TRUE(message_has("region is NULL"));
  EXPECT_EQ(tsar_init(&r, "x", "fastest", 0, nullptr, 0, 0), TSAR_ERR_SCHEDULE);
  EXPECT_EQ(r, nullptr);
  EXPECT_TRUE(message_has("unknown name 'fastest'"));
  EXPECT_EQ(tsar_init(&r, "x", "split:0", 0, nullptr, 0, 0), TSAR_ERR_SCHEDULE);
  EXPECT_EQ(tsar_init(&r, "x", nullptr, 0, nullptr, 0, -3), TSAR_ERR_INVALID);
  EXPECT_EQ(tsar_init(&r, "x", nullptr, TSAR_DEVICE_CUDA, nullptr, 0, 0), TSAR_ERR_DEVICES);
  EXPECT_TRUE(message_has("no device of kind cuda"));
  EXPECT_EQ(tsar_init(&r, "x", nullptr, 0x100, nullptr, 0, 0), TSAR_ERR_INVALID);
  const double two[] = {1e-6, 2e-6};
  EXPECT_EQ(tsar_init(&r, "x", nullptr, 0, two, 2, 0), TSAR_ERR_INVALID);
  EXPECT_TRUE(message_has("the region has 3 devices"));
  const double bad[] = {1e-6, -1, 0};
  EXPECT_EQ(tsar_init(&r, "x", nullptr, 0, bad, 3, 0), TSAR_ERR_INVALID);
  EXPECT_EQ(tsar_init(&r, "x", nullptr, 0, nullptr, 3, 0), TSAR_ERR_INVALID);
  EXPECT_EQ(tsar_set_devices("cpu:0,gpu:1"), TSAR_ERR_DEVICES);
  EXPECT_TRUE(message_has("gpu:1"));
  int count = 0;
  EXPECT_EQ(tsar_count_devices(TSAR_DEVICE_ALL, &count), TSAR_OK);
  EXPECT_EQ(count, 3);  // the bad spec changed nothing
  EXPECT_EQ(tsar_count_devices(TSAR_DEVICE_ALL, nullptr), TSAR_ERR_NULL);
  EXPECT_EQ(tsar_free(nullptr), TSAR_OK);
}

TEST_F(CApi, RegionCallsRejectBadArguments) {
  tsar_region* r = nullptr;
  ASSERT_EQ(tsar_init(&r, "bad-args", "adaptive", 0, nullptr, 0, 0), TSAR_OK);
  std::vector<double> a(100);
  int64_t b = 0, e = 0;
  EXPECT_EQ(tsar_reg_mem(r, a.data(), sizeof(double), 100, 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN),
            TSAR_OK);
  EXPECT_EQ(tsar_reg_mem(r, a.data(), sizeof(double), 100, 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN),
            TSAR_ERR_REGISTERED);
  EXPECT_TRUE(message_has("already registered"));
  EXPECT_EQ(tsar_reg_mem(r, a.data() + 10, sizeof(double), 5, 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN),
            TSAR_ERR_REGISTERED);
  EXPECT_EQ(tsar_reg_mem(r, nullptr, 8, 10, 0, TSAR_ASSOC_ROWS, TSAR_MEM_IN), TSAR_ERR_NULL);
  EXPECT_EQ(tsar_reg_mem_desc(r, a.data(), nullptr), TSAR_ERR_NULL);
  EXPECT_EQ(tsar_unreg_mem(r, a.data() + 1), TSAR_ERR_UNKNOWN);
  EXPECT_EQ(tsar_retarget_mem(r, a.data() + 1, a.data()), TSAR_ERR_UNKNOWN);
  EXPECT_EQ(tsar_mem(r, a.data()), nullptr);  // not called by a worker
  EXPECT_EQ(tsar_last_status(), TSAR_ERR_THREADS);
  EXPECT_EQ(tsar_reg_reduction(r, nullptr, &b, 8, nullptr, nullptr), TSAR_ERR_NULL);
  EXPECT_EQ(tsar_unreg_reduction(r, &b), TSAR_ERR_UNKNOWN);
  EXPECT_EQ(tsar_run(r, 10, nullptr, nullptr), TSAR_ERR_NULL);
  EXPECT_EQ(tsar_run(
                nullptr, 10, [](const tsar_chunk*, void*) {}, nullptr),
            TSAR_ERR_NULL);
  // A loop of 200 iterations over a 100-element ROWS buffer: refused, not run.
  EXPECT_EQ(tsar_run(
                r, 200, [](const tsar_chunk*, void*) { ADD_FAILURE() << "ran"; }, nullptr),
            TSAR_ERR_INVALID);
  EXPECT_TRUE(message_has("100 rows but the pass has 200 iterations"));
  EXPECT_EQ(tsar_run(
                r, -5, [](const tsar_chunk*, void*) {}, nullptr),
            TSAR_ERR_INVALID);
  EXPECT_TRUE(message_has("negative"));
  EXPECT_EQ(tsar_run(
                r, INT64_MAX, [](const tsar_chunk*, void*) {}, nullptr),
            TSAR_ERR_INVALID);
  EXPECT_TRUE(message_has("larger than 2^60"));
  // Thesis-style calls from a thread that is no worker (a team of 1 for 3 devices).
  EXPECT_EQ(tsar_next(r, 10, &b, &e), TSAR_ERR_THREADS);
  EXPECT_TRUE(message_has("num_threads(tsar_num_devices(region))"));
  EXPECT_EQ(b, 0);
  EXPECT_EQ(e, 0);
  EXPECT_EQ(tsar_loop(r), 0);
  EXPECT_EQ(tsar_get_type(r), 0u);
  EXPECT_EQ(tsar_get_device(r), -1);
  EXPECT_EQ(tsar_get_worker(r), -1);
  EXPECT_EQ(tsar_get_stream(r), nullptr);
  EXPECT_EQ(tsar_next(nullptr, 10, &b, &e), TSAR_ERR_NULL);
  EXPECT_EQ(tsar_loop(nullptr), 0);
  EXPECT_EQ(tsar_cancel(r), TSAR_ERR_STATE);
  tsar_device_info info;
  EXPECT_EQ(tsar_get_device_info(r, 3, &info), TSAR_ERR_INVALID);
  EXPECT_EQ(tsar_get_device_info(r, 0, nullptr), TSAR_ERR_NULL);
  EXPECT_EQ(tsar_set_time_per_iteration(r, 9, 1.0), TSAR_ERR_INVALID);
  EXPECT_EQ(tsar_set_time_per_iteration(r, 0, -1.0), TSAR_ERR_INVALID);
  EXPECT_EQ(tsar_set_backoff(r, -1), TSAR_ERR_INVALID);
  char small[4];
  EXPECT_EQ(tsar_get_schedule(r, small, sizeof small), TSAR_ERR_INVALID);
  EXPECT_EQ(tsar_get_pass_stats(r, 0, nullptr, nullptr, 0), TSAR_ERR_INVALID);  // no pass yet
  EXPECT_TRUE(message_has("not kept"));
  EXPECT_EQ(tsar_write_trace(r, nullptr), TSAR_ERR_NULL);
  EXPECT_EQ(tsar_num_passes(nullptr), -1);
  EXPECT_EQ(tsar_num_devices(nullptr), 0);
  EXPECT_STREQ(tsar_status_string(TSAR_ERR_REGISTERED), "already registered");
  EXPECT_STREQ(tsar_status_string(12345), "unknown status code");
  EXPECT_EQ(tsar_free(r), TSAR_OK);
}

TEST_F(CApi, NestedRunsAndWrongTeamsAreRefused) {
  tsar_region* r = nullptr;
  ASSERT_EQ(tsar_init(&r, "nested", "chunk", 0, nullptr, 0, 0), TSAR_OK);
  struct Ctx {
    tsar_region* r;
    std::atomic<int> nested_status{0};
  } ctx{r};
  ASSERT_EQ(tsar_run(
                r, 10,
                [](const tsar_chunk*, void* arg) {
                  auto* c = static_cast<Ctx*>(arg);
                  c->nested_status = tsar_run(
                      c->r, 5, [](const tsar_chunk*, void*) {}, nullptr);
                },
                &ctx),
            TSAR_OK);
  EXPECT_EQ(ctx.nested_status.load(), TSAR_ERR_STATE);
  int wrong = 0;
#pragma omp parallel num_threads(2) reduction(+ : wrong)
  {
    int64_t b = 0, e = 0;
    wrong += tsar_next(r, 10, &b, &e) == TSAR_ERR_THREADS ? 1 : 0;
    tsar_loop(r);
  }
  EXPECT_EQ(wrong, 2);
  EXPECT_EQ(tsar_free(r), TSAR_OK);
}

TEST_F(CApi, DevicesScheduleAndWorkerIdentity) {
  tsar_region* r = nullptr;
  ASSERT_EQ(tsar_init(&r, "ident", "split:5", TSAR_DEVICE_CPU, nullptr, 0, 0), TSAR_OK);
  ASSERT_EQ(tsar_num_devices(r), 3);
  tsar_device_info info{};
  ASSERT_EQ(tsar_get_device_info(r, 2, &info), TSAR_OK);
  EXPECT_STREQ(info.key, "cpu:0");
  EXPECT_EQ(info.kind, static_cast<unsigned>(TSAR_DEVICE_CPU));
  EXPECT_EQ(info.control_core, 0);
  EXPECT_EQ(info.control_cpu, 0);  // "cpu:0": Linux CPU 0
  EXPECT_EQ(info.num_cores, 1);
  EXPECT_EQ(info.omp_device, -1);
  char buf[32];
  ASSERT_EQ(tsar_get_schedule(r, buf, sizeof buf), TSAR_OK);
  EXPECT_STREQ(buf, "split:5");
  std::vector<int> worker_of(3, -1), device_of(3, -2);
#pragma omp parallel num_threads(3)
  {
    int64_t b = 0, e = 0;
    do {
      tsar_next(r, 30, &b, &e);
      const int w = tsar_get_worker(r);
      worker_of[static_cast<std::size_t>(omp_get_thread_num())] = w;
      device_of[static_cast<std::size_t>(w)] = tsar_get_device(r);
      EXPECT_EQ(tsar_get_type(r), static_cast<unsigned>(TSAR_DEVICE_CPU));
    } while (tsar_loop(r));
  }
  EXPECT_EQ(worker_of, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(device_of, (std::vector<int>{0, 1, 0}));
  tsar_pass_stats ps{};
  ASSERT_EQ(tsar_get_pass_stats(r, -1, &ps, nullptr, 0), TSAR_OK);
  EXPECT_EQ(ps.sub_passes, 5);
  EXPECT_EQ(tsar_free(r), TSAR_OK);
}

TEST_F(CApi, TeamPassesRightAfterPoolPassesRunEveryIterationOnce) {
  // tsar_run returns once worker 0 leaves the end-of-pass barrier; the pool's other threads
  // may still be leaving it, and leave their worker slots in the pass they ran. An OpenMP
  // team's pass right after must join a pass of its own on those slots, not lose iterations.
  tsar_region* r = nullptr;
  ASSERT_EQ(tsar_init(&r, "switch", "adaptive", TSAR_DEVICE_CPU, nullptr, 0, 0), TSAR_OK);
  constexpr int64_t kN = 20000;
  std::vector<std::atomic<int>> hits(kN);
  const tsar_body_fn count = [](const tsar_chunk* c, void* arg) {
    auto& h = *static_cast<std::vector<std::atomic<int>>*>(arg);
    for (int64_t i = c->begin; i < c->end; ++i) h[static_cast<std::size_t>(i)]++;
  };
  for (int round = 0; round < 200; ++round) {
    ASSERT_EQ(tsar_run(r, kN, count, &hits), TSAR_OK);
#pragma omp parallel num_threads(tsar_num_devices(r))
    {
      int64_t b = 0, e = 0;
      do {
        tsar_next(r, kN, &b, &e);
        for (int64_t i = b; i < e; ++i) hits[static_cast<std::size_t>(i)]++;
      } while (tsar_loop(r));
    }
    int64_t wrong = 0;
    for (auto& h : hits) wrong += h.exchange(0) != 2 ? 1 : 0;
    ASSERT_EQ(wrong, 0) << "round " << round << ": iterations not run exactly once per pass";
  }
  EXPECT_EQ(tsar_free(r), TSAR_OK);
}

TEST_F(CApi, MismatchedIterationCountsAreReportedWithoutHanging) {
  tsar_region* r = nullptr;
  ASSERT_EQ(tsar_init(&r, "mismatch", "adaptive", 0, nullptr, 0, 0), TSAR_OK);
  int errors = 0;
#pragma omp parallel num_threads(3) reduction(+ : errors)
  {
    int64_t b = 0, e = 0;
    do {
      if (tsar_next(r, omp_get_thread_num() == 2 ? 99 : 100, &b, &e) != TSAR_OK) ++errors;
    } while (tsar_loop(r));
  }
  EXPECT_GE(errors, 1);
  EXPECT_EQ(tsar_free(r), TSAR_OK);
}

TEST_F(CApi, TeamDeviceRunsAPlaceOnOneWorker) {
  ASSERT_EQ(tsar_set_devices("place:0"), TSAR_OK);
  tsar::Region region("team");
  ASSERT_EQ(region.num_devices(), 1);
  const auto info = region.device(0);
  EXPECT_STREQ(info.key, "place:0");
  EXPECT_GE(info.num_cores, 1);
  std::vector<int> seen(1000, 0);
  auto m = region.map(seen.data(), seen.size(), tsar::Assoc::rows, TSAR_MEM_INOUT);
  region.parallel_for(1000, [&](const tsar::Chunk& c) {
    // A team device's body may run its range in parallel on the team's cores.
    int* p = c.ptr(m);
#pragma omp parallel for num_threads(info.num_cores)
    for (std::int64_t i = c.begin(); i < c.end(); ++i) p[i]++;
  });
  for (int v : seen) ASSERT_EQ(v, 1);
}

TEST_F(CApi, TraceFilesInJsonAndCsv) {
  tsar::Region region("traced", "chunk-dynamic");
  for (int pass = 0; pass < 4; ++pass) region.parallel_for(500, [](const tsar::Chunk&) {});
  const std::string dir = ::testing::TempDir();
  region.write_trace(dir + "/trace.json");
  region.write_trace(dir + "/trace.csv");
  std::ifstream json(dir + "/trace.json");
  int lines = 0;
  for (std::string line; std::getline(json, line); ++lines) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["region"], "traced");
    EXPECT_EQ(j["pass"], lines);
    EXPECT_EQ(j["devices"].size(), 3u);
    std::int64_t iterations = 0;
    for (const auto& d : j["devices"]) iterations += d["iterations"].get<std::int64_t>();
    EXPECT_EQ(iterations, 500);
  }
  EXPECT_EQ(lines, 4);
  std::ifstream csv(dir + "/trace.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("region,schedule,pass,n", 0), 0u);
  int rows = 0;
  for (std::string line; std::getline(csv, line);) ++rows;
  EXPECT_EQ(rows, 4 * 3);
  EXPECT_THROW(region.write_trace("/nonexistent-dir/x.json"), tsar::Error);
}

TEST_F(CApi, LearnedTimesCacheSeedsTheNextRun) {
  // Device 0 is 4x faster (on emulated time: emulated_clock.hpp). A first region learns it
  // and saves it under TSAR_CACHE; a second region of the same name starts from it.
  const std::string cache =
      ::testing::TempDir() + "/tsar-cache-" + std::to_string(getpid()) + ".json";
  setenv("TSAR_CACHE", cache.c_str(), 1);
  tsar::set_devices("cpu:0,cpu:1");
  const auto body = [](const tsar::Chunk&) {};
  {
    tsar::Region learn("cached", "static");  // each core runs its half: both are measured
    auto clock = emulated::emulate_time(learn);
    for (int pass = 0; pass < 4; ++pass)
      learn.parallel_for(80, [&](const tsar::Chunk& c) {
        clock->advance(c.worker(), static_cast<double>(c.size()) * (c.worker() == 0 ? 5e-4 : 2e-3));
      });
  }
  const auto saved = nlohmann::json::parse(std::ifstream(cache));
  ASSERT_TRUE(saved["entries"].contains("cached@cpu:0,cpu:1")) << saved.dump();
  // Static regions run the split they start from as it is (adaptive ones would balance the
  // cores within the pass and hide it): the cached times, else equal ones.
  tsar::Region reuse("cached", "static");
  // Emulated time: on real time a core woken late has its range run by the caller.
  auto reuse_clock = emulated::emulate_time(reuse);
  reuse.parallel_for(80, body);
  const auto first = reuse.split();
  EXPECT_EQ(first, (std::vector<std::int64_t>{64, 16}));  // the very first pass is 4:1
  tsar::Region other("not-cached", "static");
  auto other_clock = emulated::emulate_time(other);
  other.parallel_for(80, body);
  EXPECT_EQ(other.split(), (std::vector<std::int64_t>{40, 40}));
  // A damaged cache file is ignored (with a message on stderr), never an error.
  std::ofstream(cache) << "{ not json";
  EXPECT_NO_THROW(tsar::Region("cached"));
  unsetenv("TSAR_CACHE");
  std::remove(cache.c_str());
  std::remove((cache + ".lock").c_str());
}

TEST(Version, TheLibraryReportsTheVersionOfItsHeaders) {
  EXPECT_STREQ(tsar_version(), TSAR_VERSION);
  const std::string expected = std::to_string(TSAR_VERSION_MAJOR) + "." +
                               std::to_string(TSAR_VERSION_MINOR) + "." +
                               std::to_string(TSAR_VERSION_PATCH);
  EXPECT_EQ(expected, TSAR_VERSION);
  EXPECT_EQ(TSAR_VERSION_NUMBER,
            (TSAR_VERSION_MAJOR << 16) | (TSAR_VERSION_MINOR << 8) | TSAR_VERSION_PATCH);
}

struct ChunkRegionCheck {
  double total = 0;
  std::atomic<int> wrong_region{0};
  std::atomic<int> wrong_worker{0};
};

// A body reaches its region through the chunk: the reduction's accumulator, its worker.
void sum_through_chunk_region(const tsar_chunk* c, void* arg) {
  auto* check = static_cast<ChunkRegionCheck*>(arg);
  if (c->region == nullptr) {
    ++check->wrong_region;
    return;
  }
  if (tsar_get_worker(c->region) != c->worker) ++check->wrong_worker;
  auto* acc = static_cast<double*>(tsar_reduction(c->region, &check->total));
  if (acc == nullptr) {
    ++check->wrong_region;
    return;
  }
  for (int64_t i = c->begin; i < c->end; ++i) *acc += static_cast<double>(i);
}

TEST_F(CApi, TheChunkGivesTheBodyItsRegion) {
  tsar_region* r = nullptr;
  ASSERT_EQ(tsar_init(&r, "chunk-region", "chunk:7", 0, nullptr, 0, 0), TSAR_OK);
  ChunkRegionCheck check;
  const double zero = 0;
  ASSERT_EQ(tsar_reg_reduction(
                r, &check.total, &zero, sizeof zero,
                [](void* a, const void* b, void*) {
                  *static_cast<double*>(a) += *static_cast<const double*>(b);
                },
                nullptr),
            TSAR_OK);
  const int64_t n = 1000;
  ASSERT_EQ(tsar_run(r, n, sum_through_chunk_region, &check), TSAR_OK);
  EXPECT_EQ(check.wrong_region.load(), 0);
  EXPECT_EQ(check.wrong_worker.load(), 0);
  EXPECT_EQ(check.total, static_cast<double>(n * (n - 1) / 2));  // integers: exact
  EXPECT_EQ(tsar_free(r), TSAR_OK);
}

TEST_F(CApi, AnInnerLoopsChunkGivesItsPlacesRegion) {
  tsar_partition* part = nullptr;
  ASSERT_EQ(tsar_partition_init(&part, "chunk-region", "cpu:0,cpu:1", nullptr, nullptr, 0),
            TSAR_OK);
  ChunkRegionCheck check;
  const auto place_body = [](tsar_place* place, int64_t b, int64_t e, void* arg) {
    tsar_place_for(
        place, 0, b, e,
        [](const tsar_chunk* c, void* a) {
          auto* ck = static_cast<ChunkRegionCheck*>(a);
          if (c->region == nullptr)
            ++ck->wrong_region;
          else if (tsar_get_worker(c->region) != c->worker)
            ++ck->wrong_worker;
        },
        arg);
  };
  ASSERT_EQ(tsar_partition_run(part, 100, place_body, &check), TSAR_OK);
  EXPECT_EQ(check.wrong_region.load(), 0);
  EXPECT_EQ(check.wrong_worker.load(), 0);
  EXPECT_EQ(tsar_partition_free(part), TSAR_OK);
}

}  // namespace
