// SPDX-License-Identifier: BSD-3-Clause
// tsar-bench-halo: a Jacobi (Helmholtz-like) stencil on a grid partitioned by rows over the
// places, with per-place copies (replicate), in three ways side by side (thesis 6.5.2, fig.
// 6.8):
//   nearby       one partition pass for all steps; after each step only the halo rows move,
//                from each neighbour's copy to the place's own (padding_update_nearby)
//   merge        one partition pass for all steps; after each step every place merges its
//                whole part back to the host and reads part and halo again
//   repartition  one partition pass per step (re-balancing every step, as the thesis's
//                "Helmholtz-nested" did): copies in, one step, merge out
// and, as the reference without copies, `shared`: one pass, places computing on the host
// grid, updates only synchronising. Every variant is checked against a serial run.
//   merge_over_nearby         T(merge) / T(nearby)
//   repartition_over_nearby   T(repartition) / T(nearby)
//   bytes_merge_over_nearby   bytes moved per step, merge / nearby
// With one NUMA node the places default to one per core, so places have neighbours.
// Usage: tsar-bench-halo [--rows R] [--cols C] [--steps S] [--places SPEC]
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

struct Grid {
  std::size_t rows, cols;
};

void step(const Grid& g, const double* u, double* v, std::int64_t lo, std::int64_t hi) {
  const auto rows = static_cast<std::int64_t>(g.rows);
  for (auto i = std::max<std::int64_t>(lo, 1); i < std::min(hi, rows - 1); ++i) {
    const auto r = static_cast<std::size_t>(i);
    const double* up = u + (r - 1) * g.cols;
    const double* mid = u + r * g.cols;
    const double* down = u + (r + 1) * g.cols;
    double* out = v + r * g.cols;
    for (std::size_t j = 1; j + 1 < g.cols; ++j)
      out[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
  }
}

std::vector<double> initial(const Grid& g) {
  std::vector<double> u(g.rows * g.cols, 0.0);
  for (std::size_t j = 0; j < g.cols; ++j) u[j] = 100.0;  // a hot edge
  for (std::size_t i = 0; i < g.rows; ++i) u[i * g.cols] = 50.0;
  return u;
}

struct Result {
  double seconds;
  std::int64_t bytes;  // copied by halo updates, merges and placement
  double max_error;
};

Result run(const std::string& mode, const Grid& g, int steps, const std::string& places,
           const std::vector<double>& reference) {
  std::vector<double> u = initial(g), v = u;
  const bool copies = mode != "shared";
  tsar::Partition part("halo-" + mode, places, "adaptive", "adaptive", TSAR_DEVICE_CPU);
  for (auto* x : {&u, &v})
    part.map_array(x->data(),
                   tsar::Partition::matrix(g.rows, g.cols, 0, 0, TSAR_MEM_INOUT, nullptr, 1));
  part.set_policy(copies ? tsar::MemPolicy::replicate : tsar::MemPolicy::coherent);
  std::int64_t bytes = 0;
  const auto account = [&] {
    const auto p = tsar::bench::placement_of(part);
    bytes += p["bytes_replicated"].get<std::int64_t>() + p["bytes_merged"].get<std::int64_t>() +
             p["halo_bytes"].get<std::int64_t>();
  };
  const int what = mode == "merge" ? TSAR_UPDATE_MERGE : TSAR_UPDATE_PADDING_NEARBY;
  const auto t0 = Clock::now();
  if (mode == "repartition") {
    for (int s = 0; s < steps; ++s) {
      const double* from = s % 2 == 0 ? u.data() : v.data();
      double* to = s % 2 == 0 ? v.data() : u.data();
      part.run(static_cast<std::int64_t>(g.rows), [&](tsar::Place& place) {
        const double* f = place.mem(from);
        double* t = place.mem(to);
        place.for_each(0, place.begin(), place.end(),
                       [&](const tsar_chunk& c) { step(g, f, t, c.begin, c.end); });
      });
      account();
    }
  } else {
    part.run(static_cast<std::int64_t>(g.rows), [&](tsar::Place& place) {
      double* views[2] = {place.mem(u.data()), place.mem(v.data())};
      const void* keys[2] = {u.data(), v.data()};
      for (int s = 0; s < steps; ++s) {
        const int from = s % 2, to = 1 - from;
        place.for_each(0, place.begin(), place.end(), [&](const tsar_chunk& c) {
          step(g, views[from], views[to], c.begin, c.end);
        });
        place.update(keys[to], what);
      }
    });
    account();
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  const std::vector<double>& result = steps % 2 == 0 ? u : v;
  double err = 0.0;
  for (std::size_t i = 0; i < result.size(); ++i)
    err = std::max(err, std::fabs(result[i] - reference[i]));
  return {seconds, bytes, err};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tsar-bench-halo: Jacobi with halo exchange vs full merge per step"};
  Grid g{2048, 1024};
  int steps = 100;
  std::string places;
  app.add_option("--rows", g.rows, "grid rows (partitioned)")
      ->check(CLI::Range(std::size_t{8}, std::size_t{1} << 24));
  app.add_option("--cols", g.cols, "grid columns")
      ->check(CLI::Range(std::size_t{3}, std::size_t{1} << 24));
  app.add_option("--steps", steps, "Jacobi steps")->check(CLI::Range(1, 100000));
  app.add_option("--places", places,
                 "places ('|'-separated device lists); default: NUMA nodes, "
                 "or one per core on a one-node machine");
  symmer::add_version_flag(app, "tsar-bench-halo");
  CLI11_PARSE(app, argc, argv);
  try {
    const auto node =
        symmer::topology::NodeModel::from_this_node(symmer::topology::GpuQuery::kNone);
    std::string why_places = "one place per NUMA node";
    if (places.empty() && tsar_num_numa_nodes() == 1) {
      for (std::size_t c = 0; c < node.cores().size(); ++c)
        places += (c == 0 ? "cpu:" : "|cpu:") + std::to_string(c);
      why_places = "1 NUMA node: one place per core, so that places have neighbours";
    } else if (!places.empty()) {
      why_places = "--places";
    }
    // The serial reference.
    std::vector<double> ref = initial(g), tmp = ref;
    for (int s = 0; s < steps; ++s) {
      step(g, ref.data(), tmp.data(), 0, static_cast<std::int64_t>(g.rows));
      std::swap(ref, tmp);
    }
    nlohmann::json out{{"bench", "tsar-bench-halo"},
                       {"rows", g.rows},
                       {"cols", g.cols},
                       {"steps", steps},
                       {"numa_nodes", tsar_num_numa_nodes()},
                       {"places", places.empty() ? "numa" : places},
                       {"places_why", why_places}};
    std::printf("tsar-bench-halo: %zu x %zu grid, %d steps, places: %s (%s)\n", g.rows, g.cols,
                steps, places.empty() ? "NUMA nodes" : places.c_str(), why_places.c_str());
    std::printf("%-12s %10s %14s %12s\n", "mode", "ms/step", "MiB moved/step", "max error");
    bool valid = true;
    for (const char* mode : {"shared", "nearby", "merge", "repartition"}) {
      const Result r = run(mode, g, steps, places, ref);
      valid = valid && r.max_error == 0.0;
      const double per_step_bytes = static_cast<double>(r.bytes) / steps;
      std::printf("%-12s %10.3f %14.3f %12.2g%s\n", mode, r.seconds * 1e3 / steps,
                  per_step_bytes / (1 << 20), r.max_error, r.max_error == 0.0 ? "" : "  WRONG");
      out["modes"][mode] = {{"seconds", r.seconds},
                            {"seconds_per_step", r.seconds / steps},
                            {"bytes", r.bytes},
                            {"bytes_per_step", per_step_bytes},
                            {"max_error", r.max_error}};
    }
    const auto& m = out["modes"];
    out["merge_over_nearby"] =
        m["merge"]["seconds"].get<double>() / m["nearby"]["seconds"].get<double>();
    out["repartition_over_nearby"] =
        m["repartition"]["seconds"].get<double>() / m["nearby"]["seconds"].get<double>();
    out["bytes_merge_over_nearby"] =
        m["merge"]["bytes"].get<double>() / std::max(1.0, m["nearby"]["bytes"].get<double>());
    out["valid"] = valid;
    std::printf("%s\n", out.dump().c_str());
    return valid ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tsar-bench-halo: %s\n", e.what());
    return 1;
  }
}
