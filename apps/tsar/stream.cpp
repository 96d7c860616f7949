// SPDX-License-Identifier: BSD-3-Clause
// tsar-stream: STREAM copy/scale/add/triad (McCalpin) under every memory policy of a TSAR
// partition, in one run (thesis 6.5.3, fig. 6.9). All arrays are first touched by one thread
// on one node -- the worst case -- then each policy runs the unchanged kernels on a
// partition over the NUMA places: coherent (the worst case as it stands), interleave,
// migrate, migrate-interleaved (here like migrate: every array is partitioned) and replicate.
// The ideal is first touch by the places themselves (STREAM's own parallel initialisation).
// Each policy gets fresh arrays and one partition pass of --times repetitions (placement
// once, then the kernels; each kernel timed between place barriers, the best of the
// repetitions after the first counts, as in STREAM).
//   migrate_over_first_touch   bandwidth(migrate) / bandwidth(first touch), mean of the four
//                              kernels (goal on a multi-NUMA machine: >= 0.95)
// Usage: tsar-stream [--n ELEMENTS] [--times T] [--places SPEC]
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "numa_bench.hpp"
#include "symmer/topology/node_model.hpp"
#include "symmer_version.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kKernels[4] = {"copy", "scale", "add", "triad"};
constexpr double kScalar = 3.0;

struct Result {
  double best[4];  // seconds
  nlohmann::json placement;
  bool valid;
};

/// STREAM's check: the values every element must have after `times` repetitions.
bool check(const double* a, const double* b, const double* c, std::size_t n, int times) {
  double aj = 1.0, bj = 2.0, cj = 0.0;
  for (int k = 0; k < times; ++k) {
    cj = aj;
    bj = kScalar * cj;
    cj = aj + bj;
    aj = bj + kScalar * cj;
  }
  for (std::size_t i = 0; i < n; i += 4099)
    if (std::fabs(a[i] - aj) > 1e-8 * aj || std::fabs(b[i] - bj) > 1e-8 * bj ||
        std::fabs(c[i] - cj) > 1e-8 * cj)
      return false;
  return true;
}

Result run(const std::string& name, int policy, bool first_touch, std::size_t n, int times,
           const std::string& places, const symmer::topology::NodeModel& node) {
  tsar::bench::FreshArray<double> a(n), b(n), c(n);
  if (!first_touch) {
    // The worst case: one thread on the first core of node 0 touches everything.
    node.bind_current_thread(node.numa_nodes().front().cores.front());
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = 1.0;
      b[i] = 2.0;
      c[i] = 0.0;
    }
  }
  tsar::Partition part("stream-" + name, places, "static", "static", TSAR_DEVICE_CPU);
  for (auto* v : {&a, &b, &c})
    part.map_array(v->data(), tsar::Partition::vector(n, TSAR_MEM_INOUT));
  part.set_policy(static_cast<tsar::MemPolicy>(policy));
  std::vector<std::vector<double>> seconds(4, std::vector<double>(static_cast<std::size_t>(times)));
  part.run(static_cast<std::int64_t>(n), [&](tsar::Place& place) {
    double* A = place.mem(a.data());
    double* B = place.mem(b.data());
    double* C = place.mem(c.data());
    if (first_touch)  // each place's devices touch their own part first
      place.for_each(9, place.begin(), place.end(), [&](const tsar_chunk& ch) {
        for (auto i = ch.begin; i < ch.end; ++i) {
          A[i] = 1.0;
          B[i] = 2.0;
          C[i] = 0.0;
        }
      });
    for (int k = 0; k < times; ++k) {
      for (int kernel = 0; kernel < 4; ++kernel) {
        place.barrier();
        const auto t0 = Clock::now();
        place.for_each(kernel, place.begin(), place.end(), [&](const tsar_chunk& ch) {
          const auto lo = ch.begin, hi = ch.end;
          switch (kernel) {
            case 0:
              for (auto i = lo; i < hi; ++i) C[i] = A[i];
              break;
            case 1:
              for (auto i = lo; i < hi; ++i) B[i] = kScalar * C[i];
              break;
            case 2:
              for (auto i = lo; i < hi; ++i) C[i] = A[i] + B[i];
              break;
            default:
              for (auto i = lo; i < hi; ++i) A[i] = B[i] + kScalar * C[i];
          }
        });
        place.barrier();
        if (place.index() == 0)
          seconds[static_cast<std::size_t>(kernel)][static_cast<std::size_t>(k)] =
              std::chrono::duration<double>(Clock::now() - t0).count();
      }
    }
  });
  Result r{};
  for (int kernel = 0; kernel < 4; ++kernel) {
    const auto& s = seconds[static_cast<std::size_t>(kernel)];
    r.best[kernel] = *std::min_element(s.begin() + (times > 1 ? 1 : 0), s.end());
  }
  r.placement = tsar::bench::placement_of(part);
  r.valid = check(a.data(), b.data(), c.data(), n, times);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tsar-stream: STREAM under every TSAR memory policy, from the worst placement"};
  std::size_t n = std::size_t{1} << 24;
  int times = 10;
  std::string places;
  app.add_option("--n", n, "elements per array (STREAM: at least 4x the last-level cache)")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 34));
  app.add_option("--times", times, "repetitions of the four kernels")->check(CLI::Range(2, 1000));
  app.add_option("--places", places, "places ('|'-separated device lists); default: NUMA nodes");
  symmer::add_version_flag(app, "tsar-stream");
  CLI11_PARSE(app, argc, argv);
  try {
    const auto node =
        symmer::topology::NodeModel::from_this_node(symmer::topology::GpuQuery::kNone);
    struct Variant {
      const char* name;
      int policy;
      bool first_touch;
    };
    const Variant variants[] = {{"first_touch", TSAR_POLICY_COHERENT, true},
                                {"coherent", TSAR_POLICY_COHERENT, false},
                                {"interleave", TSAR_POLICY_INTERLEAVE, false},
                                {"migrate", TSAR_POLICY_MIGRATE, false},
                                {"migrate_interleaved", TSAR_POLICY_MIGRATE_INTERLEAVED, false},
                                {"replicate", TSAR_POLICY_REPLICATE, false}};
    const double bytes[4] = {16.0 * static_cast<double>(n), 16.0 * static_cast<double>(n),
                             24.0 * static_cast<double>(n), 24.0 * static_cast<double>(n)};
    nlohmann::json out{{"bench", "tsar-stream"},
                       {"n", n},
                       {"times", times},
                       {"numa_nodes", tsar_num_numa_nodes()}};
    tsar::Partition probe("stream-places", places, "static", "", TSAR_DEVICE_CPU);
    out["places"] = probe.num_places();
    std::printf(
        "tsar-stream: %zu doubles per array (%.0f MiB), %d times, %d place(s) on %d NUMA node(s)\n",
        n, static_cast<double>(n) * 8.0 / (1 << 20), times, probe.num_places(),
        tsar_num_numa_nodes());
    std::printf("%-20s %10s %10s %10s %10s  %9s %11s\n", "MB/s", "copy", "scale", "add", "triad",
                "placing s", "pages moved");
    double first[4] = {0, 0, 0, 0};
    bool all_valid = true;
    for (const auto& v : variants) {
      const Result r = run(v.name, v.policy, v.first_touch, n, times, places, node);
      nlohmann::json j{{"placement", r.placement}, {"valid", r.valid}};
      std::printf("%-20s", v.name);
      for (int k = 0; k < 4; ++k) {
        const double mbs = bytes[k] / r.best[k] / 1e6;
        j[kKernels[k]] = mbs;
        if (v.first_touch) first[k] = mbs;
        std::printf(" %10.0f", mbs);
      }
      double ratio = 0.0;
      for (int k = 0; k < 4; ++k) ratio += j[kKernels[k]].get<double>() / first[k] / 4.0;
      j["over_first_touch"] = ratio;
      std::printf("  %9.3f %11lld%s\n", r.placement["placement_seconds"].get<double>(),
                  static_cast<long long>(r.placement["pages_moved"].get<std::int64_t>()),
                  r.valid ? "" : "  RESULTS WRONG");
      all_valid = all_valid && r.valid;
      out["policies"][v.name] = j;
    }
    out["migrate_over_first_touch"] = out["policies"]["migrate"]["over_first_touch"];
    out["coherent_over_first_touch"] = out["policies"]["coherent"]["over_first_touch"];
    out["valid"] = all_valid;
    if (const std::string note = tsar::bench::one_node_note(); !note.empty()) {
      out["note"] = note;
      std::printf("%s\n", note.c_str());
    }
    std::printf("%s\n", out.dump().c_str());
    return all_valid ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tsar-stream: %s\n", e.what());
    return 1;
  }
}
